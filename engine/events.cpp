// Usage log parsing: JSON Lines and CSV (docs/usage-log.md). A small hand-written JSON reader
// keeps the two streaming passes of a replay cheap (no DOM allocation per line beyond nested
// disks) and lets errors name the field.
#include "gpubill/events.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <limits>

#include "gpubill/input_file.hpp"
#include "json_text.hpp"
#include "text_check.hpp"

namespace gpubill {

namespace {

// ---- fields ---------------------------------------------------------------------------------

enum Field : int {
  f_id,
  f_time,
  f_type,
  f_account,
  f_instance,
  f_amount,
  f_currency,
  f_provider,
  f_region,
  f_instance_type,
  f_mode,
  f_months,
  f_auto_renew,
  f_system_disk,
  f_data_disks,
  f_bandwidth_mbps,
  f_gpus,
  f_gpu,
  f_count,
  // CSV only: the system disk as two columns
  f_system_disk_kind = f_count,
  f_system_disk_gb,
  f_csv_count
};

constexpr std::array<std::string_view, f_csv_count> kFieldNames = {"id",
                                                                   "time",
                                                                   "type",
                                                                   "account",
                                                                   "instance",
                                                                   "amount",
                                                                   "currency",
                                                                   "provider",
                                                                   "region",
                                                                   "instance_type",
                                                                   "mode",
                                                                   "months",
                                                                   "auto_renew",
                                                                   "system_disk",
                                                                   "data_disks",
                                                                   "bandwidth_mbps",
                                                                   "gpus",
                                                                   "gpu",
                                                                   "system_disk_kind",
                                                                   "system_disk_gb"};

int field_of(std::string_view name, bool csv) {
  const int limit = csv ? f_csv_count : f_count;
  for (int i = 0; i < limit; ++i) {
    if (csv && i == f_system_disk) continue;  // CSV spells it as two columns
    if (kFieldNames[static_cast<std::size_t>(i)] == name) return i;
  }
  return -1;
}

using Mask = std::uint32_t;
constexpr Mask bit(int f) {
  return Mask{1} << f;
}

struct Context {
  const std::string& file;
  std::int64_t line;
  [[noreturn]] void fail(std::string_view field, const std::string& reason) const {
    throw InputError(file, "line " + std::to_string(line), std::string(field), reason);
  }
};

// ---- scalar conversions shared by JSON and CSV ------------------------------------------------

Instant to_time(std::string_view text, const Context& cx) {
  try {
    return parse_instant(text);
  } catch (const ParseError& e) {
    cx.fail("time", e.what());
  }
}

EventType to_type(std::string_view text, const Context& cx) {
  try {
    return parse_event_type(text);
  } catch (const ParseError& e) {
    cx.fail("type", e.what());
  }
}

Decimal to_amount(std::string_view text, const Context& cx) {
  auto d = Decimal::try_parse(text);
  if (!d) {
    cx.fail("amount", "'" + std::string(text) +
                          "' is not an exact decimal amount (digits with an optional point, at "
                          "most 12 decimals, e.g. \"100.00\")");
  }
  if (d->sign() <= 0) cx.fail("amount", "a top-up amount must be positive");
  return *d;
}

Currency to_currency(std::string_view text, const Context& cx) {
  try {
    return Currency::parse(text);
  } catch (const ParseError& e) {
    cx.fail("currency", e.what());
  }
}

BillingMode to_mode(std::string_view text, const Context& cx) {
  if (text == "payg") return BillingMode::payg;
  if (text == "prepaid") return BillingMode::prepaid;
  if (text == "spot") return BillingMode::spot;
  cx.fail("mode",
          "unknown billing mode '" + std::string(text) + "' (expected payg, prepaid or spot)");
}

std::int64_t to_integer(std::string_view text, std::string_view field, const Context& cx,
                        std::int64_t min, std::int64_t max) {
  std::int64_t v = 0;
  const char* end = text.data() + text.size();
  const auto r = std::from_chars(text.data(), end, v);
  if (text.empty() || r.ec != std::errc{} || r.ptr != end) {
    cx.fail(field, "'" + std::string(text) + "' is not a whole number");
  }
  if (v < min || v > max) {
    cx.fail(field, std::to_string(v) + " is out of range (" + std::to_string(min) + " to " +
                       std::to_string(max) + ")");
  }
  return v;
}

bool to_bool(std::string_view text, std::string_view field, const Context& cx) {
  if (text == "true") return true;
  if (text == "false") return false;
  cx.fail(field, "'" + std::string(text) + "' is not true or false");
}

void non_empty(std::string_view text, std::string_view field, const Context& cx) {
  if (text.empty()) cx.fail(field, "must not be empty");
}

// An id or a name: non-empty, valid UTF-8, no control character, at most 256 bytes.
void check_name(std::string_view text, std::string_view field, const Context& cx) {
  non_empty(text, field, cx);
  if (auto why = text_check::problem(text, text_check::kMaxNameBytes)) cx.fail(field, *why);
}

constexpr std::int64_t kMaxSizeGb = 1'000'000;

// ---- per-type rules: which fields are required and which are allowed ------------------------

void finish_event(UsageEvent& ev, Mask present, const Context& cx) {
  const Mask common = bit(f_id) | bit(f_time) | bit(f_type) | bit(f_account);
  for (int f : {f_id, f_time, f_type, f_account}) {
    if (!(present & bit(f))) cx.fail(kFieldNames[static_cast<std::size_t>(f)], "missing field");
  }
  Mask required = 0, allowed = 0;
  switch (ev.type) {
    case EventType::topup:
      required = bit(f_amount) | bit(f_currency);
      break;
    case EventType::create:
      required =
          bit(f_instance) | bit(f_provider) | bit(f_region) | bit(f_instance_type) | bit(f_mode);
      allowed = bit(f_months) | bit(f_auto_renew) | bit(f_system_disk) | bit(f_data_disks) |
                bit(f_bandwidth_mbps) | bit(f_gpus) | bit(f_gpu);
      if (ev.mode == BillingMode::prepaid) required |= bit(f_months);
      break;
    case EventType::start:
    case EventType::stop:
    case EventType::destroy:
      required = bit(f_instance);
      break;
    case EventType::resize:
      required = bit(f_instance) | bit(f_instance_type);
      break;
    case EventType::renew:
      required = bit(f_instance) | bit(f_months);
      break;
    case EventType::set_auto_renew:
      required = bit(f_instance) | bit(f_auto_renew);
      break;
  }
  const std::string type_name(to_string(ev.type));
  for (int f = 0; f < f_count; ++f) {
    const Mask b = bit(f);
    if ((required & b) && !(present & b)) {
      cx.fail(kFieldNames[static_cast<std::size_t>(f)],
              "missing field (required for a " + type_name + " event)");
    }
    if ((present & b) && !((common | required | allowed) & b)) {
      cx.fail(kFieldNames[static_cast<std::size_t>(f)],
              "does not apply to a " + type_name + " event");
    }
  }
  if (ev.type == EventType::create && ev.mode != BillingMode::prepaid) {
    if (present & bit(f_months)) cx.fail("months", "applies to prepaid instances only");
    if (present & bit(f_auto_renew)) cx.fail("auto_renew", "applies to prepaid instances only");
  }
  if ((present & bit(f_gpu)) && !(present & bit(f_gpus))) {
    cx.fail("gpu", "names the model of attached GPUs; give their count in 'gpus' too");
  }
}

// ---- a minimal JSON reader --------------------------------------------------------------------

struct JsonValue {
  enum Kind { null, boolean, number, string, object, array } kind = null;
  std::string_view text;  // number text, or string text when it had no escapes
  std::string decoded;    // string text when it had escapes
  bool escaped = false;
  bool flag = false;
  struct Member;  // defined below: a pair holding the incomplete JsonValue fails in clang
  std::vector<Member> members;
  std::vector<JsonValue> items;
  std::string_view str() const { return escaped ? std::string_view(decoded) : text; }
  const char* kind_name() const {
    switch (kind) {
      case null:
        return "null";
      case boolean:
        return "a boolean";
      case number:
        return "a number";
      case string:
        return "a string";
      case object:
        return "an object";
      case array:
        return "an array";
    }
    return "?";
  }
};

struct JsonValue::Member {
  std::string key;
  JsonValue value;
};

class JsonReader {
 public:
  JsonReader(std::string_view text, const Context& cx) : s_(text), cx_(cx) {}

