// Commitment rows (gpubill/catalog/commitment.hpp): their names, look-ups, the catalog JSON
// section "commitments" and the table commitment_price.
#include "catalog/catalog_commitments.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <string_view>
#include <tuple>
#include <utility>

#include "gpubill/base/errors.hpp"

namespace gpubill {

CommitmentProgram parse_commitment_program(std::string_view text) {
  if (text == "reserved_instance") return CommitmentProgram::reserved_instance;
  if (text == "savings_plan") return CommitmentProgram::savings_plan;
  if (text == "committed_use") return CommitmentProgram::committed_use;
  throw ParseError("unknown commitment program '" + std::string(text) +
                   "' (expected reserved_instance, savings_plan or committed_use)");
}

CommitmentPayment parse_commitment_payment(std::string_view text) {
  if (text == "no_upfront") return CommitmentPayment::no_upfront;
  if (text == "partial_upfront") return CommitmentPayment::partial_upfront;
  if (text == "all_upfront") return CommitmentPayment::all_upfront;
  throw ParseError("unknown payment option '" + std::string(text) +
                   "' (expected no_upfront, partial_upfront or all_upfront)");
}

std::string_view to_string(CommitmentProgram p) noexcept {
  switch (p) {
    case CommitmentProgram::reserved_instance:
      return "reserved_instance";
    case CommitmentProgram::savings_plan:
      return "savings_plan";
    case CommitmentProgram::committed_use:
      return "committed_use";
  }
  return "?";
}

std::string_view to_string(CommitmentPayment p) noexcept {
  switch (p) {
    case CommitmentPayment::no_upfront:
      return "no_upfront";
    case CommitmentPayment::partial_upfront:
      return "partial_upfront";
    case CommitmentPayment::all_upfront:
      return "all_upfront";
  }
  return "?";
}

std::int64_t commitment_term_hours(int term_months) noexcept {
  return term_months == 36 ? 26280 : 8760;
}

std::string CommitmentRow::key() const {
  std::string out = program == CommitmentProgram::reserved_instance ? "ri"
                    : program == CommitmentProgram::savings_plan    ? "sp"
                                                                    : "cud";
  if (!offering_class.empty()) out += "-" + offering_class;
  std::string pay(to_string(payment));
  std::replace(pay.begin(), pay.end(), '_', '-');
  return out + "-" + pay;
}

Money CommitmentRow::term_cost() const {
  return upfront + hourly * term_hours();
}

namespace {

auto commitment_key(const CommitmentRow& r) {
  return std::tuple(r.provider, r.subject_kind, r.subject, r.region, r.program, r.offering_class,
                    r.term_months, r.payment);
}

}  // namespace

std::vector<const CommitmentRow*> commitments_at(const Catalog& catalog, std::string_view provider,
                                                 SubjectKind kind, std::string_view subject,
                                                 std::string_view region, Instant t) {
  // Per key without the region: the region's row wins over an every-region row.
  std::map<std::tuple<CommitmentProgram, std::string, int, CommitmentPayment>, const CommitmentRow*>
      best;
  for (const auto& r : catalog.data().commitments) {
    if (r.provider != provider || r.subject_kind != kind || r.subject != subject) continue;
    if (!r.region.empty() && r.region != region) continue;
    if (!r.period.contains(t)) continue;
    auto& slot = best[{r.program, r.offering_class, r.term_months, r.payment}];
    if (!slot || (slot->region.empty() && !r.region.empty())) slot = &r;
  }
  std::vector<const CommitmentRow*> out;
  out.reserve(best.size());
  for (const auto& [key, row] : best) out.push_back(row);
  return out;
}

CommitmentRow read_commitment_json(const json_input::Fields& f, const Decimal& max_amount) {
  CommitmentRow r;
  r.provider = f.text("provider");
  if (f.has("instance_type") == f.has("gpu")) {
    f.fail("instance_type", "give either instance_type or gpu");
  }
  r.subject_kind = f.has("gpu") ? SubjectKind::gpu : SubjectKind::instance;
  r.subject = f.text(f.has("gpu") ? "gpu" : "instance_type");
  r.region = f.opt_text("region");
  try {
    r.program = parse_commitment_program(f.text("program"));
  } catch (const ParseError& e) {
    f.fail("program", e.what());
  }
  try {
    r.payment = parse_commitment_payment(f.text("payment"));
  } catch (const ParseError& e) {
    f.fail("payment", e.what());
  }
  r.offering_class = f.opt_text("class");
  const bool ri = r.program == CommitmentProgram::reserved_instance;
  if (ri && r.offering_class != "standard" && r.offering_class != "convertible") {
    f.fail("class", "a reserved instance is 'standard' or 'convertible'");
  }
  // A savings plan's rate row names the plan it is the rate of: Compute or EC2 Instance.
  const bool sp = r.program == CommitmentProgram::savings_plan;
  if (sp && r.offering_class != "compute" && r.offering_class != "ec2_instance") {
    f.fail("class", "a savings plan rate is of plan 'compute' or 'ec2_instance'");
  }
  if (!ri && !sp && !r.offering_class.empty()) {
    f.fail("class", "only a reserved instance or a savings plan rate has a class");
  }
  r.term_months = f.integer("term_months", 12, 36);
  if (r.term_months != 12 && r.term_months != 36) f.fail("term_months", "must be 12 or 36");
  const Currency currency = f.currency("currency");
  const auto amount = [&](std::string_view key) {
    const Decimal d = f.decimal(key);
    if (d > max_amount)
      f.fail(key, d.to_string() + " is above the limit of " + max_amount.to_string());
    return Money(d, currency);
  };
  r.upfront = amount("upfront");
  r.hourly = amount("hourly");
  const bool has_upfront = !r.upfront.amount().is_zero(), has_hourly = !r.hourly.amount().is_zero();
  if (r.payment == CommitmentPayment::no_upfront && has_upfront) {
    f.fail("upfront", "a no_upfront commitment has upfront 0");
  }
  if (r.payment == CommitmentPayment::all_upfront && has_hourly) {
    f.fail("hourly", "an all_upfront commitment has hourly 0");
  }
  if (r.payment != CommitmentPayment::all_upfront && !has_hourly) {
    f.fail("hourly", "must be above 0 for " + std::string(to_string(r.payment)));
  }
  if (r.payment != CommitmentPayment::no_upfront && !has_upfront) {
    f.fail("upfront", "must be above 0 for " + std::string(to_string(r.payment)));
  }
  r.period = f.period();
  r.source = f.text("source");
  r.as_of = f.day_text("as_of");
  return r;
}

void check_commitment_periods(const std::vector<CommitmentRow>& rows, const std::string& file) {
  std::vector<std::size_t> order(rows.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::tuple(commitment_key(rows[a]), rows[a].period.from, a) <
           std::tuple(commitment_key(rows[b]), rows[b].period.from, b);
  });
  for (std::size_t k = 1; k < order.size(); ++k) {
    const auto& earlier = rows[order[k - 1]];
    const auto& later = rows[order[k]];
    if (commitment_key(earlier) != commitment_key(later)) continue;
    const std::string other = "/commitments/" + std::to_string(order[k - 1]);
    const std::string here = "/commitments/" + std::to_string(order[k]);
    if (earlier.period.from == later.period.from) {
      throw InputError(
          file, here, "effective_from",
          "same key and effective_from (" + format_instant(later.period.from) + ") as " + other);
    }
    if (!earlier.period.to || *earlier.period.to > later.period.from) {
      throw InputError(file, here, "effective_from",
                       "period overlaps " + other + ", which has no effective_to before it");
    }
  }
}

