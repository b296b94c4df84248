// The CSV exports (FOCUS, AWS CUR, Alibaba, Tencent), streamed block by block: only the records
// of one block (4 MiB) are in memory at a time.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <unordered_map>

#include "base/csv_reader.hpp"
#include "base/text_check.hpp"
#include "gpubill/base/errors.hpp"
#include "gpubill/base/input_file.hpp"
#include "reconcile/invoice.hpp"

namespace gpubill::reconcile_detail {

namespace {

constexpr std::size_t kBlockBytes = std::size_t{4} << 20;
constexpr std::size_t kNone = SIZE_MAX;

// Where the last whole record of `text` ends (after its line feed), counting quotes from the
// start (a record boundary): a line feed inside quotes belongs to a field.
std::size_t last_record_end(std::string_view text) {
  bool quoted = false;
  std::size_t end = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      quoted = !quoted;
    } else if (c == '\n' && !quoted) {
      end = i + 1;
    }
  }
  return end;
}

// Every record of the file, header included, one block at a time.
template <class Fn>
void for_each_record(const std::string& path, Fn&& fn) {
  check_input_file(path);
  std::ifstream in(path, std::ios::binary);
  std::string carry;
  // A small file is read in one block of its own size (a fuzzer reads thousands a second).
  std::error_code size_error;
  const auto bytes = std::filesystem::file_size(path, size_error);
  std::vector<char> block(
      size_error ? kBlockBytes
                 : static_cast<std::size_t>(std::min<std::uintmax_t>(kBlockBytes, bytes + 1)));
  std::size_t next_line = 1;
  bool first = true;
  CsvRecord record;
  while (true) {
    in.read(block.data(), static_cast<std::streamsize>(block.size()));
    const auto n = static_cast<std::size_t>(in.gcount());
    const bool eof = n < block.size();
    carry.append(block.data(), n);
    if (first && carry.size() >= 3 && carry.compare(0, 3, "\xEF\xBB\xBF") == 0) carry.erase(0, 3);
    first = false;
    const std::size_t cut = eof ? carry.size() : last_record_end(carry);
    const std::string_view chunk(carry.data(), cut);
    CsvScanner scanner(chunk, path, next_line);
    while (scanner.next(record)) fn(record);
    next_line += static_cast<std::size_t>(std::count(chunk.begin(), chunk.end(), '\n'));
    carry.erase(0, cut);
    if (eof) break;
  }
}

class Row {
 public:
  Row(const std::string& path, const CsvRecord& r) : path_(path), r_(r) {}
  std::string_view cell(std::size_t idx) const {
    return idx < r_.fields.size() ? std::string_view(r_.fields[idx]) : std::string_view();
  }
  [[noreturn]] void fail(const std::string& column, const std::string& reason) const {
    throw InputError(path_, "line " + std::to_string(r_.line), column, reason);
  }
  std::string_view required(std::size_t idx, const std::string& column) const {
    auto v = cell(idx);
    if (v.empty()) fail(column, "empty");
    return v;
  }
  Decimal amount(std::size_t idx, const std::string& column) const {
    const auto text = required(idx, column);
    auto d = parse_export_amount(text);
    if (!d) fail(column, "'" + std::string(text) + "' is not an amount (a decimal number)");
    return *d;
  }
  std::optional<Decimal> opt_amount(std::size_t idx, const std::string& column) const {
    if (cell(idx).empty()) return std::nullopt;
    return amount(idx, column);
  }
  Instant instant(std::size_t idx, const std::string& column, const Calendar& cal) const {
    const auto text = required(idx, column);
    auto t = parse_export_instant(text, cal);
    if (!t) {
      fail(column, "'" + std::string(text) +
                       "' is not a timestamp (RFC 3339, or YYYY-MM-DD HH:MM:SS [UTC])");
    }
    return *t;
  }
  std::size_t line() const { return r_.line; }

 private:
  const std::string& path_;
  const CsvRecord& r_;
};