  void parse_top(JsonValue& out) {
    skip_ws();
    if (pos_ >= s_.size() || s_[pos_] != '{') syntax("a JSON object per line (expected '{')");
    parse_value(out, 0);
    skip_ws();
    if (pos_ != s_.size()) syntax("unexpected text after the object");
  }

 private:
  [[noreturn]] void syntax(const std::string& what) {
    cx_.fail("", "not valid JSON: " + what + " at column " + std::to_string(pos_ + 1));
  }
  void skip_ws() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\r' || s_[pos_] == '\n'))
      ++pos_;
  }
  bool literal(std::string_view word) {
    if (s_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }
  static void put_utf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }
  std::uint32_t hex4() {
    if (pos_ + 4 > s_.size()) syntax("truncated \\u escape");
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = s_[pos_++];
      v <<= 4;
      if (c >= '0' && c <= '9')
        v |= static_cast<std::uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f')
        v |= static_cast<std::uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        v |= static_cast<std::uint32_t>(c - 'A' + 10);
      else
        syntax("bad \\u escape");
    }
    return v;
  }
  // At the opening quote. Fills text (no escapes) or decoded.
  void parse_string(JsonValue& v) {
    ++pos_;
    const std::size_t start = pos_;
    while (pos_ < s_.size() && s_[pos_] != '"' && s_[pos_] != '\\') {
      if (static_cast<unsigned char>(s_[pos_]) < 0x20) syntax("control character in a string");
      ++pos_;
    }
    if (pos_ >= s_.size()) syntax("unterminated string");
    if (s_[pos_] == '"') {
      v.text = s_.substr(start, pos_ - start);
      v.escaped = false;
      ++pos_;
      return;
    }
    v.escaped = true;
    v.decoded.assign(s_.substr(start, pos_ - start));
    while (true) {
      if (pos_ >= s_.size()) syntax("unterminated string");
      const char c = s_[pos_++];
      if (c == '"') return;
      if (static_cast<unsigned char>(c) < 0x20) syntax("control character in a string");
      if (c != '\\') {
        v.decoded += c;
        continue;
      }
      if (pos_ >= s_.size()) syntax("unterminated string");
      const char e = s_[pos_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          v.decoded += e;
          break;
        case 'b':
          v.decoded += '\b';
          break;
        case 'f':
          v.decoded += '\f';
          break;
        case 'n':
          v.decoded += '\n';
          break;
        case 'r':
          v.decoded += '\r';
          break;
        case 't':
          v.decoded += '\t';
          break;
        case 'u': {
          std::uint32_t cp = hex4();
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (!literal("\\u")) syntax("unpaired surrogate in \\u escape");
            const std::uint32_t low = hex4();
            if (low < 0xDC00 || low > 0xDFFF) syntax("unpaired surrogate in \\u escape");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            syntax("unpaired surrogate in \\u escape");
          }
          put_utf8(v.decoded, cp);
          break;
        }
        default:
          syntax(std::string("bad escape '\\") + e + "'");
      }
    }
  }
  void parse_number(JsonValue& v) {
    const std::size_t start = pos_;
    if (s_[pos_] == '-') ++pos_;
    if (pos_ >= s_.size() || !(s_[pos_] >= '0' && s_[pos_] <= '9')) syntax("bad number");
    if (s_[pos_] == '0') {
      ++pos_;
    } else {
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
    }
    if (pos_ < s_.size() && s_[pos_] == '.') {
      ++pos_;
      if (pos_ >= s_.size() || !(s_[pos_] >= '0' && s_[pos_] <= '9')) syntax("bad number");
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
      if (pos_ >= s_.size() || !(s_[pos_] >= '0' && s_[pos_] <= '9')) syntax("bad number");
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
    }
    v.kind = JsonValue::number;
    v.text = s_.substr(start, pos_ - start);
  }
  void parse_value(JsonValue& v, int depth) {
    if (depth > 8) syntax("nested too deeply");
    skip_ws();
    if (pos_ >= s_.size()) syntax("unexpected end of line");
    const char c = s_[pos_];
    if (c == '{') {
      v.kind = JsonValue::object;
      ++pos_;
      skip_ws();
      if (pos_ < s_.size() && s_[pos_] == '}') {
        ++pos_;
        return;
      }
      while (true) {
        skip_ws();
        if (pos_ >= s_.size() || s_[pos_] != '"') syntax("expected a quoted key");
        JsonValue key;
        parse_string(key);
        skip_ws();
        if (pos_ >= s_.size() || s_[pos_] != ':') syntax("expected ':'");
        ++pos_;
        v.members.push_back({std::string(key.str()), JsonValue{}});
        parse_value(v.members.back().value, depth + 1);
        skip_ws();
        if (pos_ < s_.size() && s_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (pos_ < s_.size() && s_[pos_] == '}') {
          ++pos_;
          return;
        }
        syntax("expected ',' or '}'");
      }
    } else if (c == '[') {
      v.kind = JsonValue::array;
      ++pos_;
      skip_ws();
      if (pos_ < s_.size() && s_[pos_] == ']') {
        ++pos_;
        return;
      }
      while (true) {
        v.items.emplace_back();
        parse_value(v.items.back(), depth + 1);
        skip_ws();
        if (pos_ < s_.size() && s_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (pos_ < s_.size() && s_[pos_] == ']') {
          ++pos_;
          return;
        }
        syntax("expected ',' or ']'");
      }
    } else if (c == '"') {
      v.kind = JsonValue::string;
      parse_string(v);
    } else if (c == 't') {
      if (!literal("true")) syntax("unexpected character");
      v.kind = JsonValue::boolean;
      v.flag = true;
    } else if (c == 'f') {
      if (!literal("false")) syntax("unexpected character");
      v.kind = JsonValue::boolean;
      v.flag = false;
    } else if (c == 'n') {
      if (!literal("null")) syntax("unexpected character");
      v.kind = JsonValue::null;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      parse_number(v);
    } else {
      syntax(std::string("unexpected character '") + c + "'");
    }
  }

  std::string_view s_;
  std::size_t pos_ = 0;
  const Context& cx_;
};

std::string_view json_string(const JsonValue& v, std::string_view field, const Context& cx) {
  if (v.kind != JsonValue::string) {
    cx.fail(field, std::string("must be a string, not ") + v.kind_name());
  }
  return v.str();
}

std::int64_t json_integer(const JsonValue& v, std::string_view field, const Context& cx,
                          std::int64_t min, std::int64_t max) {
  if (v.kind != JsonValue::number) {
    cx.fail(field, std::string("must be a whole number, not ") + v.kind_name());
  }
  return to_integer(v.text, field, cx, min, max);
}

DiskSpec json_disk(const JsonValue& v, const std::string& field, const Context& cx) {
  if (v.kind != JsonValue::object) {
    cx.fail(field,
            std::string("must be an object {\"kind\": …, \"size_gb\": …}, not ") + v.kind_name());
  }
  DiskSpec d;
  bool has_kind = false, has_size = false;
  for (const auto& [key, value] : v.members) {
    if (key == "kind") {
      d.kind = std::string(json_string(value, field + ".kind", cx));
      check_name(d.kind, field + ".kind", cx);
      has_kind = true;
    } else if (key == "size_gb") {
      d.size_gb = json_integer(value, field + ".size_gb", cx, 1, kMaxSizeGb);
      has_size = true;
    } else {
      cx.fail(field + "." + key, "unknown field (a disk has kind and size_gb)");
    }
  }
  if (!has_kind) cx.fail(field + ".kind", "missing field");
  if (!has_size) cx.fail(field + ".size_gb", "missing field");
  return d;
}

// Sets one field of `ev` from text (CSV cells and JSON strings share this).
void set_text_field(UsageEvent& ev, int f, std::string_view text, const Context& cx) {
  const std::string_view name = kFieldNames[static_cast<std::size_t>(f)];
  switch (f) {
    case f_id:
      check_name(text, name, cx);
      ev.id.assign(text);
      break;
    case f_time:
      ev.time = to_time(text, cx);
      break;
    case f_type:
      ev.type = to_type(text, cx);
      break;
    case f_account:
      check_name(text, name, cx);
      ev.account.assign(text);
      break;
    case f_instance:
      check_name(text, name, cx);
      ev.instance.assign(text);
      break;
    case f_amount:
      ev.amount = to_amount(text, cx);
      break;
    case f_currency:
      ev.currency = to_currency(text, cx);
      break;
    case f_provider:
      check_name(text, name, cx);
      ev.provider.assign(text);
      break;
    case f_region:
      check_name(text, name, cx);
      ev.region.assign(text);
      break;
    case f_instance_type:
      check_name(text, name, cx);
      ev.instance_type.assign(text);
      break;
    case f_mode:
      ev.mode = to_mode(text, cx);
      break;
    case f_gpu:
      check_name(text, name, cx);
      ev.gpu.assign(text);
      break;
    default:
      cx.fail(name, "internal error: not a text field");
  }
}

void parse_json_into(UsageEvent& ev, std::string_view line, const Context& cx) {
  JsonValue top;
  JsonReader(line, cx).parse_top(top);
  Mask present = 0;
  for (const auto& [key, value] : top.members) {
    const int f = field_of(key, false);
    if (f < 0) cx.fail(key, "unknown field");
    if (present & bit(f)) cx.fail(key, "given twice");
    present |= bit(f);
    switch (f) {
      case f_id:
        if (value.kind == JsonValue::number) {
          to_integer(value.text, key, cx, std::numeric_limits<std::int64_t>::min(),
                     std::numeric_limits<std::int64_t>::max());
          ev.id.assign(value.text);
        } else {
          set_text_field(ev, f, json_string(value, key, cx), cx);
        }
        break;
      case f_amount:
        if (value.kind == JsonValue::number) {
          cx.fail(key,
                  "amounts are exact decimal strings (\"100.00\"), not JSON numbers: a number "
                  "like 0.1 cannot be read exactly");
        }
        set_text_field(ev, f, json_string(value, key, cx), cx);
        break;
      case f_months:
        ev.months = static_cast<int>(json_integer(value, key, cx, 1, 1200));
        break;
      case f_bandwidth_mbps:
        ev.bandwidth_mbps = json_integer(value, key, cx, 0, 1'000'000);
        break;
      case f_gpus:
        ev.gpus = static_cast<int>(json_integer(value, key, cx, 1, 1024));
        break;
      case f_auto_renew:
        if (value.kind != JsonValue::boolean) {
          cx.fail(key, std::string("must be true or false, not ") + value.kind_name());
        }
        ev.auto_renew = value.flag;
        break;
      case f_system_disk:
        ev.system_disk = json_disk(value, "system_disk", cx);
        break;
      case f_data_disks:
        if (value.kind != JsonValue::array) {
          cx.fail(key, std::string("must be an array of disks, not ") + value.kind_name());
        }
        for (std::size_t i = 0; i < value.items.size(); ++i) {
          ev.data_disks.push_back(
              json_disk(value.items[i], "data_disks[" + std::to_string(i) + "]", cx));
        }
        break;
      default:
        set_text_field(ev, f, json_string(value, key, cx), cx);
    }
  }
  finish_event(ev, present, cx);
}

// "cloud_ssd:100;cloud_premium:500"
std::vector<DiskSpec> parse_disk_list(std::string_view text, const Context& cx) {
  std::vector<DiskSpec> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(';', start), text.size());
    const std::string_view item = text.substr(start, end - start);
    const std::size_t colon = item.find(':');
    const std::string field = "data_disks[" + std::to_string(out.size()) + "]";
    if (colon == std::string_view::npos || colon == 0) {
      cx.fail(field, "'" + std::string(item) +
                         "' is not KIND:SIZE_GB (disks separated by ';', e.g. "
                         "\"cloud_ssd:100;cloud_premium:500\")");
    }
    DiskSpec d;
    d.kind.assign(item.substr(0, colon));
    check_name(d.kind, field + ".kind", cx);
    d.size_gb = to_integer(item.substr(colon + 1), field + ".size_gb", cx, 1, kMaxSizeGb);
    out.push_back(std::move(d));
    start = end + 1;
  }
  return out;
}

