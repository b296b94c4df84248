// FinOps FOCUS 1.2 export: rows of charge lines, streamed (focus.hpp).
#include "gpubill/ledger/focus.hpp"

#include <algorithm>
#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <ostream>
#include <queue>
#include <unordered_map>

#include "base/json_text.hpp"
#include "gpubill/base/csv.hpp"
#include "gpubill/base/errors.hpp"
#include "gpubill/catalog/commitment.hpp"
#include "gpubill/rules/commitment_rules.hpp"
#include "ledger/focus_amortisation.hpp"
#include "ledger/focus_cells.hpp"
#include "ledger/focus_map.hpp"
#include "ledger/ledger_rows.hpp"
#include "store/store.hpp"

namespace gpubill {

using namespace ledger_rows;
using namespace focus_map;
namespace amortisation = focus_amortisation;

namespace {

using Cell = std::optional<std::string>;

// What a price row says about the SKU it prices (price, disk_price or bandwidth_price).
struct PriceIdentity {
  std::string subject;       // instance type, "gpu:<model>", disk or bandwidth kind
  std::string subject_kind;  // instance, gpu, disk, bandwidth
  Instant effective_from{};
};

// The SKU columns of a line, from the identity of its price row without its effective date
// (FOCUS: a SkuPriceId stays the same over time and across accounts; the price it stands for
// may change): SkuId = provider/component/subject, SkuPriceId = SkuId/region/mode.
struct Sku {
  std::string id, price_id, details;
  Cell effective_from;  // x_PriceEffectiveFrom
  // And what else every row of a stored charge row shares, looked up once.
  std::string head;  // head_of
  const ProviderFacts* provider = nullptr;
  const Calendar* calendar = nullptr;  // the provider's billing zone
  Cell region_name;
};

// What a Sku is made of: equal for every hour of a stored charge row.
struct SkuKey {
  std::string provider, component, instance_type, region, mode, kind;
  std::optional<std::int64_t> price_id;
  bool operator==(const SkuKey&) const = default;
  bool matches(const ChargeLine& c) const {
    return price_id == c.price_id && provider == c.provider && component == c.component &&
           instance_type == c.instance_type && region == c.region && mode == c.mode &&
           kind == c.kind;
  }
};

// What a commitment_price row says about the commitments bought from it (rules of
// gpubill/rules/commitment_rules.hpp): FOCUS's CommitmentDiscountType and Unit.
struct CommitmentFacts {
  std::string type;  // "Reserved Instance", "Committed Use Discount", "Savings Plan"
  std::string unit;  // "Seconds", "GPU-Seconds", "NormalizedUnit-Seconds"
  bool flexible = false;
  bool spend = false;       // a savings plan: a commitment of an amount per hour
  std::int64_t weight = 4;  // quarter normalized units per second of one unit
  std::int64_t term_hours = 0;
};

// Catalog and event facts looked up once per provider, zone, region, price row or event.
class Facts {
 public:
  explicit Facts(store::Connection& db) : db_(db) {}

  const ProviderFacts& provider(const std::string& id) {
    auto it = providers_.find(id);
    if (it == providers_.end()) {
      auto facts = provider_facts(db_, id);
      if (!facts) facts = ProviderFacts{id, id.empty() ? "Unknown" : id, "UTC"};
      it = providers_.emplace(id, std::move(*facts)).first;
    }
    return it->second;
  }

  const Calendar& calendar(const std::string& zone) {
    auto it = calendars_.find(zone);
    if (it == calendars_.end()) it = calendars_.emplace(zone, Calendar(zone)).first;
    return it->second;
  }

  const Cell& region(const std::string& provider, const std::string& region) {
    const auto key = std::make_pair(provider, region);
    auto it = regions_.find(key);
    if (it == regions_.end()) {
      Cell name;
      if (!region.empty()) name = region_name(db_, provider, region);
      it = regions_.emplace(key, std::move(name)).first;
    }
    return it->second;
  }

  const std::optional<PriceIdentity>& price(std::string_view table, std::int64_t id) {
    const auto key = std::make_pair(std::string(table), id);
    auto it = prices_.find(key);
    if (it == prices_.end()) {
      std::optional<PriceIdentity> found;
      const bool instance_price = table == "price";
      store::Statement q(db_, std::string("SELECT ") +
                                  (instance_price ? "subject_kind, subject" : "'', kind") +
                                  ", effective_from FROM " + std::string(table) + " WHERE id = ?");
      q.bind(1, static_cast<int64_t>(id));
      if (q.executeStep()) {
        PriceIdentity p;
        p.subject_kind = instance_price ? q.getColumn(0).getString()
                                        : (table == "disk_price" ? "disk" : "bandwidth");
        p.subject = q.getColumn(1).getString();
        if (p.subject_kind == "gpu") p.subject = "gpu:" + p.subject;
        p.effective_from = instant_of(q.getColumn(2).getInt64());
        found = std::move(p);
      }
      it = prices_.emplace(key, std::move(found)).first;
    }
    return it->second;
  }

