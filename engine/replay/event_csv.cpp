// Usage events from CSV records: one column per field, the system disk as two columns, data
// disks as "KIND:SIZE_GB;…" (docs/usage-log.md). Records come from the one CSV reader
// (csv_reader.hpp), line by line.
#include <optional>

#include "replay/event_fields.hpp"

namespace gpubill::event_input {

namespace {

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

}  // namespace

std::vector<int> csv_columns(const std::vector<std::string>& header, const Context& cx) {
  std::vector<int> fields;
  Mask seen = 0;
  for (const auto& name : header) {
    const int f = field_of(name, true);
    if (f < 0) {
      cx.fail(name,
              "unknown column (expected id, time, type, account, instance and the event "
              "fields of docs/usage-log.md)");
    }
    if (seen & bit(f)) cx.fail(name, "column given twice");
    seen |= bit(f);
    fields.push_back(f);
  }
  for (int f : {f_id, f_time, f_type, f_account}) {
    if (!(seen & bit(f))) {
      cx.fail(kFieldNames[static_cast<std::size_t>(f)], "missing column in the header");
    }
  }
  return fields;
}

void parse_csv_event(UsageEvent& ev, const std::vector<int>& column_fields,
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
        ev.months = static_cast<int>(to_integer(text, name, cx, 1, kMaxMonths));
        present |= bit(f);
        break;
      case f_bandwidth_mbps:
        ev.bandwidth_mbps = to_integer(text, name, cx, 0, kMaxBandwidthMbps);
        present |= bit(f);
        break;
      case f_gpus:
        ev.gpus = static_cast<int>(to_integer(text, name, cx, 1, kMaxGpus));
        present |= bit(f);
        break;
      case f_units:
        ev.count = to_integer(text, name, cx, 1, kMaxCommitUnits);
        present |= bit(f);
        break;
      case f_auto_renew:
        ev.auto_renew = to_bool(text, name, cx);
        present |= bit(f);
        break;
      case f_interrupted:
        ev.interrupted = to_bool(text, name, cx);
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

}  // namespace gpubill::event_input
