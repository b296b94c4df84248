// Values of flags that several subcommands share, checked so that errors name the flag.
#include <algorithm>
#include "commands.hpp"

#include "gpubill/base/errors.hpp"
#include "gpubill/catalog/catalog_offers.hpp"
#include "gpubill/ledger/ledger.hpp"
#include "gpubill/quote/workload.hpp"
#include "output.hpp"

namespace gpubill::cli {

CLI::Validator count_flag(long long min, long long max) {
  return CLI::Validator(
      [min, max](std::string& text) -> std::string {
        const bool negative = !text.empty() && text[0] == '-';
        const std::string digits = negative ? text.substr(1) : text;
        if (digits.empty() || digits.size() > 18 ||
            digits.find_first_not_of("0123456789") != std::string::npos) {
          return "must be a whole number from " + std::to_string(min) + " to " +
                 std::to_string(max) + " (found '" + text + "')";
        }
        const long long v = std::stoll(text);
        if (v < min) return "must be ≥ " + std::to_string(min) + " (found " + text + ")";
        if (v > max) return "must be at most " + std::to_string(max) + " (found " + text + ")";
        return {};
      },
      "INT in [" + std::to_string(min) + " - " + std::to_string(max) + "]");
}

std::optional<Instant> instant_flag(const std::string& flag,
                                    const std::optional<std::string>& text) {
  if (!text) return std::nullopt;
  if (text->empty()) {
    throw InputError("command line", "", flag,
                     "empty; give an RFC 3339 instant or a date YYYY-MM-DD (00:00 UTC)");
  }
  try {
    return parse_instant(*text, /*allow_date=*/true);
  } catch (const ParseError& e) {
    throw InputError("command line", "", flag, e.what());
  }
}

void check_provider_flag(const Catalog& catalog, const std::string& provider) {
  if (!provider.empty()) flag_value("--provider", [&] { (void)catalog.provider(provider); });
}

std::vector<std::string> gpu_flag(const Catalog& catalog, const std::string& name) {
  std::vector<std::string> ids;
  if (name.empty()) return ids;
  for (const auto* g : flag_value("--gpu", [&] { return gpus_matching(catalog, name); })) {
    ids.push_back(g->id);
  }
  return ids;
}

std::optional<BillingMode> mode_flag(const std::string& text) {
  if (text.empty()) return std::nullopt;
  return flag_value("--mode", [&] { return parse_billing_mode(text); });
}

std::pair<int, unsigned> parse_month(const std::string& text) {
  const auto bad = [&] {
    throw ParseError("'" + text + "' is not a month: expected YYYY-MM, e.g. 2018-01");
  };
  if (text.size() != 7 || text[4] != '-') bad();
  for (std::size_t i : {0u, 1u, 2u, 3u, 5u, 6u}) {
    if (text[i] < '0' || text[i] > '9') bad();
  }
  const int year = std::stoi(text.substr(0, 4));
  const unsigned month = static_cast<unsigned>(std::stoi(text.substr(5, 2)));
  if (month < 1 || month > 12) bad();
  if (year < 1970) {
    throw ParseError("'" + text +
                     "' is before 1970-01: no cloud server was billed then; check the year");
  }
  return {year, month};
}

void check_account(Database& db, const std::string& account) {
  const std::vector<std::string> known = known_accounts(db);
  if (std::binary_search(known.begin(), known.end(), account)) return;
  std::string reason = "unknown account '" + account + "': ";
  if (known.empty()) {
    reason += "no account has events in this database yet (replay a log first)";
  } else {
    const auto closest = closest_names(account, known);
    reason += "no event names it";
    if (!closest.empty()) reason += " (closest known: " + join(closest) + ")";
  }
  throw InputError("command line", "", "--account", reason);
}

}  // namespace gpubill::cli