  // The SKU of a line, made once per stored charge row (an export writes each of its hours).
  const Sku& sku(const ChargeLine& c);

  // The commitment_price row `id` (a commitment row's discount_id).
  const CommitmentFacts& commitment(std::int64_t id) {
    auto it = commitments_.find(id);
    if (it != commitments_.end()) return it->second;
    CommitmentFacts f;
    store::Statement q(db_,
                       "SELECT c.provider, c.program, c.subject_kind, c.subject, c.term_months, "
                       "COALESCE((SELECT family FROM instance_type t WHERE t.provider = "
                       "c.provider AND t.id = c.subject), '') FROM commitment_price c WHERE "
                       "c.id = ?");
    q.bind(1, static_cast<int64_t>(id));
    if (q.executeStep()) {
      const std::string program = q.getColumn(1).getString();
      const bool per_gpu = q.getColumn(2).getString() == "gpu";
      const std::string subject = q.getColumn(3).getString();
      f.type = program == "reserved_instance" ? "Reserved Instance"
               : program == "savings_plan"    ? "Savings Plan"
                                              : "Committed Use Discount";
      f.flexible = !per_gpu && rules::ri_size_flexible(q.getColumn(0).getString(), program,
                                                       q.getColumn(5).getString(), subject);
      f.weight = f.flexible ? rules::normalization_quarters(subject) : 4;
      f.unit = per_gpu ? "GPU-Seconds" : f.flexible ? "NormalizedUnit-Seconds" : "Seconds";
      f.spend = program == "savings_plan";
      f.term_hours = commitment_term_hours(q.getColumn(4).getInt());
    }
    return commitments_.emplace(id, std::move(f)).first->second;
  }

  // The hourly commitment of a savings plan's commit event (its `amount`; 0 for another event).
  Decimal commitment_amount(std::int64_t seq) {
    auto it = amounts_.find(seq);
    if (it != amounts_.end()) return it->second;
    Decimal amount;
    store::Statement q(db_, "SELECT payload FROM event WHERE seq = ?");
    q.bind(1, static_cast<int64_t>(seq));
    if (q.executeStep()) amount = event_amount(q.getColumn(0).getString()).value_or(Decimal{});
    return amounts_.emplace(seq, amount).first->second;
  }

  // The id of an input event (empty for an unknown seq).
  std::string event_id(std::int64_t seq) {
    store::Statement q(db_, "SELECT id FROM event WHERE seq = ?");
    q.bind(1, static_cast<int64_t>(seq));
    return q.executeStep() ? q.getColumn(0).getString() : std::string();
  }

  // When an input event happened (nullopt for an unknown seq).
  std::optional<Instant> event_time(std::int64_t seq) {
    store::Statement q(db_, "SELECT time FROM event WHERE seq = ?");
    q.bind(1, static_cast<int64_t>(seq));
    if (!q.executeStep()) return std::nullopt;
    return instant_of(q.getColumn(0).getInt64());
  }

