// Usage events from JSON Lines, read with simdjson's On Demand parser: it validates UTF-8 and
// the structure of each line, and leaves every number as its raw text, which is how counts and
// numeric ids stay exact (amounts are decimal strings; docs/usage-log.md).
#include <simdjson.h>

#include <algorithm>
#include <limits>

#include "base/simdjson_types.hpp"
#include "base/text_check.hpp"
#include "replay/event_fields.hpp"

namespace gpubill::event_input {

namespace {

namespace od = simdjson::ondemand;

const char* type_name(od::json_type type) {
  return json_type_name(type);
}

// Our words for simdjson's error codes; the rest keep simdjson's own message.
std::string describe(simdjson::error_code error) {
  switch (error) {
    case simdjson::UTF8_ERROR:
      return "the line is not valid UTF-8";
    case simdjson::UNESCAPED_CHARS:
      return "a control character inside a string (write it as an escape, e.g. \\n)";
    case simdjson::UNCLOSED_STRING:
      return "a string is not closed";
    case simdjson::STRING_ERROR:
      return "a bad escape in a string (e.g. \\x or an unpaired \\u surrogate)";
    case simdjson::TAPE_ERROR:
      return "a missing or extra ',', ':', quote or bracket";
    case simdjson::INCOMPLETE_ARRAY_OR_OBJECT:
      return "the object does not end where the line ends (a missing '}' or text after it)";
    case simdjson::DEPTH_ERROR:
      return "nested too deeply";
    case simdjson::T_ATOM_ERROR:
    case simdjson::F_ATOM_ERROR:
    case simdjson::N_ATOM_ERROR:
      return "a misspelt true, false or null";
    case simdjson::TRAILING_CONTENT:
      return "unexpected text after the object";
    case simdjson::EMPTY:
      return "an empty line";
    default:
      return simdjson::error_message(error);
  }
}

// JSON's number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
bool is_json_number(std::string_view s) {
  std::size_t i = 0;
  const auto digits = [&] {
    const std::size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i > start;
  };
  if (i < s.size() && s[i] == '-') ++i;
  if (i < s.size() && s[i] == '0') {
    ++i;
  } else if (!digits()) {
    return false;
  }
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (!digits()) return false;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == s.size();
}

// Where a bad byte `at` is: in the value of which member, found by scanning back for
// `"key": "`, and at which byte of that value. Without such a key (a bad byte in a key, say),
// the byte of the line.
struct BytePlace {
  std::string field;
  std::string where;
};
BytePlace place_of(std::string_view line, std::size_t at) {
  std::size_t colon = line.rfind(':', at);
  while (colon != std::string_view::npos) {
    std::size_t end = colon;
    while (end > 0 && (line[end - 1] == ' ' || line[end - 1] == '\t')) --end;
    const std::size_t value = line.find('"', colon);
    if (end >= 2 && line[end - 1] == '"' && value < at) {
      const std::size_t open = line.rfind('"', end - 2);
      if (open != std::string_view::npos) {
        const std::string_view key = line.substr(open + 1, end - 2 - open);
        if (field_of(key, false) >= 0 || key == "kind") {
          return {std::string(key), "byte " + std::to_string(at - value)};
        }
      }
    }
    if (colon == 0) break;
    colon = line.rfind(':', colon - 1);
  }
  return {"", "byte " + std::to_string(at + 1) + " of the line"};
}

// Where simdjson found an unescaped control character: the first control byte, where a tab
// counts last (outside strings it is white space).
std::size_t first_control_byte(std::string_view line) {
  std::size_t first_tab = line.size();
  for (std::size_t i = 0; i < line.size(); ++i) {
    const auto c = static_cast<unsigned char>(line[i]);
    if (c == '\t') {
      first_tab = std::min(first_tab, i);
    } else if (c < 0x20) {
      return i;
    }
  }
  return first_tab;
}

// Reads one line's object field by field; every failure names the line and, where known, the
// field.
class LineReader {
 public:
  // `parser` and `buffer` are reused line after line (a parser allocates for its largest line).
  LineReader(const Context& cx, od::parser& parser, std::string& buffer)
      : cx_(cx), parser_(parser), buffer_(buffer) {}

