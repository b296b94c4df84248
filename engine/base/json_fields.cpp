#include "base/json_fields.hpp"

#include <algorithm>
#include <set>
#include <vector>

#include "base/text_check.hpp"
#include "base/text_match.hpp"

namespace gpubill::json_input {

namespace {

const json& empty_array() {
  static const json a = json::array();
  return a;
}

std::string type_name(const json& v) {
  if (v.is_number()) return "a JSON number";
  if (v.is_string()) return "a string";
  if (v.is_boolean()) return "a boolean";
  if (v.is_array()) return "an array";
  if (v.is_object()) return "an object";
  return "null";
}

// Line (1-based) of the byte at 1-based position `byte` of text.
std::size_t line_of(std::string_view text, std::size_t byte) {
  std::size_t end = byte == 0 ? 0 : byte - 1;
  if (end >= text.size()) {
    end = text.size();
    if (end > 0 && text[end - 1] == '\n') --end;  // an error at the end is on the last line
  }
  return 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + end, '\n'));
}

// nlohmann's message without its "[json.exception…] parse error at line L, column C: " prefix.
std::string syntax_reason(const std::string& what) {
  std::string reason = what;
  if (auto p = reason.find("] "); p != std::string::npos) reason = reason.substr(p + 2);
  if (reason.rfind("parse error", 0) == 0) {
    if (auto p = reason.find(": "); p != std::string::npos) reason = reason.substr(p + 2);
  }
  return "invalid JSON: " + reason;
}

struct DuplicateKey {
  std::string pointer, key;
};

// Follows the parser's events to know the JSON pointer of the object being read, and throws
// DuplicateKey when a key repeats within one object.
class KeyTracker {
 public:
  bool on_event(json::parse_event_t event, const json& parsed) {
    using E = json::parse_event_t;
    switch (event) {
      case E::object_start:
        enter_value();
        stack_.push_back({false, 0, {}, {}});
        break;
      case E::array_start:
        enter_value();
        stack_.push_back({true, 0, {}, {}});
        break;
      case E::key: {
        auto& top = stack_.back();
        top.key = parsed.get<std::string>();
        if (!top.keys.insert(top.key).second) throw DuplicateKey{pointer_of_top(), top.key};
        break;
      }
      case E::object_end:
      case E::array_end:
        stack_.pop_back();
        break;
      case E::value:
        enter_value();
        break;
    }
    return true;
  }

 private:
  struct Frame {
    bool array;
    std::size_t next;  // arrays: index of the next element
    std::string key;   // objects: the current key
    std::set<std::string> keys;
  };

  void enter_value() {
    if (!stack_.empty() && stack_.back().array) ++stack_.back().next;
  }

  std::string pointer_of_top() const {
    std::string p;
    for (std::size_t i = 0; i + 1 < stack_.size(); ++i) {
      const auto& f = stack_[i];
      p = f.array ? child_pointer(p, f.next - 1) : child_pointer(p, f.key);
    }
    return p.empty() ? "/" : p;
  }

  std::vector<Frame> stack_;
};

}  // namespace

std::string child_pointer(const std::string& pointer, std::string_view key) {
  std::string out = pointer == "/" ? "" : pointer;
  out += '/';
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

std::string child_pointer(const std::string& pointer, std::size_t index) {
  return (pointer == "/" ? "" : pointer) + "/" + std::to_string(index);
}

json parse_document(std::string_view text, const std::string& file) {
  KeyTracker tracker;
  try {
    return json::parse(text.begin(), text.end(),
                       [&tracker](int, json::parse_event_t event, json& parsed) {
                         return tracker.on_event(event, parsed);
                       });
  } catch (const json::parse_error& e) {
    throw InputError(file, "line " + std::to_string(line_of(text, e.byte)), "",
                     syntax_reason(e.what()));
  } catch (const DuplicateKey& d) {
    throw InputError(file, d.pointer, d.key, "duplicate field (a key may appear once per object)");
  } catch (const json::out_of_range&) {
    // A number beyond a double's range (1e400): the parser gives no position for it.
    throw InputError(file, "", "", "a number is out of range (larger than about 1.8e308)");
  }
}

std::optional<int> as_int(const json& v, int min, int max) {
  if (!v.is_number_integer()) return std::nullopt;
  if (v.is_number_unsigned()) {  // nlohmann stores every non-negative integer as unsigned
    const auto u = v.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(max)) return std::nullopt;
    if (min > 0 && u < static_cast<std::uint64_t>(min)) return std::nullopt;
    return static_cast<int>(u);
  }
  const auto i = v.get<std::int64_t>();
  if (i < min || i > max) return std::nullopt;
  return static_cast<int>(i);
}