 private:
  store::Connection& db_;
  std::map<std::string, ProviderFacts> providers_;
  std::map<std::string, Calendar> calendars_;
  std::map<std::pair<std::string, std::string>, Cell> regions_;
  std::map<std::pair<std::string, std::int64_t>, std::optional<PriceIdentity>> prices_;
  std::unordered_map<std::int64_t, std::pair<SkuKey, Sku>> skus_;  // by charge id
  std::map<std::int64_t, CommitmentFacts> commitments_;            // by commitment_price id
  std::map<std::int64_t, Decimal> amounts_;                        // by commit event seq
  std::deque<Sku> others_;  // of lines whose id was met with other fields
};

Sku sku_of(const ChargeLine& c, Facts& facts) {
  std::string subject = c.instance_type;
  std::string subject_kind = c.component == "compute" || c.component.empty() ? "instance" : "";
  Sku sku;
  if (c.price_id) {
    if (const auto& p = facts.price(price_table_for(c.component), *c.price_id)) {
      subject = p->subject;
      subject_kind = p->subject_kind;
      sku.effective_from = format_instant(p->effective_from);
    }
  }
  sku.id = c.provider + "/" + (c.component.empty() ? "compute" : c.component);
  if (!subject.empty()) sku.id += "/" + subject;
  sku.price_id =
      sku.id + "/" + (c.region.empty() ? "-" : c.region) + "/" + (c.mode.empty() ? "-" : c.mode);
  if (c.kind == "minimum_charge") sku.price_id += "/minimum-per-lifetime";

  // SkuPriceDetails: only what the SkuPriceId itself says, so it is the same on every row of
  // that id. FOCUS-defined keys where one fits, x_ keys otherwise.
  std::string& d = sku.details;
  const auto property = [&](std::string_view key, std::string_view value) {
    d += d.empty() ? "{" : ",";
    json_text::append_string(d, key);
    d += ':';
    json_text::append_string(d, value);
  };
  if (subject_kind == "instance" && !subject.empty()) property("InstanceType", subject);
  if (subject_kind == "gpu") property("x_GpuModel", subject.substr(4));
  if (subject_kind == "disk") property("DiskType", subject);
  if (subject_kind == "bandwidth") property("x_BandwidthKind", subject);
  if (!c.mode.empty()) property("x_BillingMode", c.mode);
  if (c.kind == "minimum_charge") property("x_MinimumPerLifetime", "true");
  if (!d.empty()) d += '}';
  return sku;
}

// Where a row is billed: the calendar month, in the provider's billing zone, of the instant it
// was booked. A row booked in a later month than its charge period starts in corrects a
// billing period already closed: ChargeClass Correction.
struct Billing {
  Instant start{}, end{};
  std::string invoice_id;  // <provider>/<account>/<YYYY-MM>
  bool correction = false;
};

Billing billing_of(const ChargeLine& c, const Calendar& calendar, Instant charge_start,
                   Instant booked) {
  Billing b;
  const Instant when = std::max(charge_start, booked);
  b.start = calendar.month_start(when);
  b.end = calendar.next_month_start(when);
  b.correction = b.start != calendar.month_start(charge_start);
  const date::year_month_day day = calendar.local_day(b.start);
  const unsigned month = static_cast<unsigned>(day.month());
  b.invoice_id = c.provider + "/" + c.account + "/" + std::to_string(int(day.year())) +
                 (month < 10 ? "-0" : "-") + std::to_string(month);
  return b;
}

// The values of one FOCUS row before they become cells.
struct RowValues {
  const char* row_kind = "charge";  // x_RowKind: charge, rounding, amortisation
  Classification cls{};
  Instant start{}, end{};
  Billing billing;
  Decimal billed, effective, list_cost;  // ContractedCost = ListCost
  // x_ExactCost and x_RoundingAmount of this row, additive over rows: a charge row has the
  // line's exact amount (and its rounding when no rounding row carries it), a rounding row the
  // rounding, an amortisation row neither (0).
  Decimal exact_cost, rounding_amount;
  std::optional<Pricing> pricing;
  Cell consumed_quantity, consumed_unit;
  std::string description;
  // The CommitmentDiscount* columns of a commitment's row (commitment_cells).
  struct Commitment {
    bool spend = false;  // CommitmentDiscountCategory Spend (a savings plan), else Usage
    std::string id, name, type;
    Cell status, unit;
    std::optional<Decimal> quantity;
  };
  std::optional<Commitment> commitment;
};

// "GN8.LARGE56 compute settlement (payg)".
std::string head_of(const ChargeLine& c) {
  std::string kind = c.kind;
  std::replace(kind.begin(), kind.end(), '_', ' ');
  std::string component = c.component;
  std::replace(component.begin(), component.end(), '_', ' ');
  std::string out =
      (c.instance_type.empty() ? std::string() : c.instance_type + " ") + component + " " + kind;
  if (!c.mode.empty()) out += " (" + c.mode + ")";
  return out;
}

// The row's own columns in words, so the description never contradicts them:
// "…: 0.5 Hours × 15.09 CNY = 7.545 CNY", then what the row is and the note replay wrote.
std::string describe(const std::string& head, const ChargeLine& c, const RowValues& v,
                     const std::string& what) {
  const std::string ccy = " " + c.currency.to_string();
  std::string out = head + what + ": ";
  if (v.pricing) {
    out += v.pricing->quantity.to_string() + " " + v.pricing->unit + " × " +
           v.pricing->unit_price.to_string() + ccy + " = " + v.list_cost.to_string() + ccy;
    if (v.billed != v.list_cost) out += ", billed " + v.billed.to_string() + ccy;
  } else {
    out += v.billed.to_string() + ccy;
  }
  if (v.effective != v.billed) out += ", effective " + v.effective.to_string() + ccy;
  if (!c.note.empty()) out += "; " + c.note;
  return out;
}

Sku full_sku(const ChargeLine& c, Facts& facts) {
  Sku sku = sku_of(c, facts);
  sku.head = head_of(c);
  sku.provider = &facts.provider(c.provider);
  sku.calendar = &facts.calendar(sku.provider->billing_time_zone);
  if (!c.region.empty()) sku.region_name = facts.region(c.provider, c.region);
  return sku;
}

const Sku& Facts::sku(const ChargeLine& c) {
  auto [it, added] = skus_.try_emplace(c.id);
  auto& [key, sku] = it->second;
  if (added) {
    key = SkuKey{c.provider, c.component, c.instance_type, c.region, c.mode, c.kind, c.price_id};
    sku = full_sku(c, *this);
  } else if (!key.matches(c)) {  // another line with this id (not a stored row's)
    return others_.emplace_back(full_sku(c, *this));
  }
  return sku;
}

// The facts every row of a line shares.
struct LineFacts {
  const ProviderFacts* provider = nullptr;
  const Calendar* calendar = nullptr;
  const Sku* sku = nullptr;  // Facts::sku's, kept as long as the Facts
  Instant booked{};          // when the line was charged
};

LineFacts line_facts(const ChargeLine& c, Facts& facts, bool usage) {
  LineFacts f;
  f.sku = &facts.sku(c);
  f.provider = f.sku->provider;
  f.calendar = f.sku->calendar;
  // A usage line is charged for the period it covers; anything else when its last event
  // happened (a renewal paid on 3 March from a February expiry is booked in March).
  f.booked = c.period_start;
  if (!usage && !c.event_seqs.empty()) {
    const auto seq = *std::max_element(c.event_seqs.begin(), c.event_seqs.end());
    if (const auto t = facts.event_time(seq)) f.booked = std::max(f.booked, *t);
  }
  return f;
}

// The CommitmentDiscount* columns of a commitment's row (FOCUS 1.2 columns/commitmentdiscount*.md):
// its id (<provider>/<account>/<commitment id>) and name (the commit event's id), category Usage,
// type from the program, and its quantity in the commitment's unit: a purchase the term's
// seconds × count (× the normalization factor for a size-flexible RI), an hourly fee one hour's,
// a covered row the seconds it consumed (× the covered size's factor), an unused row what is
// left of the hour; status Used on covered rows, Unused on unused rows.
RowValues::Commitment commitment_cells(const ChargeLine& c, Facts& facts) {
  RowValues::Commitment out;
  const CommitmentFacts& f = facts.commitment(c.discount_id.value_or(0));
  const bool covered = c.kind == "commitment_covered";
  const std::string id =
      covered && !c.event_seqs.empty() ? facts.event_id(c.event_seqs.front()) : c.instance;
  out.id = c.provider + "/" + c.account + "/" + id;
  out.name = id;
  out.type = f.type;
  out.unit = f.unit;
  out.spend = f.spend;
  if (f.spend) {
    // A savings plan's quantities are amounts of its commitment, in its currency (FOCUS: "the
    // predefined amount of spend purchased or consumed"): the term's commitment, the hour's, the
    // amount a covered row consumed (its EffectiveCost less the on-demand cost it offsets), the
    // amount an hour left unused.
    out.unit = c.currency.to_string();
    const Decimal hourly =
        c.event_seqs.empty() ? Decimal{} : facts.commitment_amount(c.event_seqs.front());
    if (c.kind == "commitment_purchase") {
      out.quantity = hourly * f.term_hours;
    } else if (c.kind == "commitment_fee") {
      out.quantity = hourly;
    } else if (c.kind == "commitment_unused") {
      out.quantity = c.effective_amount.value_or(Decimal{});
      out.status = "Unused";
    } else if (covered) {
      out.quantity = c.effective_amount.value_or(c.billed_amount) - c.billed_amount;
      out.status = "Used";
    }
    return out;
  }
  const Decimal quarter = Decimal::parse("0.25");
  const Decimal factor = Decimal(f.weight) * quarter;
  if (c.kind == "commitment_purchase") {
    out.quantity = c.quantity * Decimal(f.term_hours * 3600) * factor;
  } else if (c.kind == "commitment_fee") {
    out.quantity = c.quantity * Decimal(3600) * factor;
  } else if (c.kind == "commitment_unused") {
    out.quantity = c.quantity;
    out.status = "Unused";
  } else if (covered) {
    out.quantity =
        f.flexible ? c.quantity * Decimal(rules::normalization_quarters(c.instance_type)) * quarter
                   : c.quantity;
    out.status = "Used";
  }
  return out;
}

template <typename Out>
void put_commitment(Out& o, const RowValues& v) {
  if (!v.commitment) {
    for (int i = 0; i < 7; ++i) o.null();
    return;
  }
  const auto& k = *v.commitment;
  // CommitmentDiscountCategory: usage-based (AWS RIs, Google resource CUDs) or spend-based (AWS
  // Savings Plans).
  o.text(k.spend ? "Spend" : "Usage");
  o.text(k.id);    // CommitmentDiscountId
  o.text(k.name);  // CommitmentDiscountName
  if (k.quantity) {
    o.decimal(*k.quantity);  // CommitmentDiscountQuantity
  } else {
    o.null();
  }
  o.text_or_null(k.status.value_or(""));                  // CommitmentDiscountStatus
  o.text(k.type);                                         // CommitmentDiscountType
  o.text_or_null(k.quantity ? k.unit.value_or("") : "");  // CommitmentDiscountUnit
}

// The cells of one row, in focus_columns() order, handed to `o` one at a time: o.null(),
// o.text(s) (a text, kept even when empty), o.text_or_null(s), o.decimal(d), o.instant(t),
// o.integer(n), o.integers(list) ("3,4,7"; null when empty). FocusRowCells keeps them as strings
// (focus_export), FocusCsvCells writes them straight into a CSV buffer (write_focus_csv).
template <typename Out>
void put_cells(Out& o, const ChargeLine& c, const LineFacts& f, const RowValues& v) {
  const ServiceNames service = service_of(c.component);
  const std::string_view ccy = c.currency.code();
  const bool priced = v.pricing.has_value();
  const auto unit_price = [&] {
    if (priced) {
      o.decimal(v.pricing->unit_price);
    } else {
      o.null();
    }
  };
  const bool compute = c.component == "compute" || c.component.empty();
  o.null();                                                  // AvailabilityZone
  o.decimal(v.billed);                                       // BilledCost
  o.text(c.account);                                         // BillingAccountId
  o.text(c.account);                                         // BillingAccountName
  o.text("Cloud Account");                                   // BillingAccountType
  o.text(ccy);                                               // BillingCurrency
  o.instant(v.billing.end);                                  // BillingPeriodEnd
  o.instant(v.billing.start);                                // BillingPeriodStart
  o.null();                                                  // CapacityReservationId
  o.null();                                                  // CapacityReservationStatus
  o.text(v.cls.category);                                    // ChargeCategory
  o.text_or_null(v.billing.correction ? "Correction" : "");  // ChargeClass
  o.text(v.description);                                     // ChargeDescription
  o.text(v.cls.frequency);                                   // ChargeFrequency
  o.instant(v.end);                                          // ChargePeriodEnd
  o.instant(v.start);                                        // ChargePeriodStart
  put_commitment(o, v);                                      // CommitmentDiscount* (7 columns)
  if (v.consumed_quantity) {                                 // ConsumedQuantity
    o.text(*v.consumed_quantity);
  } else {
    o.null();
  }
  if (v.consumed_unit) {  // ConsumedUnit
    o.text(*v.consumed_unit);
  } else {
    o.null();
  }
  o.decimal(v.list_cost);                // ContractedCost
  unit_price();                          // ContractedUnitPrice
  o.decimal(v.effective);                // EffectiveCost
  o.text_or_null(v.billing.invoice_id);  // InvoiceId (null: a forecast)
  o.text(f.provider->name);              // InvoiceIssuerName
  o.decimal(v.list_cost);                // ListCost
  unit_price();                          // ListUnitPrice
  // PricingCategory: a commitment's purchase is Standard (FOCUS appendix, commitment discounts).
  o.text(c.kind == "commitment_purchase" || c.kind == "commitment_fee" ? std::string("Standard")
                                                                       : pricing_category(c.mode));
  o.text(ccy);             // PricingCurrency
  unit_price();            // PricingCurrencyContractedUnitPrice
  o.decimal(v.effective);  // PricingCurrencyEffectiveCost
  unit_price();            // PricingCurrencyListUnitPrice
  if (priced) {            // PricingQuantity, PricingUnit
    o.decimal(v.pricing->quantity);
    o.text(v.pricing->unit);
  } else {
    o.null();
    o.null();
  }
  o.text(f.provider->name);  // ProviderName
  o.text(f.provider->name);  // PublisherName
  o.text_or_null(c.region);  // RegionId
  if (c.region.empty()) {    // RegionName
    o.null();
  } else if (const Cell& name = f.sku->region_name) {
    o.text(*name);
  } else {
    o.null();
  }
  if (c.instance.empty()) {  // ResourceId
    o.null();
  } else if (compute) {
    o.text(c.instance);
  } else {
    o.text2(c.instance, "/", c.component);
  }
  o.text_or_null(c.instance);  // ResourceName: the instance's
  if (c.instance.empty()) {    // ResourceType
    o.null();
  } else {
    o.text(service.resource_type);
  }
  o.text(service.category);              // ServiceCategory
  o.text(service.service);               // ServiceName
  o.text(service.subcategory);           // ServiceSubcategory
  o.text(f.sku->id);                     // SkuId
  o.text(service.meter);                 // SkuMeter
  o.text_or_null(f.sku->details);        // SkuPriceDetails
  o.text(f.sku->price_id);               // SkuPriceId
  for (int i = 0; i < 4; ++i) o.null();  // SubAccountId, SubAccountName, SubAccountType, Tags
  // x_ columns
  o.integer(c.id);                  // x_ChargeId
  o.integer(c.run_index);           // x_SettlementIndex
  o.text(v.row_kind);               // x_RowKind
  o.text(c.kind);                   // x_ChargeKind
  o.text(c.component);              // x_Component
  o.text_or_null(c.mode);           // x_BillingMode
  o.text_or_null(c.instance_type);  // x_InstanceType
  o.integer(c.price_id);            // x_PriceId
  if (f.sku->effective_from) {      // x_PriceEffectiveFrom
    o.text(*f.sku->effective_from);
  } else {
    o.null();
  }
  o.integer(c.policy_id);        // x_PolicyId
  o.integer(c.discount_id);      // x_DiscountId
  o.decimal(v.exact_cost);       // x_ExactCost
  o.decimal(v.rounding_amount);  // x_RoundingAmount
  o.integers(c.event_seqs);      // x_EventSeqs
}

// A purchase whose EffectiveCost is spread over the hours it covers, and the next hour due.
struct Amortised {
  ChargeLine line;
  LineFacts facts;
  Pricing pricing;
  Decimal amount, amount_quantum, quantity_quantum;
  std::int64_t span = 0, slices = 0, next = 0;
  std::uint64_t order = 0;  // first come, first out among slices of the same start
  Instant next_start() const { return line.period_start + std::chrono::seconds(next * 3600); }
};

// Slice k of a purchase: a Usage row with BilledCost 0 and its share of the purchase as
// EffectiveCost; the pricing quantity is spread the same way, so ListCost = ListUnitPrice ×
// PricingQuantity on every slice and the slices' list costs add up to the purchase's.
RowValues amortised_slice(const Amortised& a) {
  using std::chrono::seconds;
  const std::int64_t k = a.next;
  const ChargeLine& c = a.line;
  RowValues v;
  v.row_kind = "amortisation";
  v.cls = {"Usage", "Usage-Based"};
  v.start = c.period_start + seconds(k * amortisation::kSliceSeconds);
  v.end = std::min(c.period_end, v.start + seconds(amortisation::kSliceSeconds));
  v.billing = billing_of(c, *a.facts.calendar, v.start, a.facts.booked);
  v.effective = amortisation::slice_share(a.amount, a.amount_quantum, a.span, k);
  Pricing p = a.pricing;
  p.quantity = amortisation::slice_share(a.pricing.quantity, a.quantity_quantum, a.span, k);
  p.list_cost = *amortisation::exact_product(p.unit_price, p.quantity);
  v.list_cost = p.list_cost;
  v.pricing = std::move(p);
  v.consumed_quantity = std::to_string((v.end - v.start).count());
  v.consumed_unit = "Seconds";
  v.description =
      describe(a.facts.sku->head, c, v,
               " amortised, hour " + std::to_string(k + 1) + " of " + std::to_string(a.slices) +
                   " of " + a.amount.to_string() + " " + c.currency.to_string());
  return v;
}

// An amortised hour after the replay's end, in FOCUS's own terms: no invoice holds it yet
// (InvoiceId null: "not associated with an invoice or a pre-generated provisional invoice"),
// nothing is billed (BilledCost 0), it corrects nothing (ChargeClass null; "Correction" is
// FOCUS 1.2's only value), and its description says it is a forecast; x_RowKind "forecast".
void mark_forecast(RowValues& v) {
  v.row_kind = "forecast";
  v.billing.invoice_id.clear();
  v.billing.correction = false;
  v.description = "Forecast (after the replay's end, not billed yet): " + v.description;
}

// Streams the rows of hourly lines, merging in the amortised hours of the purchases met so
// far: memory holds one entry per purchase still running, not its rows.
using RowSink = std::function<void(const ChargeLine&, const LineFacts&, const RowValues&)>;

class RowStream {
 public:
  // `horizon`: the replay clock; amortised hours from it on are a forecast (FocusPart).
  RowStream(Facts& facts, const RowSink& out, FocusPart part, std::optional<Instant> horizon)
      : facts_(facts), out_(out), part_(part), horizon_(horizon) {}

