// The rule behind each difference, tried in order: currency, a credit or a cycle's rounding,
// rounding per line, a different price row, a different metered quantity (settlement cycle), a
// discount; then the neighbouring period (pair_period_boundaries).
#include <cstdlib>
#include <tuple>

#include "gpubill/base/errors.hpp"
#include "gpubill/ledger/ledger.hpp"
#include "reconcile/reconcile_keys.hpp"

namespace gpubill::reconcile_detail {

namespace {

Decimal abs_of(const Decimal& d) {
  return d.sign() < 0 ? -d : d;
}

std::string money(const Decimal& d, const std::string& currency) {
  return d.to_string() + (currency.empty() ? "" : " " + currency);
}

std::string signed_text(const Decimal& d) {
  return d.sign() > 0 ? "+" + d.to_string() : d.to_string();
}

// The policy row's rounding, as a phrase: "half_up to 2 decimals per hour (policy 10)".
std::string policy_phrase(Database& db, const GpubillSide& gp) {
  if (gp.charge_count == 0) return "its policy";
  try {
    const auto x = explain_charge(db, gp.charge_ids[0]);
    if (!x.policy) return "its policy";
    const auto& p = *x.policy;
    return std::string(to_string(p.settlement_rounding)) + " to " +
           std::to_string(p.settlement_decimals) + " decimals once per " + p.settlement_period +
           " (policy row " + std::to_string(p.id) + ")";
  } catch (const Error&) {
    return "its policy";
  }
}

std::string charges_text(const GpubillSide& gp) {
  std::string out = gp.charge_count == 1 ? "charge " : "charges ";
  for (std::size_t i = 0; i < gp.charge_count; ++i) {
    out += (i ? ", " : "") + std::to_string(gp.charge_ids[i]);
  }
  return out;
}

// The invoice's amount is gpubill's exact amount, unrounded or rounded per line with a mode.
bool explain_rounding(Database& db, const GpubillSide& gp, const InvoiceSide& inv, Difference& d) {
  std::string how;
  if (inv.amount == gp.exact) {
    how = "is gpubill's exact amount " + gp.exact.to_string() + " unrounded";
  } else {
    for (std::size_t m = 0; m < kLineModes.size() && how.empty(); ++m) {
      if (inv.amount == gp.per_line[m]) {
        how = "is gpubill's exact amounts each rounded " + std::string(to_string(kLineModes[m])) +
              " to 2 decimals per line (" + gp.per_line[m].to_string() + ")";
      }
    }
  }
  if (how.empty()) return false;
  d.rule = Rule::rounding;
  d.explanation = "rounding: the invoice's " + money(inv.amount, inv.currency) + " " + how +
                  " — gpubill billed " + money(gp.billed, gp.currency()) + " (rounding " +
                  signed_text(gp.billed - gp.exact) + ", " + policy_phrase(db, gp) + ", " +
                  charges_text(gp) + ")";
  return true;
}

bool explain_price(const GpubillSide& gp, const InvoiceSide& inv, Difference& d) {
  if (!inv.rate || !gp.price_id || *inv.rate == gp.unit_price) return false;
  d.rule = Rule::price_row;
  d.explanation = "price: gpubill priced it with price row " + std::to_string(*gp.price_id) +
                  " at " + gp.unit_price.to_string() + " " + gp.currency() + "/" + gp.price_unit() +
                  " — the invoice's rate is " + inv.rate->to_string() + " (" + charges_text(gp) +
                  ")";
  return true;
}

bool explain_quantity(Database& db, const GpubillSide& gp, const InvoiceSide& inv, Difference& d) {
  if (!gp.has_seconds || gp.price_unit() != "hour") return false;
  std::optional<Decimal> hours;
  if (inv.has_hours && inv.lines > 0) hours = inv.hours;
  if (!hours && !gp.unit_price.is_zero()) {
    // No quantity in the export: the hours its amount is at gpubill's price, when whole.
    const auto h = Decimal::divide(inv.amount, gp.unit_price, 12, RoundingMode::half_even);
    if (h == h.round(0, RoundingMode::down)) hours = h;
  }
  const Decimal gp_hours = Decimal::divide(gp.seconds, 3600, 10, RoundingMode::half_up);
  if (!hours || *hours == gp_hours) return false;
  d.rule = Rule::settlement_cycle;
  d.explanation = "settlement cycle: the invoice bills " + hours->to_string() +
                  " h, gpubill metered " + gp.seconds.to_string() + " s (" + gp_hours.to_string() +
                  " h) at the same " + gp.unit_price.to_string() + " " + gp.currency() +
                  "/hour, settled " + policy_phrase(db, gp) + " (" + charges_text(gp) + ")";
  return true;
}

bool explain_discount(const GpubillSide& gp, const InvoiceSide& inv, Difference& d) {
  if (!inv.has_list || inv.lines == 0 || inv.list == inv.amount) return false;
  if (abs_of(inv.list - gp.billed) > abs_of(inv.amount - gp.billed)) return false;
  d.rule = Rule::discount;
  d.explanation = "discount: the invoice's list cost " + money(inv.list, inv.currency) +
                  " is gpubill's " + gp.billed.to_string() + " — its discount of " +
                  (inv.list - inv.amount).to_string() + " is not in gpubill's catalog";
  return true;
}

void explain_amount(Database& db, const Key& key, const GpubillSide& gp, const InvoiceSide& inv,
                    Difference& d) {
  if (!inv.currency.empty() && inv.currency != gp.currency()) {
    d.rule = Rule::currency;
    d.explanation = "currency: the invoice bills in " + inv.currency + ", gpubill in " +
                    gp.currency() + " (amounts not converted)";
    return;
  }
  if (key.category == Category::credit) {
    d.rule = Rule::credit;
    d.explanation = "credit: the invoice's credits of the month are " +
                    money(inv.amount, inv.currency) + ", gpubill's " +
                    money(gp.billed, gp.currency()) + " (" + charges_text(gp) + ")";
    return;
  }
  if (key.category == Category::rounding) {
    d.rule = Rule::rounding;
    d.explanation = "rounding at settlement: the invoice's rounding of the month is " +
                    money(inv.amount, inv.currency) + ", gpubill's " + signed_text(gp.billed) +
                    " (" + policy_phrase(db, gp) + ")";
    return;
  }
  if (explain_rounding(db, gp, inv, d) || explain_price(gp, inv, d) ||
      explain_quantity(db, gp, inv, d) || explain_discount(gp, inv, d)) {
    return;
  }
  d.rule = Rule::unexplained;
  d.explanation = "the amounts differ by " + signed_text(d.difference) +
                  " and no rule explains it (" + charges_text(gp) + ")";
}

void explain_missing(Database& db, const Key& key, const GpubillSide& gp, Difference& d) {
  if (key.category == Category::rounding) {
    d.rule = Rule::rounding;
    d.explanation = "rounding at settlement: gpubill rounds the cycle's usage once, " +
                    signed_text(gp.billed) + " " + gp.currency() + " (" + policy_phrase(db, gp) +
                    ", " + charges_text(gp) + ") — the invoice has no rounding line (it rounds " +
                    "per line or not at all)";
  } else if (key.category == Category::credit) {
    d.rule = Rule::credit;
    d.explanation = "credit: gpubill's credit of " + money(gp.billed, gp.currency()) + " (" +
                    charges_text(gp) + ") is not in the invoice";
  } else {
    d.rule = Rule::unexplained;
    d.explanation = "not in the invoice: gpubill billed " + money(gp.billed, gp.currency()) +
                    " for this period (" + charges_text(gp) + ")";
  }
}

void explain_extra(const Key& key, const InvoiceSide& inv, bool resource_known,
                   const std::string& resource, Difference& d) {
  if (key.category == Category::credit) {
    d.rule = Rule::credit;
    d.explanation = "credit: the invoice's credit of " + money(inv.amount, inv.currency) +
                    " is not in gpubill (no such discount or credit in its catalog)";
  } else if (key.category == Category::rounding) {
    d.rule = Rule::rounding;
    d.explanation = "rounding: the invoice's rounding line of " + money(inv.amount, inv.currency) +
                    " has no rounding at settlement in gpubill";
  } else if (!resource_known) {
    d.rule = Rule::unexplained;
    d.explanation = "not in gpubill: the account has no charge for a resource named '" + resource +
                    "' in the periods compared";
  } else {
    d.rule = Rule::unexplained;
    d.explanation = "not in gpubill: no charge for this resource and meter in this period";
  }
}

}  // namespace

Difference explain(Database& db, const Key& key, const SideView& entry, const std::string& resource,
                   Instant start, Instant end, bool resource_known) {
  Difference d;
  d.resource = resource;
  d.meter = std::string(meter_name(key.meter));
  d.category = std::string(category_name(key.category));
  d.period_start = start;
  d.period_end = end;
  const Decimal gp = entry.gpubill ? entry.gpubill->billed : Decimal{};
  const Decimal inv = entry.invoice ? entry.invoice->amount : Decimal{};
  d.difference = inv - gp;
  if (entry.gpubill) {
    const auto& g = *entry.gpubill;
    d.gpubill_amount = g.billed;
    d.currency = g.currency();
    d.charge_ids = g.ids();
    d.price_id = g.price_id;
    if (g.price_id) {
      d.unit_price = g.unit_price;
      d.price_unit = g.price_unit();
    }
  }
  if (entry.invoice) {
    const auto& i = *entry.invoice;
    d.invoice_amount = i.amount;
    if (d.currency.empty()) d.currency = i.currency;
    d.invoice_line = i.first_line;
    d.invoice_rate = i.rate;
  }
  if (entry.gpubill && entry.invoice) {
    d.kind = DifferenceKind::amount;
    explain_amount(db, key, *entry.gpubill, *entry.invoice, d);
  } else if (entry.gpubill) {
    d.kind = DifferenceKind::missing;
    explain_missing(db, key, *entry.gpubill, d);
  } else {
    d.kind = DifferenceKind::extra;
    explain_extra(key, *entry.invoice, resource_known, resource, d);
  }
  return d;
}

void pair_period_boundaries(std::vector<Difference>& diffs, const Decimal& tolerance) {
  for (auto& m : diffs) {
    if (m.kind != DifferenceKind::missing || m.rule != Rule::unexplained) continue;
    for (auto& e : diffs) {
      if (e.kind != DifferenceKind::extra || e.rule != Rule::unexplained ||
          std::tie(e.resource, e.meter, e.category) != std::tie(m.resource, m.meter, m.category) ||
          (e.period_start != m.period_end && e.period_end != m.period_start) ||
          abs_of(*e.invoice_amount - *m.gpubill_amount) > tolerance) {
        continue;
      }
      const std::string when = format_instant(e.period_start);
      m.rule = e.rule = Rule::period_boundary;
      m.explanation = "period boundary: the invoice books this " + m.gpubill_amount->to_string() +
                      " in the neighbouring period from " + when + " (line " +
                      std::to_string(e.invoice_line) + ")";
      e.explanation =
          "period boundary: gpubill books this amount in the neighbouring period "
          "from " +
          format_instant(m.period_start);
      break;
    }
  }
}

}  // namespace gpubill::reconcile_detail