namespace {

Decimal stored_decimal(const store::Column& c) {
  try {
    return Decimal::parse(c.getString());
  } catch (const Error& e) {
    throw StoreError(std::string("commitment_price.") + c.getName() + ": stored value '" +
                     c.getString() + "' does not decode: " + e.what());
  }
}

}  // namespace

namespace {

constexpr const char* kCommitmentColumns =
    "SELECT id, provider, subject_kind, subject, region, program, offering_class, term_months, "
    "payment, upfront, hourly, currency, effective_from, effective_to, ";

CommitmentRow commitment_row(const store::Statement& q) {
  CommitmentRow r;
  r.id = q.getColumn(0).getInt64();
  r.provider = q.getColumn(1).getStringView();
  r.subject_kind =
      q.getColumn(2).getStringView() == "gpu" ? SubjectKind::gpu : SubjectKind::instance;
  r.subject = q.getColumn(3).getStringView();
  r.region = q.getColumn(4).getStringView();
  r.program = parse_commitment_program(q.getColumn(5).getStringView());
  r.offering_class = q.getColumn(6).getStringView();
  r.term_months = q.getColumn(7).getInt();
  r.payment = parse_commitment_payment(q.getColumn(8).getStringView());
  const Currency c = Currency::parse(q.getColumn(11).getStringView());
  r.upfront = Money(stored_decimal(q.getColumn(9)), c);
  r.hourly = Money(stored_decimal(q.getColumn(10)), c);
  r.period.from = Instant{std::chrono::seconds{q.getColumn(12).getInt64()}};
  if (!q.getColumn(13).isNull()) {
    r.period.to = Instant{std::chrono::seconds{q.getColumn(13).getInt64()}};
  }
  r.source = q.getColumn(14).getStringView();
  r.as_of = q.getColumn(15).getStringView();
  return r;
}

}  // namespace

