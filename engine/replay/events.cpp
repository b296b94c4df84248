// Usage events: their names, their canonical JSON, and the reader that yields them from a log
// file in either format (JSON Lines: event_json.cpp; CSV: event_csv.cpp; docs/usage-log.md).
#include "gpubill/replay/events.hpp"

#include <array>

#include "base/csv_reader.hpp"
#include "base/json_text.hpp"
#include "gpubill/base/input_file.hpp"
#include "replay/event_fields.hpp"

namespace gpubill {

namespace {

using event_input::Context;

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

// A commit event's own fields, in a fixed order (none for the other events).
void append_commit_fields(std::string& out, const UsageEvent& e) {
  if (e.term_months) {
    append_key(out, "term");
    json_text::append_string(out, *e.term_months == 36 ? "3y" : "1y");
  }
  if (e.payment) {
    append_key(out, "payment");
    json_text::append_string(out, to_string(*e.payment));
  }
  if (!e.plan.empty()) {
    append_key(out, "plan");
    json_text::append_string(out, e.plan);
  }
  if (!e.family.empty()) {
    append_key(out, "family");
    json_text::append_string(out, e.family);
  }
  if (!e.offering_class.empty()) {
    append_key(out, "class");
    json_text::append_string(out, e.offering_class);
  }
  if (e.count) {
    append_key(out, "count");
    out += std::to_string(*e.count);
  }
  if (e.start) {
    append_key(out, "start");
    out += '"';
    append_instant(out, *e.start);
    out += '"';
  }
}

}  // namespace

EventType parse_event_type(std::string_view text) {
  static constexpr std::array<std::pair<std::string_view, EventType>, 9> kTypes = {{
      {"topup", EventType::topup},
      {"create", EventType::create},
      {"start", EventType::start},
      {"stop", EventType::stop},
      {"resize", EventType::resize},
      {"renew", EventType::renew},
      {"set_auto_renew", EventType::set_auto_renew},
      {"destroy", EventType::destroy},
      {"commit", EventType::commit},
  }};
  for (const auto& [name, type] : kTypes) {
    if (name == text) return type;
  }
  throw ParseError("unknown event type '" + std::string(text) +
                   "' (expected topup, create, start, stop, resize, renew, set_auto_renew, "
                   "destroy or commit)");
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
    case EventType::commit:
      return "commit";
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
  return_kind.reset();
  interrupted = false;
  term_months.reset();
  payment.reset();
  offering_class.clear();
  count.reset();
  start.reset();
  plan.clear();
  family.clear();
}

std::string_view to_string(ReturnKind kind) noexcept {
  return kind == ReturnKind::no_reason ? "no_reason" : "ordinary";
}

std::string to_json(const UsageEvent& e) {
  std::string out;
  out.reserve(160);
  out += '{';
  append_key(out, "id");
  json_text::append_string(out, e.id);
  append_key(out, "time");
  out += '"';
  append_instant(out, e.time);
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
  if (e.return_kind) {
    append_key(out, "return_kind");
    json_text::append_string(out, to_string(*e.return_kind));
  }
  append_commit_fields(out, e);
  out += '}';
  return out;
}

UsageEvent parse_event_json(std::string_view line, const std::string& file,
                            std::int64_t line_number) {
  UsageEvent ev;
  const Context cx{file, line_number};
  event_input::parse_json_event(ev, line, cx);
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
  CsvRecord record;
  // One line as one record: a log's fields never span lines.
  void split(const std::string& line, const std::string& path, std::int64_t line_number) {
    CsvScanner scanner(line, path, static_cast<std::size_t>(line_number),
                       CsvScanner::LineBreaks::refused);
    scanner.next(record);
  }
};

EventReader::EventReader(const std::string& path) : path_(path), format_(log_format_of(path)) {
  check_input_file(path);  // a directory opens as a stream and fails at the first read
  in_.open(path, std::ios::binary);
  if (!in_) throw InputError(path, "", "", "cannot open the file for reading");
  if (format_ != LogFormat::csv) return;
  csv_ = std::make_unique<CsvScratch>();
  // The header: the first non-blank line.
  while (std::getline(in_, line_)) {
    bytes_read_ += line_.size() + (in_.eof() ? 0 : 1);  // the '\n' getline dropped
    ++line_number_;
    if (line_number_ == 1 && line_.rfind("\xEF\xBB\xBF", 0) == 0) line_.erase(0, 3);
    if (!line_.empty() && line_.back() == '\r') line_.pop_back();
    if (!line_.empty()) break;
  }
  if (line_.empty()) throw InputError(path, "", "", "empty CSV file: a header row is required");
  csv_->split(line_, path_, line_number_);
  columns_ = csv_->record.fields;
  csv_->column_fields = event_input::csv_columns(columns_, Context{path_, line_number_});
}

EventReader::~EventReader() = default;

EventReader::Status EventReader::next(UsageEvent& event) {
  while (std::getline(in_, line_)) {
    bytes_read_ += line_.size() + (in_.eof() ? 0 : 1);  // the '\n' getline dropped
    ++line_number_;
    if (line_number_ == 1 && line_.rfind("\xEF\xBB\xBF", 0) == 0) line_.erase(0, 3);
    if (!line_.empty() && line_.back() == '\r') line_.pop_back();
    if (line_.find_first_not_of(" \t") == std::string::npos) continue;
    event.clear();
    error_.reset();
    const Context cx{path_, line_number_};
    try {
      if (format_ == LogFormat::csv) {
        csv_->split(line_, path_, line_number_);
        event_input::parse_csv_event(event, csv_->column_fields, csv_->record.fields, cx);
      } else {
        event_input::parse_json_event(event, line_, cx);
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
