// Reading an earlier quote from the JSON `gpubill quote --format json` wrote.
#include "base/json_fields.hpp"
#include "gpubill/base/errors.hpp"
#include "gpubill/base/input_file.hpp"
#include "gpubill/quote/quote_compare.hpp"

namespace gpubill {

namespace {

using json_input::child_pointer;
using json = nlohmann::json;

const char* const kNotAQuote =
    "not a gpubill quote (write one with `gpubill quote … --format json > FILE`)";

// The quote inside a document, and its JSON pointer. A document with "schema_version" is an
// envelope: the quote is under "quote" (or "data"), or the envelope's own keys are the quote's.
// Without it the document is the quote itself, as gpubill wrote it before envelopes.
// This is the one place that knows the document's outer shape.
const json& quote_of(const json& doc, std::string& pointer) {
  pointer = "";
  if (!doc.is_object() || !doc.contains("schema_version")) return doc;
  for (const char* key : {"quote", "data"}) {
    const auto it = doc.find(key);
    if (it != doc.end() && it->is_object()) {
      pointer = child_pointer("", key);
      return *it;
    }
  }
  return doc;
}

// Field readers: each error names the file, the object's pointer and the field.
class Object {
 public:
  Object(const json& value, std::string pointer, const std::string& file)
      : value_(value), pointer_(std::move(pointer)), file_(file) {}

  [[noreturn]] void fail(const std::string& field, const std::string& reason) const {
    throw InputError(file_, pointer_, field, reason);
  }
  const json* find(const std::string& key) const {
    const auto it = value_.find(key);
    return it == value_.end() || it->is_null() ? nullptr : &*it;
  }
  std::string text(const std::string& key, bool required = true) const {
    const json* v = find(key);
    if (!v && !required) return {};
    if (!v || !v->is_string())
      fail(key, required ? "expected a string" : "expected a string or null");
    return v->get<std::string>();
  }
  std::size_t rank() const {
    const json* v = find("rank");
    if (!v || !v->is_number_unsigned() || v->get<std::uint64_t>() == 0) {
      fail("rank", "expected a whole number from 1");
    }
    return static_cast<std::size_t>(v->get<std::uint64_t>());
  }
  // The object at `key`, or nullopt when null or absent.
  std::optional<Object> object(const std::string& key) const {
    const json* v = find(key);
    if (!v) return std::nullopt;
    if (!v->is_object()) fail(key, "expected an object or null");
    return Object(*v, child_pointer(pointer_, key), file_);
  }
  // {"amount": "13.86", "currency": "CNY"}, or nullopt when null or absent.
  std::optional<Money> money(const std::string& key) const {
    const json* v = find(key);
    if (!v) return std::nullopt;
    const Object m(*v, child_pointer(pointer_, key), file_);
    if (!v->is_object()) fail(key, "expected {\"amount\": \"…\", \"currency\": \"…\"} or null");
    if (const json* a = m.find("amount"); a && a->is_number()) {
      m.fail("amount", "amounts are exact decimal strings (\"100.00\"), not JSON numbers");
    }
    const auto amount = Decimal::try_parse(m.text("amount"));
    if (!amount) m.fail("amount", "expected an exact decimal string");
    try {
      return Money(*amount, Currency::parse(m.text("currency")));
    } catch (const ParseError& e) {
      m.fail("currency", e.what());
    }
  }

 private:
  const json& value_;
  std::string pointer_;
  const std::string& file_;
};

// The line's total before conversion ("compute" plus the storage and network "amount" in the
// same currency) and the rate of "fx" (1 when null); left unset when "compute" is absent (a
// quote of an older gpubill) or the parts are in several currencies.
void native_total_of(const Object& o, QuoteSnapshotLine& line) {
  std::optional<Money> native = o.money("compute");
  if (!native || !line.total) return;
  for (const char* key : {"storage", "network"}) {
    const auto part = o.object(key);
    const std::optional<Money> amount = part ? part->money("amount") : std::nullopt;
    if (!amount) continue;
    if (amount->currency() != native->currency()) return;
    native = *native + *amount;
  }
  std::optional<Decimal> rate = Decimal(1);
  if (const auto fx = o.object("fx")) {
    rate = Decimal::try_parse(fx->text("rate"));
    if (!rate) fx->fail("rate", "expected an exact decimal string");
  } else if (native->currency() != line.total->currency()) {
    return;
  }
  line.native_total = native;
  line.fx_rate = rate;
}

QuoteSnapshotLine line_of(const json& value, const std::string& pointer, const std::string& file) {
  if (!value.is_object()) throw InputError(file, pointer, "", "expected a quote line (an object)");
  const Object o(value, pointer, file);
  QuoteSnapshotLine line{o.text("provider"),    o.text("region"), o.text("instance_type"),
                         o.text("mode", false), o.rank(),         o.money("unit_price"),
                         o.money("total"),      std::nullopt,     std::nullopt};
  native_total_of(o, line);
  return line;
}

}  // namespace

QuoteSnapshot read_quote_snapshot(const std::string& path) {
  const std::string text = read_input_file(path);
  const json doc = json_input::parse_document(text, path);
  std::string pointer;
  const json& quote = quote_of(doc, pointer);
  if (!quote.is_object() || !quote.contains("lines") || !quote["lines"].is_array()) {
    throw InputError(path, pointer, "lines", kNotAQuote);
  }
  const Object top(quote, pointer, path);
  QuoteSnapshot s;
  try {
    s.currency = Currency::parse(top.text("currency"));
  } catch (const ParseError& e) {
    top.fail("currency", e.what());
  }
  if (const std::string at = top.text("at", false); !at.empty()) {
    try {
      s.at = parse_instant(at, /*allow_date=*/true);
    } catch (const ParseError& e) {
      top.fail("at", e.what());
    }
  }
  const std::string lines = child_pointer(pointer, "lines");
  for (std::size_t i = 0; i < quote["lines"].size(); ++i) {
    s.lines.push_back(line_of(quote["lines"][i], child_pointer(lines, i), path));
  }
  return s;
}

}  // namespace gpubill