  void line(const ChargeLine& c) {
    flush_before(c.period_start);
    if (part_ == FocusPart::forecast) {
      queue_amortisation(c);
      return;
    }
    const Classification cls = classify(c.kind);
    const std::string_view category = cls.category;
    const bool usage = category == "Usage";
    const bool priced = usage || category == "Purchase";
    LineFacts f = line_facts(c, facts_, usage);

    RowValues v;
    v.cls = cls;
    v.start = c.period_start;
    v.end = c.period_end;
    v.billing = billing_of(c, *f.calendar, c.period_start, f.booked);
    // The policy's rounding of a priced line is a row of its own (an Adjustment), so the
    // usage or purchase row keeps its exact cost and never bills more than its list cost.
    const bool split = priced && !c.rounding.is_zero();
    v.billed = split ? c.exact_amount : c.billed_amount;
    v.list_cost = v.billed;  // an amount of its own (a credit, an adjustment)
    if (priced) {
      v.pricing = pricing_of(c);
      v.list_cost = v.pricing->list_cost;
    }
    if (usage) {
      v.consumed_quantity = c.quantity.to_string();
      v.consumed_unit = c.kind == "minimum_charge" ? "Instances" : focus_unit(c.unit);
      if (c.kind == "minimum_charge") v.consumed_quantity = "1";
    }
    const bool amortise =
        priced && covers_future_use(c.kind) && c.period_end > c.period_start && !v.billed.is_zero();
    v.effective = amortise ? Decimal{} : v.billed;
    v.exact_cost = c.exact_amount;
    v.rounding_amount = split ? Decimal{} : c.rounding;
    if (is_commitment(c.kind)) commitment_values(c, split, v);
    v.description = describe(f.sku->head, c, v, "");
    emit(c, f, v);

    if (split) {
      RowValues r;
      r.row_kind = "rounding";
      r.cls = {"Adjustment", cls.frequency};
      r.start = v.start;
      r.end = v.end;
      r.billing = v.billing;
      r.billed = r.effective = r.list_cost = c.rounding;
      r.rounding_amount = c.rounding;
      if (v.commitment) {  // related to the commitment, but neither Usage nor Purchase
        r.commitment = v.commitment;
        r.commitment->status.reset();
        r.commitment->quantity.reset();
      }
      r.description = describe(
          f.sku->head, c, r,
          " rounding to the billed " + c.billed_amount.to_string() + " " + c.currency.to_string());
      emit(c, f, r);
    }
    if (amortise) queue(c, std::move(f), *v.pricing, v.billed);
  }