// Splits one CSV record (RFC 4180 quoting, no line breaks inside fields) into cells.
void split_csv(std::string_view line, std::vector<std::string>& cells, const Context& cx) {
  cells.clear();
  std::size_t pos = 0;
  while (true) {
    std::string cell;
    if (pos < line.size() && line[pos] == '"') {
      ++pos;
      while (true) {
        if (pos >= line.size()) {
          cx.fail("",
                  "a quoted CSV field never ends (line breaks inside fields are not "
                  "supported in usage logs)");
        }
        if (line[pos] == '"') {
          if (pos + 1 < line.size() && line[pos + 1] == '"') {
            cell += '"';
            pos += 2;
            continue;
          }
          ++pos;
          break;
        }
        cell += line[pos++];
      }
      if (pos < line.size() && line[pos] != ',') {
        cx.fail("", "text after a closing quote in field " + std::to_string(cells.size() + 1));
      }
    } else {
      const std::size_t end = std::min(line.find(',', pos), line.size());
      cell.assign(line.substr(pos, end - pos));
      if (cell.find('"') != std::string::npos) {
        cx.fail("", "a quote inside an unquoted field " + std::to_string(cells.size() + 1));
      }
      pos = end;
    }
    cells.push_back(std::move(cell));
    if (pos >= line.size()) break;
    ++pos;  // the comma
    if (pos == line.size()) {
      cells.emplace_back();
      break;
    }
  }
}

