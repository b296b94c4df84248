// Google Cloud Billing's BigQuery export as JSON Lines (one row object per line), read with
// simdjson's On Demand parser; a cost is taken from its JSON number's text, exactly.
#include <simdjson.h>

#include <fstream>

#include "base/text_check.hpp"
#include "gpubill/base/errors.hpp"
#include "gpubill/base/input_file.hpp"
#include "reconcile/invoice.hpp"

namespace gpubill::reconcile_detail {

namespace {

namespace od = simdjson::ondemand;

class GoogleLine {
 public:
  GoogleLine(const std::string& path, std::size_t line) : path_(path), line_(line) {}

  [[noreturn]] void fail(const std::string& field, const std::string& reason) const {
    throw InputError(path_, "line " + std::to_string(line_), field, reason);
  }
  void check(simdjson::error_code e, const std::string& field) const {
    if (e != simdjson::SUCCESS)
      fail(field, std::string("not valid JSON: ") + simdjson::error_message(e));
  }
  std::string text(od::value v, const std::string& field) const {
    std::string_view s;
    if (v.get_string().get(s) != simdjson::SUCCESS) fail(field, "must be a string");
    return std::string(s);
  }
  // A number (or a number in a string), exactly from its text.
  Decimal amount(od::value v, const std::string& field) const {
    od::json_type t{};
    check(v.type().get(t), field);
    std::string_view raw;
    if (t == od::json_type::string) {
      check(v.get_string().get(raw), field);
    } else if (t == od::json_type::number) {
      raw = v.raw_json_token();
      while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\t' || raw.back() == '\r')) {
        raw.remove_suffix(1);
      }
    } else {
      fail(field, "must be a number");
    }
    auto d = parse_export_amount(raw);
    if (!d) fail(field, "'" + std::string(raw) + "' is not an amount (a decimal number)");
    return *d;
  }
  Instant instant(const std::string& text, const std::string& field) const {
    static const Calendar utc("UTC");
    auto t = parse_export_instant(text, utc);
    if (!t) {
      fail(field, "'" + text + "' is not a timestamp (RFC 3339, or YYYY-MM-DD HH:MM:SS UTC)");
    }
    return *t;
  }