struct Columns {
  std::unordered_map<std::string, std::size_t> index;
  std::size_t at(const std::string& name) const {
    auto it = index.find(name);
    return it == index.end() ? kNone : it->second;
  }
};

bool starts_with(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}

bool is_hours_unit(std::string_view u) {
  return u == "Hours" || u == "GPU-Hours" || u == "Hrs" || u == "Hour" || u == "hour" ||
         u == "hours" || u == "Hour(s)";
}

// ---- the formats' rows -------------------------------------------------------------------

struct FocusCols {
  std::size_t billed, currency, category, start, end, resource, list, rate_contracted, rate_list,
      pricing_unit, pricing_qty, consumed_unit, service, sku_meter, resource_type, component,
      row_kind, charge_kind;
  explicit FocusCols(const Columns& c)
      : billed(c.at("BilledCost")),
        currency(c.at("BillingCurrency")),
        category(c.at("ChargeCategory")),
        start(c.at("ChargePeriodStart")),
        end(c.at("ChargePeriodEnd")),
        resource(c.at("ResourceId")),
        list(c.at("ListCost")),
        rate_contracted(c.at("ContractedUnitPrice")),
        rate_list(c.at("ListUnitPrice")),
        pricing_unit(c.at("PricingUnit")),
        pricing_qty(c.at("PricingQuantity")),
        consumed_unit(c.at("ConsumedUnit")),
        service(c.at("ServiceCategory")),
        sku_meter(c.at("SkuMeter")),
        resource_type(c.at("ResourceType")),
        component(c.at("x_Component")),
        row_kind(c.at("x_RowKind")),
        charge_kind(c.at("x_ChargeKind")) {}
};

bool is_purchase_kind(std::string_view kind) {
  return kind == "prepaid_order" || kind == "renewal" || kind == "auto_renewal" ||
         kind == "upgrade" || kind == "refund";
}

Meter focus_meter(const Row& row, const FocusCols& c) {
  const auto comp = row.cell(c.component);
  const bool gpu =
      starts_with(row.cell(c.consumed_unit), "GPU") || starts_with(row.cell(c.pricing_unit), "GPU");
  if (comp == "compute") return gpu ? Meter::gpu : Meter::compute;
  if (comp == "system_disk" || comp == "data_disk") return Meter::disk;
  if (comp == "bandwidth") return Meter::bandwidth;
  const auto service = row.cell(c.service);
  if (service == "Compute") return gpu ? Meter::gpu : Meter::compute;
  if (service == "Storage") return Meter::disk;
  if (service == "Networking") return Meter::bandwidth;
  return meter_from_text(std::string(row.cell(c.sku_meter)) + " " +
                         std::string(row.cell(c.resource_type)));
}

void focus_line(const Row& row, const FocusCols& c, const Calendar& cal, InvoiceLine& out) {
  const auto category = row.required(c.category, "ChargeCategory");
  const auto row_kind = row.cell(c.row_kind);
  if (category == "Usage" || category == "Purchase") {
    out.category = category == "Usage" ? Category::usage : Category::purchase;
  } else if (category == "Credit") {
    out.category = Category::credit;
  } else if (category == "Adjustment") {
    // gpubill's rounding of one line sits beside it; any other adjustment is a cycle's rounding.
    out.category = row_kind != "rounding"                      ? Category::rounding
                   : is_purchase_kind(row.cell(c.charge_kind)) ? Category::purchase
                                                               : Category::usage;
  } else if (category == "Tax") {
    out.ignored = true;
  } else {
    row.fail("ChargeCategory", "'" + std::string(category) +
                                   "' is not a FOCUS charge category (Usage, Purchase, Credit, "
                                   "Adjustment, Tax)");
  }
  if (row_kind == "amortisation" || row_kind == "forecast") out.ignored = true;
  out.resource.assign(row.cell(c.resource));
  // gpubill's ResourceId of a disk or bandwidth: "<instance>/<component>", compared as the
  // instance's meter.
  for (std::string_view suffix : {"/system_disk", "/data_disk", "/bandwidth"}) {
    if (out.resource.size() > suffix.size() &&
        std::string_view(out.resource).substr(out.resource.size() - suffix.size()) == suffix) {
      out.resource.resize(out.resource.size() - suffix.size());
    }
  }
  out.meter = focus_meter(row, c);
  out.start = row.instant(c.start, "ChargePeriodStart", cal);
  out.end = row.instant(c.end, "ChargePeriodEnd", cal);
  out.amount = row.amount(c.billed, "BilledCost");
  out.list_amount = row.opt_amount(c.list, "ListCost");
  out.rate = row.cell(c.rate_contracted).empty()
                 ? row.opt_amount(c.rate_list, "ListUnitPrice")
                 : row.opt_amount(c.rate_contracted, "ContractedUnitPrice");
  if (is_hours_unit(row.cell(c.pricing_unit))) {
    out.hours = row.opt_amount(c.pricing_qty, "PricingQuantity");
  }
  out.currency.assign(row.required(c.currency, "BillingCurrency"));
}