void read_commitments(store::Connection& db, CatalogData& out, const std::set<std::string>* gpus,
                      bool with_source) {
  const std::string columns =
      std::string(kCommitmentColumns) + (with_source ? "source" : "''") + ", as_of ";
  if (!gpus) {
    store::Statement q(db, columns +
                               "FROM commitment_price ORDER BY provider, subject_kind, subject, "
                               "region, program, offering_class, term_months, payment, "
                               "effective_from");
    while (q.executeStep()) out.commitments.push_back(commitment_row(q));
    return;
  }
  // The subjects a quote of `gpus` can use: each instance type already in `out`, and each GPU
  // at each provider. Each is read by its own range of the key index (the unique key), in key
  // order: no scan of the table, no sort.
  std::set<std::tuple<std::string_view, std::string_view, std::string_view>> subjects;
  for (const auto& t : out.instance_types) subjects.emplace(t.provider, "instance", t.id);
  for (const auto& p : out.providers) {
    for (const auto& g : *gpus) subjects.emplace(p.id, "gpu", g);
  }
  if (subjects.empty()) return;
  store::Statement q(db, columns +
                             "FROM commitment_price WHERE provider = ? AND subject_kind = ? AND "
                             "subject = ? ORDER BY region, program, offering_class, term_months, "
                             "payment, effective_from");
  for (const auto& [provider, kind, subject] : subjects) {
    q.reset();
    q.bind(1, provider);
    q.bind(2, kind);
    q.bind(3, subject);
    while (q.executeStep()) out.commitments.push_back(commitment_row(q));
  }
}

void write_commitments(store::Connection& db, const CatalogData& data) {
  if (data.commitments.empty()) return;
  store::Statement q(
      db,
      "INSERT INTO commitment_price(provider, subject_kind, subject, region, program, "
      "offering_class, term_months, payment, upfront, hourly, currency, effective_from, "
      "effective_to, source, as_of) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) "
      "ON CONFLICT(provider, subject_kind, subject, region, program, offering_class, "
      "term_months, payment, effective_from) DO UPDATE SET upfront = excluded.upfront, "
      "hourly = excluded.hourly, currency = excluded.currency, effective_to = "
      "excluded.effective_to, source = excluded.source, as_of = excluded.as_of");
  for (const auto& r : data.commitments) {
    q.bind(1, r.provider);
    q.bind(2, std::string(to_string(r.subject_kind)));
    q.bind(3, r.subject);
    q.bind(4, r.region);
    q.bind(5, std::string(to_string(r.program)));
    q.bind(6, r.offering_class);
    q.bind(7, r.term_months);
    q.bind(8, std::string(to_string(r.payment)));
    q.bind(9, r.upfront.amount().to_string());
    q.bind(10, r.hourly.amount().to_string());
    q.bind(11, r.upfront.currency().to_string());
    q.bind(12, static_cast<std::int64_t>(r.period.from.time_since_epoch().count()));
    if (r.period.to) {
      q.bind(13, static_cast<std::int64_t>(r.period.to->time_since_epoch().count()));
    } else {
      q.bind(13);
    }
    q.bind(14, r.source);
    q.bind(15, r.as_of);
    q.exec();
    q.reset();
  }
}

}  // namespace gpubill