 private:
  const std::string& path_;
  std::size_t line_;
};

struct GoogleRow {
  std::string start, end, cost_type, sku, service, resource, label_name, pricing_unit;
  std::optional<Decimal> cost, pricing_amount, effective_price;
  std::vector<Decimal> credits;
  std::string currency;
};

// The members of a nested object: `fn(name, value)`.
template <class Fn>
void members(const GoogleLine& g, od::value v, const std::string& field, Fn&& fn) {
  od::object o;
  if (v.get_object().get(o) != simdjson::SUCCESS) g.fail(field, "must be an object");
  for (auto m : o) {
    od::field f;
    g.check(std::move(m).get(f), field);
    std::string_view k;
    g.check(f.unescaped_key().get(k), field);
    fn(std::string(k), f.value());
  }
}

// Each object of an array: `fn(object)`.
template <class Fn>
void objects(const GoogleLine& g, od::value v, const std::string& field, Fn&& fn) {
  od::array arr;
  if (v.get_array().get(arr) != simdjson::SUCCESS) g.fail(field, "must be an array");
  for (auto item : arr) {
    od::value object;
    g.check(item.get(object), field);
    fn(object);
  }
}

// {"key": …, "value": …} objects: the value of the label named "name" or "instance".
void read_labels(const GoogleLine& g, od::value v, GoogleRow& row) {
  objects(g, v, "labels", [&](od::value label) {
    std::string key, value;
    members(g, label, "labels", [&](const std::string& name, od::value inner) {
      if (name == "key") key = g.text(inner, "labels.key");
      if (name == "value") value = g.text(inner, "labels.value");
    });
    if ((key == "name" || key == "instance") && row.label_name.empty()) row.label_name = value;
  });
}

void read_credits(const GoogleLine& g, od::value v, GoogleRow& row) {
  objects(g, v, "credits", [&](od::value credit) {
    members(g, credit, "credits", [&](const std::string& name, od::value inner) {
      if (name == "amount") row.credits.push_back(g.amount(inner, "credits.amount"));
    });
  });
}

void read_member(const GoogleLine& g, const std::string& name, od::value v, GoogleRow& row) {
  bool null = false;
  if (v.is_null().get(null) == simdjson::SUCCESS && null) return;
  if (name == "usage_start_time")
    row.start = g.text(v, name);
  else if (name == "usage_end_time")
    row.end = g.text(v, name);
  else if (name == "cost")
    row.cost = g.amount(v, name);
  else if (name == "currency")
    row.currency = g.text(v, name);
  else if (name == "cost_type")
    row.cost_type = g.text(v, name);
  else if (name == "labels")
    read_labels(g, v, row);
  else if (name == "credits")
    read_credits(g, v, row);
  else if (name == "sku" || name == "service" || name == "resource" || name == "usage" ||
           name == "price") {
    members(g, v, name, [&](const std::string& k, od::value inner) {
      bool inner_null = false;
      if (inner.is_null().get(inner_null) == simdjson::SUCCESS && inner_null) return;
      const std::string field = name + "." + k;
      if (name == "sku" && k == "description") row.sku = g.text(inner, field);
      if (name == "service" && k == "description") row.service = g.text(inner, field);
      if (name == "resource" && k == "name") row.resource = g.text(inner, field);
      if (name == "usage" && k == "pricing_unit") row.pricing_unit = g.text(inner, field);
      if (name == "usage" && k == "amount_in_pricing_units")
        row.pricing_amount = g.amount(inner, field);
      if (name == "price" && k == "effective_price") row.effective_price = g.amount(inner, field);
    });
  }
}

void emit(const GoogleLine& g, const GoogleRow& row, std::size_t line_no, const LineSink& sink) {
  for (const char* f : {"usage_start_time", "usage_end_time", "currency"}) {
    const std::string& v = std::string(f) == "usage_start_time" ? row.start
                           : std::string(f) == "usage_end_time" ? row.end
                                                                : row.currency;
    if (v.empty()) g.fail(f, "missing");
  }
  if (!row.cost) g.fail("cost", "missing");
  InvoiceLine line;
  line.line = line_no;
  line.resource = row.resource.empty() ? row.label_name : row.resource;
  if (auto problem = text_check::problem(line.resource, text_check::kMaxNameBytes)) {
    g.fail("resource.name", *problem);
  }
  line.meter = meter_from_text(row.sku.empty() ? row.service : row.sku);
  line.start = g.instant(row.start, "usage_start_time");
  line.end = g.instant(row.end, "usage_end_time");
  if (line.end < line.start) g.fail("usage_end_time", "the usage ends before it starts");
  line.amount = *row.cost;
  line.currency = row.currency;
  // A committed use discount's fee is billed under a "Commitment v1: …" SKU.
  const bool commitment = row.sku.rfind("Commitment", 0) == 0;
  line.category = row.cost_type == "rounding error" ? Category::rounding
                  : row.cost_type == "adjustment"   ? Category::credit
                  : commitment                      ? Category::purchase
                                                    : Category::usage;
  line.ignored = row.cost_type == "tax";
  line.rate = row.effective_price;
  if (row.pricing_unit == "hour") line.hours = row.pricing_amount;
  sink(line);
  for (const auto& credit : row.credits) {
    InvoiceLine c = line;
    c.category = Category::credit;
    c.amount = credit;
    c.rate.reset();
    c.hours.reset();
    sink(c);
  }
}

}  // namespace

void read_invoice_google(const std::string& path, const LineSink& sink) {
  check_input_file(path);
  std::ifstream in(path, std::ios::binary);
  od::parser parser;
  std::string text, buffer;
  std::size_t line_no = 0;
  while (std::getline(in, text)) {
    ++line_no;
    if (!text.empty() && text.back() == '\r') text.pop_back();
    if (line_no == 1 && text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);  // a UTF-8 BOM
    if (text.find_first_not_of(" \t") == std::string::npos) continue;
    const GoogleLine g(path, line_no);
    buffer.assign(text);
    buffer.resize(text.size() + simdjson::SIMDJSON_PADDING);
    od::document doc;
    g.check(parser.iterate(buffer.data(), text.size(), buffer.size()).get(doc), "");
    od::object object;
    if (doc.get_object().get(object) != simdjson::SUCCESS) {
      g.fail("", "not valid JSON: a JSON object per line is expected");
    }
    GoogleRow row;
    for (auto member : object) {
      od::field field;
      g.check(std::move(member).get(field), "");
      std::string_view key;
      g.check(field.unescaped_key().get(key), "");
      read_member(g, std::string(key), field.value(), row);
    }
    emit(g, row, line_no, sink);
  }
}

}  // namespace gpubill::reconcile_detail