  void read(UsageEvent& ev, std::string_view line) {
    if (line.substr(0, 2) == "\xFF\xFE" || line.substr(0, 2) == "\xFE\xFF") {
      cx_.fail("",
               "the file is UTF-16 (it starts with a UTF-16 byte order mark): save it as UTF-8");
    }
    // simdjson reads up to SIMDJSON_PADDING bytes past the end: parse a padded copy.
    buffer_.assign(line);
    buffer_.resize(line.size() + simdjson::SIMDJSON_PADDING);
    od::document doc;
    const auto error = parser_.iterate(buffer_.data(), line.size(), buffer_.size()).get(doc);
    if (error == simdjson::UTF8_ERROR) {
      // simdjson only says that the line is not UTF-8: say where, and in which field.
      const auto place = place_of(line, text_check::invalid_utf8_at(line).value_or(0));
      cx_.fail(place.field, "is not valid UTF-8 (" + place.where + ")");
    }
    if (error == simdjson::UNESCAPED_CHARS) {
      const std::size_t at = first_control_byte(line);
      cx_.fail("", "not valid JSON: " + describe(error) + " at column " + std::to_string(at + 1));
    }
    check(error, "");
    doc_ = &doc;  // from here on, errors can say where simdjson stopped
    const std::size_t first = line.find_first_not_of(" \t");
    if (line[first] != '{' && line[first] != '[' && line[first] != '"') {
      cx_.fail("",
               "not valid JSON: a JSON object per line is expected (the line does not start "
               "with '{')");
    }
    od::json_type top{};
    check(doc.type().get(top), "");
    if (top != od::json_type::object) {
      cx_.fail("", std::string("not valid JSON: a JSON object per line is expected, not ") +
                       type_name(top));
    }
    od::object object;
    check(doc.get_object().get(object), "");
    Mask present = 0;
    for (auto member : object) {
      od::field field;
      check(std::move(member).get(field), "");
      std::string_view key;
      check(field.unescaped_key().get(key), "");
      const std::string name(key);  // the parser's buffer is reused by later strings
      const int f = field_of(name, false);
      if (f < 0) cx_.fail(name, "unknown field");
      if (present & bit(f)) cx_.fail(name, "given twice");
      present |= bit(f);
      read_field(ev, f, name, field.value());
    }
    // Past the object, simdjson has a location only if something other than spaces follows.
    const char* after = nullptr;
    if (doc.current_location().get(after) == simdjson::SUCCESS) {
      cx_.fail("", "not valid JSON: unexpected text after the object at column " +
                       std::to_string(after - buffer_.data() + 1));
    }
    finish_event(ev, present, cx_);
  }

 private:
  // Fails with simdjson's error in our words, and the column where it stopped when it knows.
  void check(simdjson::error_code error, std::string_view field) const {
    if (!error) return;
    std::string where;
    const char* at = nullptr;
    if (doc_ && error != simdjson::INCOMPLETE_ARRAY_OR_OBJECT &&
        doc_->current_location().get(at) == simdjson::SUCCESS) {
      where = " at column " + std::to_string(at - buffer_.data() + 1);
    }
    cx_.fail(field, "not valid JSON: " + describe(error) + where);
  }

  od::json_type type_of(od::value& v, std::string_view field) const {
    od::json_type type{};
    check(v.type().get(type), field);
    return type;
  }

  std::string_view string_of(od::value& v, std::string_view field) const {
    const od::json_type type = type_of(v, field);
    if (type != od::json_type::string) {
      cx_.fail(field, std::string("must be a string, not ") + type_name(type));
    }
    std::string_view text;
    check(v.get_string().get(text), field);
    return text;
  }

  // The number's own text, checked against JSON's grammar (simdjson leaves it unparsed).
  std::string_view number_text(od::value& v, std::string_view field) const {
    std::string_view raw = v.raw_json_token();
    while (!raw.empty() &&
           (raw.back() == ' ' || raw.back() == '\t' || raw.back() == '\r' || raw.back() == '\n'))
      raw.remove_suffix(1);
    if (!is_json_number(raw)) {
      cx_.fail(field, "not valid JSON: '" + std::string(raw) + "' is not a number");
    }
    return raw;
  }

  std::int64_t integer_of(od::value& v, std::string_view field, std::int64_t min,
                          std::int64_t max) const {
    const od::json_type type = type_of(v, field);
    if (type != od::json_type::number) {
      cx_.fail(field, std::string("must be a whole number, not ") + type_name(type));
    }
    return to_integer(number_text(v, field), field, cx_, min, max);
  }

  bool bool_of(od::value& v, std::string_view field) const {
    const od::json_type type = type_of(v, field);
    if (type != od::json_type::boolean) {
      cx_.fail(field, std::string("must be true or false, not ") + type_name(type));
    }
    bool flag = false;
    if (v.get_bool().get(flag)) {
      cx_.fail(field,
               "not valid JSON: '" + std::string(v.raw_json_token()) + "' is not true or false");
    }
    return flag;
  }