void csv_event(UsageEvent& ev, const std::vector<int>& column_fields,
               const std::vector<std::string>& cells, const Context& cx) {
  if (cells.size() != column_fields.size()) {
    cx.fail("", "expected " + std::to_string(column_fields.size()) +
                    " fields (as in the header), found " + std::to_string(cells.size()));
  }
  Mask present = 0;
  std::optional<std::string> disk_kind;
  std::optional<std::int64_t> disk_gb;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const std::string& text = cells[i];
    if (text.empty()) continue;  // an empty cell is an absent field
    const int f = column_fields[i];
    const std::string_view name = kFieldNames[static_cast<std::size_t>(f)];
    switch (f) {
      case f_months:
        ev.months = static_cast<int>(to_integer(text, name, cx, 1, 1200));
        present |= bit(f);
        break;
      case f_bandwidth_mbps:
        ev.bandwidth_mbps = to_integer(text, name, cx, 0, 1'000'000);
        present |= bit(f);
        break;
      case f_gpus:
        ev.gpus = static_cast<int>(to_integer(text, name, cx, 1, 1024));
        present |= bit(f);
        break;
      case f_auto_renew:
        ev.auto_renew = to_bool(text, name, cx);
        present |= bit(f);
        break;
      case f_data_disks:
        ev.data_disks = parse_disk_list(text, cx);
        present |= bit(f);
        break;
      case f_system_disk_kind:
        check_name(text, "system_disk_kind", cx);
        disk_kind = text;
        present |= bit(f_system_disk);
        break;
      case f_system_disk_gb:
        disk_gb = to_integer(text, name, cx, 1, kMaxSizeGb);
        present |= bit(f_system_disk);
        break;
      default:
        set_text_field(ev, f, text, cx);
        present |= bit(f);
    }
  }
  if (disk_kind || disk_gb) {
    if (!disk_kind) cx.fail("system_disk_kind", "missing (system_disk_gb is given)");
    if (!disk_gb) cx.fail("system_disk_gb", "missing (system_disk_kind is given)");
    ev.system_disk = DiskSpec{*disk_kind, *disk_gb};
  }
  finish_event(ev, present, cx);
}