  // A commitment's row: its amortised cost (replay's effective_amount, less the rounding when a
  // row of its own carries that) and its CommitmentDiscount* cells. An unused row consumed
  // nothing (ConsumedQuantity null); a covered row offsets usage its settlement row consumed (0).
  void commitment_values(const ChargeLine& c, bool split, RowValues& v) {
    v.commitment = commitment_cells(c, facts_);
    if (c.effective_amount) v.effective = *c.effective_amount - (split ? c.rounding : Decimal{});
    if (c.kind == "commitment_unused") {
      v.consumed_quantity.reset();
      v.consumed_unit.reset();
    } else if (c.kind == "commitment_covered") {
      v.consumed_quantity = "0";
    }
  }

  // The amortised hours left, once every line is out.
  void finish() { flush_before(Instant::max()); }

 private:
  // A purchase of `billed` whose hours are spread (amortised_slice).
  void queue(const ChargeLine& c, LineFacts f, const Pricing& pricing, Decimal billed) {
    Amortised a{c,
                std::move(f),
                pricing,
                billed,
                amortisation::quantum_of(billed),
                amortisation::quantum_for_factor(pricing.unit_price)};
    a.span = (c.period_end - c.period_start).count();
    a.slices = amortisation::slice_count(a.span);
    a.order = counter_++;
    // A quantity finer than the quantum it is spread in cannot be spread exactly: one Unit
    // of the slice's list cost then (the ListCost = ListUnitPrice × PricingQuantity rule).
    if (a.pricing.quantity.units() % a.quantity_quantum.units() != 0) {
      a.pricing = Pricing{
          "Units", a.pricing.list_cost.sign() < 0 ? -a.pricing.list_cost : a.pricing.list_cost,
          Decimal(a.pricing.list_cost.sign() < 0 ? -1 : 1), a.pricing.list_cost};
      a.quantity_quantum = amortisation::quantum_for_factor(a.pricing.unit_price);
    }
    std::uint32_t slot;
    if (free_.empty()) {
      slot = static_cast<std::uint32_t>(purchases_.size());
      purchases_.push_back(std::move(a));
    } else {
      slot = free_.back();
      free_.pop_back();
      purchases_[slot] = std::move(a);
    }
    pending_.push({purchases_[slot].next_start(), purchases_[slot].order, slot});
  }