struct CurCols {
  std::size_t start, end, resource, cost, type, currency, rate, amount, usage_type, instance_type,
      od_cost;
  explicit CurCols(const Columns& c)
      : start(c.at("lineItem/UsageStartDate")),
        end(c.at("lineItem/UsageEndDate")),
        resource(c.at("lineItem/ResourceId")),
        cost(c.at("lineItem/UnblendedCost")),
        type(c.at("lineItem/LineItemType")),
        currency(c.at("lineItem/CurrencyCode")),
        rate(c.at("lineItem/UnblendedRate")),
        amount(c.at("lineItem/UsageAmount")),
        usage_type(c.at("lineItem/UsageType")),
        instance_type(c.at("product/instanceType")),
        od_cost(c.at("pricing/publicOnDemandCost")) {}
};

void cur_line(const Row& row, const CurCols& c, const Calendar& cal, InvoiceLine& out) {
  const auto type = row.required(c.type, "lineItem/LineItemType");
  if (type == "Tax") {
    out.ignored = true;
  } else if (type == "Credit" || type == "Refund" || type == "SavingsPlanNegation" ||
             type.find("Discount") != std::string_view::npos) {
    out.category = Category::credit;
  } else if (type == "Fee" || type == "RIFee" || type == "SavingsPlanUpfrontFee" ||
             type == "SavingsPlanRecurringFee") {
    out.category = Category::purchase;
  } else {
    out.category = Category::usage;
  }
  out.resource.assign(row.cell(c.resource));
  const auto usage_type = row.cell(c.usage_type);
  const bool box = !row.cell(c.instance_type).empty() ||
                   usage_type.find("BoxUsage") != std::string_view::npos ||
                   usage_type.find("SpotUsage") != std::string_view::npos;
  out.meter = box ? Meter::compute : meter_from_text(usage_type);
  out.start = row.instant(c.start, "lineItem/UsageStartDate", cal);
  out.end = row.instant(c.end, "lineItem/UsageEndDate", cal);
  out.amount = row.amount(c.cost, "lineItem/UnblendedCost");
  out.rate = row.opt_amount(c.rate, "lineItem/UnblendedRate");
  out.list_amount = row.opt_amount(c.od_cost, "pricing/publicOnDemandCost");
  if (box) out.hours = row.opt_amount(c.amount, "lineItem/UsageAmount");
  const auto currency = row.cell(c.currency);
  out.currency.assign(currency.empty() ? std::string_view("USD") : currency);
}

struct AlibabaCols {
  std::size_t resource, start, end, amount, gross, currency, item, detail, billing_item, price,
      usage, usage_unit;
  explicit AlibabaCols(const Columns& c)
      : resource(c.at("InstanceID")),
        start(c.at("UsageStartTime")),
        end(c.at("UsageEndTime")),
        amount(c.at("PretaxAmount")),
        gross(c.at("PretaxGrossAmount")),
        currency(c.at("Currency")),
        item(c.at("Item")),
        detail(c.at("ProductDetail")),
        billing_item(c.at("BillingItem")),
        price(c.at("ListPrice")),
        usage(c.at("Usage")),
        usage_unit(c.at("UsageUnit")) {}
};