void append_key(std::string& out, std::string_view key) {
  if (out.size() > 1) out += ',';
  out += '"';
  out += key;
  out += "\":";
}

void append_disk(std::string& out, const DiskSpec& d) {
  out += "{\"kind\":";
  json_text::append_string(out, d.kind);
  out += ",\"size_gb\":";
  out += std::to_string(d.size_gb);
  out += '}';
}

}  // namespace

// ---- public API
// ----------------------------------------------------------------------------------

EventType parse_event_type(std::string_view text) {
  static constexpr std::array<std::pair<std::string_view, EventType>, 8> kTypes = {{
      {"topup", EventType::topup},
      {"create", EventType::create},
      {"start", EventType::start},
      {"stop", EventType::stop},
      {"resize", EventType::resize},
      {"renew", EventType::renew},
      {"set_auto_renew", EventType::set_auto_renew},
      {"destroy", EventType::destroy},
  }};
  for (const auto& [name, type] : kTypes) {
    if (name == text) return type;
  }
  throw ParseError("unknown event type '" + std::string(text) +
                   "' (expected topup, create, start, stop, resize, renew, set_auto_renew or "
                   "destroy)");
}

std::string_view to_string(EventType type) noexcept {
  switch (type) {
    case EventType::topup:
      return "topup";
    case EventType::create:
      return "create";
    case EventType::start:
      return "start";
    case EventType::stop:
      return "stop";
    case EventType::resize:
      return "resize";
    case EventType::renew:
      return "renew";
    case EventType::set_auto_renew:
      return "set_auto_renew";
    case EventType::destroy:
      return "destroy";
  }
  return "?";
}