  // A purchase in the queue: its next hour's start, then first come, first out. The purchase
  // stays in its slot of purchases_ until its last hour; only this handle moves in the heap.
  struct Due {
    Instant start;
    std::uint64_t order;
    std::uint32_t slot;
  };
  struct Later {
    bool operator()(const Due& a, const Due& b) const {
      return a.start != b.start ? a.start > b.start : a.order > b.order;
    }
  };

  void release(std::uint32_t slot) {
    purchases_[slot] = Amortised{};  // its strings and lists freed
    free_.push_back(slot);
  }

  void emit(const ChargeLine& c, const LineFacts& f, const RowValues& v) { out_(c, f, v); }

  void flush_before(Instant t) {
    while (!pending_.empty() && pending_.top().start < t) {
      const std::uint32_t slot = pending_.top().slot;
      pending_.pop();
      Amortised& a = purchases_[slot];
      const bool ahead = horizon_ && a.next_start() >= *horizon_;
      if (ahead && part_ == FocusPart::billed) {  // the rest of it is a forecast
        release(slot);
        continue;
      }
      if (ahead == (part_ == FocusPart::forecast)) {
        RowValues v = amortised_slice(a);
        if (ahead) mark_forecast(v);
        emit(a.line, a.facts, v);
      }
      if (++a.next < a.slices) {
        pending_.push({a.next_start(), a.order, slot});
      } else {
        release(slot);
      }
    }
  }