void alibaba_line(const Row& row, const AlibabaCols& c, const Calendar& cal, InvoiceLine& out) {
  const auto item = row.cell(c.item);
  out.category = item == "SubscriptionOrder" || item == "Refund" ? Category::purchase
                 : item == "Adjustment"                          ? Category::credit
                                                                 : Category::usage;
  out.resource.assign(row.cell(c.resource));
  const auto what =
      row.cell(c.billing_item).empty() ? row.cell(c.detail) : row.cell(c.billing_item);
  out.meter = what.empty() ? Meter::compute : meter_from_text(what);
  if (out.meter == Meter::gpu || out.meter == Meter::other) out.meter = Meter::compute;
  out.start = row.instant(c.start, "UsageStartTime", cal);
  out.end = row.instant(c.end, "UsageEndTime", cal);
  out.amount = row.amount(c.amount, "PretaxAmount");
  out.list_amount = row.opt_amount(c.gross, "PretaxGrossAmount");
  out.rate = row.opt_amount(c.price, "ListPrice");
  if (is_hours_unit(row.cell(c.usage_unit))) out.hours = row.opt_amount(c.usage, "Usage");
  out.currency.assign(row.cell(c.currency));
}

struct TencentCols {
  std::size_t resource, start, end, component, amount, original, currency, contracted, list,
      transaction, duration, duration_unit;
  std::string amount_name;
  explicit TencentCols(const Columns& c)
      : resource(c.at("Instance ID")),
        start(c.at("Usage Start Time")),
        end(c.at("Usage End Time")),
        component(c.at("Component Type")),
        amount(c.at("Total Amount After Discount")),
        original(c.at("Original Cost")),
        currency(c.at("Currency")),
        contracted(c.at("Component Contracted Price")),
        list(c.at("Component List Price")),
        transaction(c.at("Transaction Type")),
        duration(c.at("Usage Duration")),
        duration_unit(c.at("Duration Unit")),
        amount_name("Total Amount After Discount") {
    if (amount == kNone) {
      amount_name += " (Excluding Tax)";
      amount = c.at(amount_name);
    }
  }
};

bool contains(std::string_view s, std::string_view w) {
  return s.find(w) != std::string_view::npos;
}

void tencent_line(const Row& row, const TencentCols& c, const Calendar& cal, InvoiceLine& out) {
  const auto tx = row.cell(c.transaction);
  out.category = contains(tx, "urchase") || contains(tx, "enew") || contains(tx, "pgrade") ||
                         contains(tx, "efund") || contains(tx, "ubscription")
                     ? Category::purchase
                 : contains(tx, "djustment") ? Category::credit
                                             : Category::usage;
  out.resource.assign(row.required(c.resource, "Instance ID"));
  out.meter = meter_from_text(row.required(c.component, "Component Type"));
  if (out.meter == Meter::gpu || out.meter == Meter::other) out.meter = Meter::compute;
  out.start = row.instant(c.start, "Usage Start Time", cal);
  out.end = row.instant(c.end, "Usage End Time", cal);
  out.amount = row.amount(c.amount, c.amount_name);
  out.list_amount = row.opt_amount(c.original, "Original Cost");
  out.rate = row.cell(c.contracted).empty()
                 ? row.opt_amount(c.list, "Component List Price")
                 : row.opt_amount(c.contracted, "Component Contracted Price");
  if (is_hours_unit(row.cell(c.duration_unit))) {
    out.hours = row.opt_amount(c.duration, "Usage Duration");
  }
  out.currency.assign(row.cell(c.currency));
}