void UsageEvent::clear() {
  id.clear();
  time = Instant{};
  type = EventType::topup;
  account.clear();
  instance.clear();
  amount.reset();
  currency.reset();
  provider.clear();
  region.clear();
  instance_type.clear();
  mode.reset();
  months.reset();
  auto_renew.reset();
  system_disk.reset();
  data_disks.clear();
  bandwidth_mbps.reset();
  gpus.reset();
  gpu.clear();
}

std::string to_json(const UsageEvent& e) {
  std::string out;
  out.reserve(160);
  out += '{';
  append_key(out, "id");
  json_text::append_string(out, e.id);
  append_key(out, "time");
  out += '"';
  json_text::append_instant(out, e.time);
  out += '"';
  append_key(out, "type");
  json_text::append_string(out, to_string(e.type));
  append_key(out, "account");
  json_text::append_string(out, e.account);
  if (!e.instance.empty()) {
    append_key(out, "instance");
    json_text::append_string(out, e.instance);
  }
  if (e.amount) {
    append_key(out, "amount");
    json_text::append_string(out, e.amount->to_string());
  }
  if (e.currency) {
    append_key(out, "currency");
    json_text::append_string(out, e.currency->code());
  }
  if (!e.provider.empty()) {
    append_key(out, "provider");
    json_text::append_string(out, e.provider);
  }
  if (!e.region.empty()) {
    append_key(out, "region");
    json_text::append_string(out, e.region);
  }
  if (!e.instance_type.empty()) {
    append_key(out, "instance_type");
    json_text::append_string(out, e.instance_type);
  }
  if (e.mode) {
    append_key(out, "mode");
    json_text::append_string(out, to_string(*e.mode));
  }
  if (e.months) {
    append_key(out, "months");
    out += std::to_string(*e.months);
  }
  if (e.auto_renew) {
    append_key(out, "auto_renew");
    out += *e.auto_renew ? "true" : "false";
  }
  if (e.system_disk) {
    append_key(out, "system_disk");
    append_disk(out, *e.system_disk);
  }
  if (!e.data_disks.empty()) {
    append_key(out, "data_disks");
    out += '[';
    for (std::size_t i = 0; i < e.data_disks.size(); ++i) {
      if (i) out += ',';
      append_disk(out, e.data_disks[i]);
    }
    out += ']';
  }
  if (e.bandwidth_mbps) {
    append_key(out, "bandwidth_mbps");
    out += std::to_string(*e.bandwidth_mbps);
  }
  if (e.gpus) {
    append_key(out, "gpus");
    out += std::to_string(*e.gpus);
  }
  if (!e.gpu.empty()) {
    append_key(out, "gpu");
    json_text::append_string(out, e.gpu);
  }
  out += '}';
  return out;
}