  // The forecast part: only the amortised hours of a purchase, from the horizon on.
  void queue_amortisation(const ChargeLine& c) {
    const Classification cls = classify(c.kind);
    const bool priced =
        cls.category == std::string_view("Usage") || cls.category == std::string_view("Purchase");
    if (!priced || !covers_future_use(c.kind) || c.period_end <= c.period_start) return;
    const Decimal billed = c.rounding.is_zero() ? c.billed_amount : c.exact_amount;
    if (billed.is_zero() || (horizon_ && c.period_end <= *horizon_)) return;
    LineFacts f = line_facts(c, facts_, false);
    queue(c, std::move(f), pricing_of(c), billed);
  }

  Facts& facts_;
  const RowSink& out_;
  FocusPart part_;
  std::optional<Instant> horizon_;
  std::vector<Amortised> purchases_;  // by slot
  std::vector<std::uint32_t> free_;   // slots of purchases_ done
  std::priority_queue<Due, std::vector<Due>, Later> pending_;
  std::uint64_t counter_ = 0;
};

// The replay clock (the end of what was replayed); unset before any replay.
std::optional<Instant> replay_end(store::Connection& db) {
  store::Statement q(db, "SELECT clock FROM replay_clock WHERE one = 1");
  if (!q.executeStep()) return std::nullopt;
  return Instant{std::chrono::seconds{q.getColumn(0).getInt64()}};
}

// The rows of the export, each handed to `sink` as its line, line facts and values.
void for_each_focus_values(Database& db, const std::vector<ChargeLine>& lines, FocusPart part,
                           const RowSink& sink) {
  try {
    Facts facts(connection(db));
    RowStream stream(facts, sink, part, replay_end(connection(db)));
    for_each_hourly(lines, [&](const ChargeLine& line) { stream.line(line); });
    stream.finish();
  } catch (const store::SqlError& e) {
    throw StoreError(std::string("FOCUS export: ") + e.what());
  }
}

[[noreturn]] void cell_count_error() {
  throw std::logic_error("FOCUS export: a row does not have one cell per column");
}

}  // namespace

void for_each_focus_row(Database& db, const std::vector<ChargeLine>& lines,
                        const std::function<void(const FocusRow&)>& row, FocusPart part) {
  const std::size_t width = focus_columns().size();
  FocusRow cells;
  for_each_focus_values(db, lines, part,
                        [&](const ChargeLine& c, const LineFacts& f, const RowValues& v) {
                          focus_cells::FocusRowCells o(cells);
                          put_cells(o, c, f, v);
                          if (o.cells() != width) cell_count_error();
                          row(cells);
                        });
}

FocusTable focus_export(Database& db, const std::vector<ChargeLine>& lines, FocusPart part) {
  FocusTable table;
  table.columns = focus_columns();
  for_each_focus_row(
      db, lines, [&](const FocusRow& row) { table.rows.push_back(row); }, part);
  return table;
}

void write_focus_csv(std::ostream& out, Database& db, const std::vector<ChargeLine>& lines,
                     FocusPart part) {
  const auto& columns = focus_columns();
  std::string buffer;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (i) buffer += ',';
    append_csv_cell(buffer, columns[i]);
  }
  buffer += '\n';
  constexpr std::size_t kFlushBytes = 1 << 16;
  focus_cells::FocusCsvCells o(buffer);
  for_each_focus_values(db, lines, part,
                        [&](const ChargeLine& c, const LineFacts& f, const RowValues& v) {
                          put_cells(o, c, f, v);
                          if (o.end_line() != columns.size()) cell_count_error();
                          if (buffer.size() >= kFlushBytes) {
                            out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
                            buffer.clear();
                          }
                        });
  out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
}

}  // namespace gpubill
