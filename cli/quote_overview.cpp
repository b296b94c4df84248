// The default quote answer (quote_overview.hpp).
#include "quote_overview.hpp"

#include <algorithm>
#include <map>
#include <ostream>
#include <set>
#include <tuple>

#include "output.hpp"
#include "text_table.hpp"

namespace gpubill::cli {

namespace {

enum class Group { payg, terms, spot };

Group group_of(BillingMode mode) {
  if (mode == BillingMode::payg) return Group::payg;
  if (mode == BillingMode::spot) return Group::spot;
  return Group::terms;  // prepaid, reserved_1y, reserved_3y
}

// Numbers each distinct note once, in order of first use; a line's cell is "1,3".
class NoteNumbers {
 public:
  std::string cell(const std::vector<std::string>& notes) {
    std::string out;
    for (const auto& note : notes) {
      auto it = std::find(notes_.begin(), notes_.end(), note);
      if (it == notes_.end()) it = notes_.insert(notes_.end(), note);
      out += (out.empty() ? "" : ",") + std::to_string(it - notes_.begin() + 1);
    }
    return out;
  }
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  std::vector<std::string> notes_;
};

// The notes of a line worth numbering: its age is in the stale group's as_of column.
std::vector<std::string> shown_notes(const QuoteLine& l) {
  std::vector<std::string> out;
  for (const auto& n : l.notes) {
    if (!(l.stale && n.rfind("price as of ", 0) == 0)) out.push_back(n);
  }
  return out;
}

Table group_table(const OverviewGroup& g, NoteNumbers& numbers) {
  Table t;
  t.columns = {int_column("rank"), id_column("provider"), id_column("instance_type"),
               id_column("region")};
  if (g.show_mode) t.columns.push_back(id_column("mode"));
  t.columns.push_back({"total", true});
  t.columns.push_back(droppable({"per_gpu_hour", true}, 3));
  // Stale prices keep their date: it is why they are apart.
  t.columns.push_back(g.stale ? Column{"as_of"} : droppable({"as_of"}, 2));
  t.columns.push_back(droppable({"src"}, 1));
  t.columns.push_back({"notes"});
  for (const QuoteLine* l : g.lines) {
    std::vector<std::string> row = {std::to_string(l->rank), l->provider, l->instance_type,
                                    l->region};
    if (g.show_mode) {
      row.push_back(l->mode ? std::string(to_string(*l->mode)) +
                                  (l->commitment ? " " + l->commitment->row->key() : std::string())
                            : "");
    }
    row.push_back(money_cell(l->total));
    row.push_back(money_cell(l->per_gpu_hour, 4));
    row.push_back(l->as_of);
    row.push_back(std::string(to_string(l->source_tag)));
    row.push_back(numbers.cell(shown_notes(*l)));
    t.add_row(std::move(row));
  }
  return t;
}

std::string plural(std::size_t n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

std::vector<OverviewGroup> overview_groups(const QuoteResult& q) {
  std::vector<OverviewGroup> groups = {
      {"Pay-as-you-go: the cheapest line of each provider", false, false, {}},
      {"Prepaid and reserved terms: the cheapest of each provider and term kind", true, false, {}},
      {"Spot, INTERRUPTIBLE (can be reclaimed at any time): the cheapest of each provider",
       false,
       false,
       {}},
      {"STALE: source over " + std::to_string(kStaleAfterMonths) +
           " months older than the quote date; not ranked with the above",
       true,
       true,
       {}}};
  std::set<std::tuple<bool, std::string, BillingMode>> seen;
  for (const QuoteLine& l : q.lines) {
    if (!l.priced || !l.mode) continue;
    const bool apart = q.stale_apart && l.stale;
    if (!seen.insert({apart, l.provider, *l.mode}).second) continue;
    groups[apart ? 3 : static_cast<std::size_t>(group_of(*l.mode))].lines.push_back(&l);
  }
  groups.erase(std::remove_if(groups.begin(), groups.end(),
                              [](const OverviewGroup& g) { return g.lines.empty(); }),
               groups.end());
  return groups;
}

std::size_t retired_lines(const QuoteResult&) {
  // Plug-in point for offer retirement (QuoteResult's retired count, when the catalog has it).
  return 0;
}

std::vector<std::pair<std::string, std::string>> newest_price_sources(const Catalog& catalog,
                                                                      const QuoteResult& q) {
  std::set<std::string> quoted;
  for (const QuoteLine& l : q.lines) quoted.insert(l.provider);
  std::map<std::string, std::string> newest;
  for (const PriceRow& p : catalog.data().prices) {
    if (p.key_only || !p.period.contains(q.at) || !quoted.count(p.provider)) continue;
    std::string& d = newest[p.provider];
    d = std::max(d, p.as_of.substr(0, 10));
  }
  return {newest.begin(), newest.end()};
}

void write_quote_overview(std::ostream& out, const QuoteResult& q) {
  const std::vector<OverviewGroup> groups = overview_groups(q);
  NoteNumbers numbers;
  std::size_t shown = 0;
  for (const auto& g : groups) {
    write_wrapped(out, g.title, "", "  ");
    write_table(out, group_table(g, numbers), Format::table);
    out << "\n";
    shown += g.lines.size();
  }
  if (groups.empty()) out << "No current price for any fitting offer.\n\n";
  if (!numbers.notes().empty()) {
    out << "Notes:\n";
    for (std::size_t i = 0; i < numbers.notes().size(); ++i) {
      const std::string number = std::to_string(i + 1) + ". ";
      write_wrapped(out, numbers.notes()[i], "  " + number,
                    std::string(2 + display_width(number), ' '));
    }
    out << "\n";
  }
  std::size_t stale_shown = 0;
  for (const auto& g : groups) {
    for (const QuoteLine* l : g.lines) stale_shown += q.stale_apart && l->stale;
  }
  const std::size_t stale = q.stale_apart ? q.lines_stale - stale_shown : 0;
  const std::size_t more = q.lines_priced - std::min(q.lines_priced, shown + stale);
  std::vector<std::string> left;
  if (more > 0) left.push_back(plural(more, "more priced line", "more priced lines"));
  if (q.lines_unknown > 0) left.push_back(std::to_string(q.lines_unknown) + " unknown");
  if (stale > 0) left.push_back(std::to_string(stale) + " more stale");
  if (const std::size_t retired = retired_lines(q); retired > 0) {
    left.push_back(std::to_string(retired) + " retired");
  }
  if (!left.empty()) {
    std::string text = "Not shown: " + join(left, ", ") + " (--top 0 lists every line";
    if (stale > 0) text += "; --include-stale ranks stale prices with the current ones";
    write_wrapped(out, text + ").", "", "  ");
  }
}

}  // namespace gpubill::cli