UsageEvent parse_event_json(std::string_view line, const std::string& file,
                            std::int64_t line_number) {
  UsageEvent ev;
  const Context cx{file, line_number};
  parse_json_into(ev, line, cx);
  return ev;
}

LogFormat log_format_of(const std::string& path) {
  auto ends_with = [&](std::string_view suffix) {
    if (path.size() < suffix.size()) return false;
    for (std::size_t i = 0; i < suffix.size(); ++i) {
      const char a = path[path.size() - suffix.size() + i];
      const char b = suffix[i];
      if (std::tolower(static_cast<unsigned char>(a)) != b) return false;
    }
    return true;
  };
  if (ends_with(".jsonl") || ends_with(".ndjson") || ends_with(".json")) return LogFormat::jsonl;
  if (ends_with(".csv")) return LogFormat::csv;
  throw InputError(path, "", "",
                   "unknown usage log format: name it .jsonl (JSON Lines) or .csv (CSV with a "
                   "header row)");
}

struct EventReader::CsvScratch {
  std::vector<int> column_fields;
  std::vector<std::string> cells;
};

EventReader::EventReader(const std::string& path) : path_(path), format_(log_format_of(path)) {
  check_input_file(path);  // a directory opens as a stream and fails at the first read
  in_.open(path, std::ios::binary);
  if (!in_) throw InputError(path, "", "", "cannot open the file for reading");
  if (format_ != LogFormat::csv) return;
  csv_ = std::make_unique<CsvScratch>();
  // The header: the first non-blank line.
  while (std::getline(in_, line_)) {
    ++line_number_;
    if (line_number_ == 1 && line_.rfind("\xEF\xBB\xBF", 0) == 0) line_.erase(0, 3);
    if (!line_.empty() && line_.back() == '\r') line_.pop_back();
    if (!line_.empty()) break;
  }
  if (line_.empty()) throw InputError(path, "", "", "empty CSV file: a header row is required");
  const Context cx{path_, line_number_};
  split_csv(line_, columns_, cx);
  Mask seen = 0;
  for (const auto& name : columns_) {
    const int f = field_of(name, true);
    if (f < 0) {
      cx.fail(name,
              "unknown column (expected id, time, type, account, instance and the event "
              "fields of docs/usage-log.md)");
    }
    if (seen & bit(f)) cx.fail(name, "column given twice");
    seen |= bit(f);
    csv_->column_fields.push_back(f);
  }
  for (int f : {f_id, f_time, f_type, f_account}) {
    if (!(seen & bit(f))) {
      cx.fail(kFieldNames[static_cast<std::size_t>(f)], "missing column in the header");
    }
  }
}

EventReader::~EventReader() = default;

EventReader::Status EventReader::next(UsageEvent& event) {
  while (std::getline(in_, line_)) {
    ++line_number_;
    if (line_number_ == 1 && line_.rfind("\xEF\xBB\xBF", 0) == 0) line_.erase(0, 3);
    if (!line_.empty() && line_.back() == '\r') line_.pop_back();
    if (line_.find_first_not_of(" \t") == std::string::npos) continue;
    event.clear();
    error_.reset();
    const Context cx{path_, line_number_};
    try {
      if (format_ == LogFormat::csv) {
        split_csv(line_, csv_->cells, cx);
        csv_event(event, csv_->column_fields, csv_->cells, cx);
      } else {
        parse_json_into(event, line_, cx);
      }
      return Status::event;
    } catch (const InputError& e) {
      error_ = e;
      return Status::malformed;
    }
  }
  if (in_.bad())
    throw InputError(path_, "line " + std::to_string(line_number_ + 1), "", "read error");
  return Status::end;
}

}  // namespace gpubill
