// Usage errors with a suggestion (usage_hint.hpp).
#include "usage_hint.hpp"

#include <algorithm>
#include <cctype>

#include "output.hpp"

namespace gpubill::cli {

namespace {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                        std::tolower(static_cast<unsigned char>(b[j - 1]));
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

std::vector<std::string> subcommand_names(CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    names.push_back(sub->get_name());
  }
  return names;
}

CLI::App* find_subcommand(CLI::App& app, const std::string& name) {
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    if (sub->get_name() == name) return sub;
  }
  return nullptr;
}

// The long flags of `app` and of the commands above it ("--currency").
std::vector<std::string> flag_names(CLI::App* app) {
  std::vector<std::string> names;
  for (; app != nullptr; app = app->get_parent()) {
    for (const CLI::Option* o : app->get_options()) {
      for (const auto& l : o->get_lnames()) names.push_back("--" + l);
    }
  }
  return names;
}

const CLI::Option* find_flag(CLI::App* app, const std::string& word) {
  for (; app != nullptr; app = app->get_parent()) {
    if (const CLI::Option* o = app->get_option_no_throw(word)) return o;
  }
  return nullptr;
}

std::string suggestion(const std::vector<std::string>& names) {
  if (names.empty()) return "";
  std::vector<std::string> quoted;
  for (const auto& n : names) quoted.push_back("`" + n + "`");
  return "; did you mean " + join(quoted, " or ") + "?";
}

}  // namespace

std::vector<std::string> close_names(const std::string& word,
                                     const std::vector<std::string>& candidates) {
  std::vector<std::pair<std::size_t, std::string>> scored;
  const std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(word, c);
    const bool prefix = word.size() >= 3 && c.rfind(word, 0) == 0;
    if (d <= limit || prefix) scored.emplace_back(prefix ? 0 : d, c);
  }
  std::sort(scored.begin(), scored.end());
  scored.erase(std::unique(scored.begin(), scored.end()), scored.end());
  std::vector<std::string> out;
  for (std::size_t i = 0; i < scored.size() && i < 3; ++i) out.push_back(scored[i].second);
  return out;
}

std::string usage_hint(CLI::App& app, const std::vector<std::string>& args) {
  CLI::App* at = &app;
  std::string path = "gpubill";
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    if (word == "--") break;
    if (word.size() > 1 && word[0] == '-') {
      const std::string flag = word.substr(0, word.find('='));
      const CLI::Option* o = find_flag(at, flag);
      if (o == nullptr && flag.rfind("--", 0) == 0) {
        return "unknown flag " + flag + " for " + path +
               suggestion(close_names(flag, flag_names(at)));
      }
      // A flag that takes a value takes the next word, unless written --flag=value.
      if (o != nullptr && o->get_type_size_min() > 0 && word.find('=') == std::string::npos) ++i;
      continue;
    }
    if (CLI::App* sub = find_subcommand(*at, word)) {
      at = sub;
      path += " " + word;
      continue;
    }
    const std::vector<std::string> names = subcommand_names(*at);
    if (!names.empty()) {
      return "unknown command '" + word + "' for " + path + suggestion(close_names(word, names)) +
             " (" + path + " has: " + join(names) + ")";
    }
  }
  const std::vector<std::string> names = subcommand_names(*at);
  if (!names.empty() && at->get_require_subcommand_min() > 0) {
    return path + " needs a command: " + join(names);
  }
  return "";
}

}  // namespace gpubill::cli