std::string resource_column(InvoiceFormat f) {
  switch (f) {
    case InvoiceFormat::aws_cur:
      return "lineItem/ResourceId";
    case InvoiceFormat::alibaba:
      return "InstanceID";
    case InvoiceFormat::tencent:
      return "Instance ID";
    default:
      return "ResourceId";
  }
}

Columns header_columns(const CsvRecord& header) {
  Columns cols;
  for (std::size_t i = 0; i < header.fields.size(); ++i) cols.index.emplace(header.fields[i], i);
  return cols;
}

}  // namespace

void read_invoice_csv(const std::string& path, InvoiceFormat format, const Calendar& calendar,
                      const LineSink& sink) {
  std::optional<Columns> cols;
  std::optional<FocusCols> focus;
  std::optional<CurCols> cur;
  std::optional<AlibabaCols> alibaba;
  std::optional<TencentCols> tencent;
  InvoiceLine line;
  for_each_record(path, [&](const CsvRecord& record) {
    if (!cols) {
      const auto missing = missing_columns(format, record.fields);
      if (!missing.empty()) {
        std::string names;
        for (const auto& m : missing) names += (names.empty() ? "'" : ", '") + m + "'";
        throw InputError(
            path, "line " + std::to_string(record.line), "",
            "not a " + std::string(to_string(format)) + " header: missing column(s) " + names);
      }
      cols = header_columns(record);
      switch (format) {
        case InvoiceFormat::focus:
          focus.emplace(*cols);
          break;
        case InvoiceFormat::aws_cur:
          cur.emplace(*cols);
          break;
        case InvoiceFormat::alibaba:
          alibaba.emplace(*cols);
          break;
        case InvoiceFormat::tencent:
          tencent.emplace(*cols);
          break;
        case InvoiceFormat::google_bq:
          break;
      }
      return;
    }
    line = InvoiceLine{};
    line.line = record.line;
    const Row row(path, record);
    if (focus) focus_line(row, *focus, calendar, line);
    if (cur) cur_line(row, *cur, calendar, line);
    if (alibaba) alibaba_line(row, *alibaba, calendar, line);
    if (tencent) tencent_line(row, *tencent, calendar, line);
    if (line.end < line.start) row.fail("", "the usage ends before it starts");
    // A resource name goes into tables, CSV and JSON: valid UTF-8, no control character.
    if (auto problem = text_check::problem(line.resource, text_check::kMaxNameBytes)) {
      row.fail(resource_column(format), *problem);
    }
    sink(line);
  });
  if (!cols) throw InputError(path, "", "", "empty: no header");
}

void read_invoice(const std::string& path, InvoiceFormat format, const Calendar& calendar,
                  const LineSink& sink) {
  if (format == InvoiceFormat::google_bq) {
    read_invoice_google(path, sink);
  } else {
    read_invoice_csv(path, format, calendar, sink);
  }
}

}  // namespace gpubill::reconcile_detail

namespace gpubill {

InvoiceFormat detect_invoice_format(const std::string& path) {
  check_input_file(path);
  std::ifstream in(path, std::ios::binary);
  std::string first;
  std::getline(in, first);
  if (first.size() >= 3 && first.compare(0, 3, "\xEF\xBB\xBF") == 0) first.erase(0, 3);
  const auto start = first.find_first_not_of(" \t");
  if (start != std::string::npos && first[start] == '{') return InvoiceFormat::google_bq;
  std::vector<std::string> header;
  if (!first.empty() && first.back() == '\r') first.pop_back();
  CsvScanner scanner(first, path, 1);
  CsvRecord record;
  if (scanner.next(record)) header = record.fields;
  const auto m = reconcile_detail::match_csv_header(header);
  if (m.format) return *m.format;
  std::string names;
  for (const auto& n : m.missing) names += (names.empty() ? "'" : ", '") + n + "'";
  throw InputError(path, "line 1", "",
                   "not a known billing export (FOCUS, AWS CUR, Google BigQuery JSON Lines, "
                   "Alibaba, Tencent): closest is " +
                       m.closest + ", missing column(s) " + names);
}

}  // namespace gpubill