Fields::Fields(const json& value, std::string pointer, const std::string& file,
               std::initializer_list<std::string_view> allowed)
    : value_(value), pointer_(std::move(pointer)), file_(file) {
  if (!value_.is_object()) {
    throw InputError(file_, pointer_, "", "expected an object, found " + type_name(value_));
  }
  for (const auto& [key, v] : value_.items()) {
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    std::string_view best;
    std::size_t best_distance = 3;  // suggest only close names
    for (auto a : allowed) {
      const auto d = text_match::edit_distance(key, a, text_match::Case::sensitive);
      if (d < best_distance) {
        best = a;
        best_distance = d;
      }
    }
    fail(key, best.empty() ? std::string("unknown field")
                           : "unknown field (did you mean '" + std::string(best) + "'?)");
  }
}

void Fields::fail(std::string_view field, const std::string& reason) const {
  throw InputError(file_, pointer_, std::string(field), reason);
}

const json* Fields::find(std::string_view key) const {
  auto it = value_.find(key);
  if (it == value_.end() || it->is_null()) return nullptr;
  return &*it;
}

std::string Fields::text(std::string_view key) const {
  const json* v = find(key);
  if (!v) fail(key, "missing (a string is required)");
  if (!v->is_string()) fail(key, "expected a string, found " + type_name(*v));
  auto s = v->get<std::string>();
  if (s.empty()) fail(key, "must not be empty");
  check_text(key, s);
  return s;
}

std::string Fields::opt_text(std::string_view key, std::string fallback) const {
  const json* v = find(key);
  if (!v) return fallback;
  if (!v->is_string()) fail(key, "expected a string, found " + type_name(*v));
  auto s = v->get<std::string>();
  check_text(key, s);
  return s;
}

void Fields::check_text(std::string_view key, const std::string& s) const {
  // The parser has checked UTF-8 already; control characters (a "\u0000" or "\n" escape)
  // and lengths are checked here.
  if (auto why = text_check::problem(s, text_check::kMaxTextBytes)) fail(key, *why);
}

std::optional<Decimal> Fields::opt_decimal(std::string_view key, std::optional<Decimal> min) const {
  const json* v = find(key);
  if (!v) return std::nullopt;
  if (v->is_number()) {
    fail(key, "expected an exact decimal written as a string (\"" + v->dump() +
                  "\"), found a JSON number, which cannot be read exactly");
  }
  if (!v->is_string()) fail(key, "expected a decimal string, found " + type_name(*v));
  Decimal d;
  try {
    d = Decimal::parse(v->get<std::string>());
  } catch (const Error& e) {
    fail(key, e.what());
  }
  if (min && d < *min) {
    fail(key, "must not be below " + min->to_string() + " (found " + d.to_string() + ")");
  }
  return d;
}

Decimal Fields::decimal(std::string_view key, std::optional<Decimal> min) const {
  if (!find(key)) fail(key, "missing (a decimal string is required)");
  return *opt_decimal(key, min);
}

std::optional<int> Fields::opt_integer(std::string_view key, int min, int max) const {
  const json* v = find(key);
  if (!v) return std::nullopt;
  if (!v->is_number_integer()) {
    fail(key, "expected a JSON integer, found " +
                  (v->is_number() ? "a fractional number" : type_name(*v)));
  }
  auto i = as_int(*v, min, max);
  if (!i) {
    fail(key, "must be between " + std::to_string(min) + " and " + std::to_string(max) +
                  " (found " + v->dump() + ")");
  }
  return i;
}

int Fields::integer(std::string_view key, int min, int max) const {
  if (!find(key)) fail(key, "missing (an integer is required)");
  return *opt_integer(key, min, max);
}

int Fields::integer_or(std::string_view key, int fallback, int min, int max) const {
  return opt_integer(key, min, max).value_or(fallback);
}

bool Fields::boolean_or(std::string_view key, bool fallback) const {
  const json* v = find(key);
  if (!v) return fallback;
  if (!v->is_boolean()) fail(key, "expected true or false, found " + type_name(*v));
  return v->get<bool>();
}

Currency Fields::currency(std::string_view key) const {
  const auto code = text(key);
  try {
    return Currency::parse(code);
  } catch (const Error& e) {
    fail(key, e.what());
  }
}

Instant Fields::instant(std::string_view key) const {
  const auto t = text(key);
  try {
    return parse_instant(t, /*allow_date=*/true);
  } catch (const Error& e) {
    fail(key, e.what());
  }
}

std::string Fields::day_text(std::string_view key) const {
  auto t = text(key);
  try {
    (void)parse_day(t);
  } catch (const Error& e) {
    fail(key, e.what());
  }
  return t;
}

Effective Fields::period() const {
  Effective p;
  p.from = instant("effective_from");
  if (find("effective_to")) {
    p.to = instant("effective_to");
    if (*p.to <= p.from) {
      fail("effective_to", "must be after effective_from (" + format_instant(p.from) + "), found " +
                               format_instant(*p.to));
    }
  }
  return p;
}

const json& Fields::array(std::string_view key) const {
  const json* v = find(key);
  if (!v) return empty_array();
  if (!v->is_array()) fail(key, "expected an array, found " + type_name(*v));
  return *v;
}

}  // namespace gpubill::json_input