  DiskSpec disk_of(od::value v, const std::string& field) const {
    const od::json_type type = type_of(v, field);
    if (type != od::json_type::object) {
      cx_.fail(field, std::string("must be an object {\"kind\": …, \"size_gb\": …}, not ") +
                          type_name(type));
    }
    od::object object;
    check(v.get_object().get(object), field);
    DiskSpec disk;
    bool has_kind = false, has_size = false;
    for (auto member : object) {
      od::field item;
      check(std::move(member).get(item), field);
      std::string_view key;
      check(item.unescaped_key().get(key), field);
      const std::string name = field + "." + std::string(key);
      od::value value = item.value();
      if (key == "kind" && !has_kind) {
        disk.kind = std::string(string_of(value, name));
        check_name(disk.kind, name, cx_);
        has_kind = true;
      } else if (key == "size_gb" && !has_size) {
        disk.size_gb = integer_of(value, name, 1, kMaxSizeGb);
        has_size = true;
      } else if (key == "kind" || key == "size_gb") {
        cx_.fail(name, "given twice");
      } else {
        cx_.fail(name, "unknown field (a disk has kind and size_gb)");
      }
    }
    if (!has_kind) cx_.fail(field + ".kind", "missing field");
    if (!has_size) cx_.fail(field + ".size_gb", "missing field");
    return disk;
  }

  void read_field(UsageEvent& ev, int f, const std::string& key, od::value value) {
    switch (f) {
      case f_id:
        if (type_of(value, key) == od::json_type::number) {
          const std::string_view text = number_text(value, key);
          to_integer(text, key, cx_, std::numeric_limits<std::int64_t>::min(),
                     std::numeric_limits<std::int64_t>::max());
          ev.id.assign(text);
        } else {
          set_text_field(ev, f, string_of(value, key), cx_);
        }
        break;
      case f_amount:
        if (type_of(value, key) == od::json_type::number) {
          cx_.fail(key,
                   "amounts are exact decimal strings (\"100.00\"), not JSON numbers: a number "
                   "like 0.1 cannot be read exactly");
        }
        set_text_field(ev, f, string_of(value, key), cx_);
        break;
      case f_months:
        ev.months = static_cast<int>(integer_of(value, key, 1, kMaxMonths));
        break;
      case f_bandwidth_mbps:
        ev.bandwidth_mbps = integer_of(value, key, 0, kMaxBandwidthMbps);
        break;
      case f_gpus:
        ev.gpus = static_cast<int>(integer_of(value, key, 1, kMaxGpus));
        break;
      case f_units:
        ev.count = integer_of(value, key, 1, kMaxCommitUnits);
        break;
      case f_auto_renew:
        ev.auto_renew = bool_of(value, key);
        break;
      case f_interrupted:
        ev.interrupted = bool_of(value, key);
        break;
      case f_system_disk:
        ev.system_disk = disk_of(value, "system_disk");
        break;
      case f_data_disks: {
        const od::json_type type = type_of(value, key);
        if (type != od::json_type::array) {
          cx_.fail(key, std::string("must be an array of disks, not ") + type_name(type));
        }
        od::array disks;
        check(value.get_array().get(disks), key);
        for (auto item : disks) {
          od::value disk;
          const std::string name = "data_disks[" + std::to_string(ev.data_disks.size()) + "]";
          check(std::move(item).get(disk), name);
          ev.data_disks.push_back(disk_of(disk, name));
        }
        break;
      }
      default:
        set_text_field(ev, f, string_of(value, key), cx_);
    }
  }

  const Context& cx_;
  od::document* doc_ = nullptr;  // the line's document, once simdjson has opened it
  od::parser& parser_;
  std::string& buffer_;
};

// Lines up to this size share one parser and buffer per thread; a longer line gets its own,
// freed after it, so that one huge line does not hold its memory for the process's life.
constexpr std::size_t kSharedParserBytes = 1 << 20;

}  // namespace

void parse_json_event(UsageEvent& ev, std::string_view line, const Context& cx) {
  if (line.size() <= kSharedParserBytes) {
    thread_local od::parser parser;
    thread_local std::string buffer;
    LineReader(cx, parser, buffer).read(ev, line);
  } else {
    od::parser parser;
    std::string buffer;
    LineReader(cx, parser, buffer).read(ev, line);
  }
}

}  // namespace gpubill::event_input
