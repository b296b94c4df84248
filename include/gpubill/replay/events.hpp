// Usage events: what instances did, as read from a usage log (docs/usage-log.md). A log is JSON
// Lines (`.jsonl`, one object per line) or CSV with a header row (`.csv`); both hold the same
// events. Parsing is strict: an unknown field, a field that does not apply to the event's type,
// a missing field or a value that does not parse is an InputError naming the file, the line and
// the field.
#pragma once

#include <cstdint>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpubill/base/errors.hpp"
#include "gpubill/base/money.hpp"
#include "gpubill/base/time.hpp"
#include "gpubill/catalog/catalog.hpp"

namespace gpubill {

enum class EventType { topup, create, start, stop, resize, renew, set_auto_renew, destroy, commit };
// "topup", "create", "start", "stop", "resize", "renew", "set_auto_renew", "destroy", "commit".
// Throws ParseError.
EventType parse_event_type(std::string_view text);
std::string_view to_string(EventType type) noexcept;

// What a destroy before a prepaid instance's expiry asks for: the no-reason full refund within
// the policy's full_refund_days (limited per account), or the ordinary return (paid − used).
enum class ReturnKind { no_reason, ordinary };
std::string_view to_string(ReturnKind kind) noexcept;

struct DiskSpec {
  std::string kind;  // a disk kind of the catalog's disk prices: "cloud_ssd", "cloud_premium"
  std::int64_t size_gb = 0;
  friend bool operator==(const DiskSpec&, const DiskSpec&) = default;
};

// One event. Which fields are set depends on the type:
//   topup           amount, currency
//   create          instance, provider, region, instance_type, mode; months (prepaid, required);
//                   auto_renew (prepaid); system_disk, data_disks, bandwidth_mbps, gpus, gpu
//   start            instance
//   stop             instance; interrupted (the provider stopped a spot instance)
//   destroy          instance; return_kind (a prepaid instance before its expiry); interrupted
//                    (the provider reclaimed a spot instance)
//   resize          instance, instance_type
//   renew           instance, months
//   set_auto_renew  instance, auto_renew
//   commit          provider, region, instance_type or gpu (the commitment's scope), term,
//                   payment, count; class (an AWS RI's offering class), start (on a clock hour;
//                   default: the first at or after time).
//                   The event's id names the commitment.
struct UsageEvent {
  std::string id;  // unique within the account
  Instant time{};
  EventType type = EventType::topup;
  std::string account;
  std::string instance;
  std::optional<Decimal> amount;
  std::optional<Currency> currency;
  std::string provider, region, instance_type;
  std::optional<BillingMode> mode;  // payg, prepaid or spot
  std::optional<int> months;
  std::optional<bool> auto_renew;
  std::optional<DiskSpec> system_disk;
  std::vector<DiskSpec> data_disks;
  std::optional<std::int64_t> bandwidth_mbps;
  std::optional<int> gpus;                // attachable GPUs on a host priced per GPU (Google-style)
  std::string gpu;                        // which GPU model, when the host takes several
  std::optional<ReturnKind> return_kind;  // destroy: "no_reason" or "ordinary"
  // stop, destroy: the provider, not the user, ended the run of a spot instance (an
  // interruption); some providers charge nothing for it (policy spot_interrupted_free_seconds).
  bool interrupted = false;
  // commit: "1y" = 12 months, "3y" = 36; the payment option; the offering class ("standard",
  // "convertible"; empty = the only one the catalog has); how many units; when the term starts.
  std::optional<int> term_months;
  std::optional<CommitmentPayment> payment;
  std::string offering_class;
  std::optional<std::int64_t> count;
  std::optional<Instant> start;
  // commit of an AWS Savings Plan: "compute" or "ec2_instance"; an EC2 Instance Savings Plan's
  // instance family ("p3"). Its hourly commitment is `amount` in `currency`.
  std::string plan, family;

  // Resets every field (keeps string capacity, for reuse while streaming).
  void clear();
};

// The event as canonical JSON: keys in a fixed order, only the fields set, the time in UTC
// ("2018-01-31T02:00:00Z"), amounts as exact decimal strings. Equal events give equal text.
std::string to_json(const UsageEvent& event);

// Parses one JSON Lines line (one JSON object). Throws InputError(file, "line N", field,
// reason).
UsageEvent parse_event_json(std::string_view line, const std::string& file,
                            std::int64_t line_number);

enum class LogFormat { jsonl, csv };
// By extension: ".jsonl" / ".ndjson" / ".json" → jsonl, ".csv" → csv. Throws InputError.
LogFormat log_format_of(const std::string& path);

// Streams a usage log line by line (memory does not grow with the file). Blank lines are
// skipped; a UTF-8 byte order mark at the start is ignored; CRLF line ends are accepted.
class EventReader {
 public:
  // Opens the file and, for CSV, reads and checks the header. Throws InputError when the file
  // cannot be read or the CSV header is wrong (a bad header cannot be skipped).
  explicit EventReader(const std::string& path);
  ~EventReader();
  EventReader(const EventReader&) = delete;
  EventReader& operator=(const EventReader&) = delete;

  enum class Status { event, malformed, end };
  // Reads the next record into `event`. On `malformed`, error() says why.
  Status next(UsageEvent& event);

  const std::string& path() const noexcept { return path_; }
  std::int64_t line_number() const noexcept { return line_number_; }
  // The raw text of the record just read (without the line end).
  const std::string& line_text() const noexcept { return line_; }
  const InputError& error() const { return *error_; }
  // Bytes of the file read so far (line ends included): the file's size at the end.
  std::uint64_t bytes_read() const noexcept { return bytes_read_; }

 private:
  std::string path_;
  LogFormat format_;
  std::ifstream in_;
  std::string line_;
  std::int64_t line_number_ = 0;
  std::uint64_t bytes_read_ = 0;
  std::vector<std::string> columns_;  // CSV header
  std::optional<InputError> error_;
  struct CsvScratch;
  std::unique_ptr<CsvScratch> csv_;
};

}  // namespace gpubill
