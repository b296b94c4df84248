// Private to the engine: the replay driver. It reads events (from log files, or stored ones for a
// rebuild), guards their times, stores them, runs them through the simulation and settles the
// accounts, inside a transaction its caller holds.
#pragma once

#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "gpubill/base/errors.hpp"
#include "gpubill/catalog/catalog.hpp"
#include "gpubill/replay/events.hpp"
#include "gpubill/replay/replay.hpp"
#include "replay/replay_model.hpp"
#include "replay/replay_plan.hpp"
#include "replay/replay_sink.hpp"
#include "store/connection.hpp"

namespace gpubill::replay_detail {

using replay::Seconds;

// "T is later than N (now plus the allowed margin)": the time guard's words, for event times,
// --until and a rebuild's clock alike.
inline std::string later_than_allowed(Instant t, Instant not_after) {
  return format_instant(t) + " is later than " + format_instant(not_after) +
         " (now plus the allowed margin)";
}

class Driver {
 public:
  // `counting`: the first pass of a replay with workers (replay_plan.hpp): what the driver would
  // write is counted by position (count_rows), nothing is written.
  Driver(store::Connection& db, const Catalog& catalog, const ReplayOptions& options,
         bool counting = false)
      : db_(db),
        options_(options),
        sink_(db, numbering_),
        counting_sink_(numbering_),
        sim_(catalog, counting ? static_cast<replay::Sink&>(counting_sink_) : sink_),
        // PostgreSQL: not INSERT OR IGNORE (ON CONFLICT DO NOTHING), which spends a number of
        // the seq's sequence on each duplicate, so that later events' seqs would differ from
        // SQLite's: nothing is inserted, and no number taken, when the id is there. The CASTs:
        // PostgreSQL types a parameter of a SELECT list as text.
        insert_event_(db,
                      "INSERT OR IGNORE INTO event(account, id, time, type, instance, payload, "
                      "source_file, source_line, status) VALUES(?, ?, ?, ?, ?, ?, ?, ?, "
                      "'applied')",
                      "INSERT INTO event(account, id, time, type, instance, payload, source_file, "
                      "source_line, status) SELECT ?1, ?2, CAST(?3 AS INTEGER), ?4, ?5, ?6, ?7, "
                      "CAST(?8 AS INTEGER), 'applied' WHERE NOT EXISTS (SELECT 1 FROM event "
                      "WHERE account = ?1 AND id = ?2) RETURNING seq"),
        insert_numbered_event_(db,
                               "INSERT INTO event(account, id, time, type, instance, payload, "
                               "source_file, source_line, status, seq) VALUES(?, ?, ?, ?, ?, ?, "
                               "?, ?, 'applied', ?)"),
        find_event_(db,
                    "SELECT payload, source_file, source_line FROM event WHERE account = ? AND "
                    "id = ?"),
        account_event_ids_(db, "SELECT id FROM event WHERE account = ?"),
        reject_event_(db, "UPDATE event SET status = 'rejected' WHERE seq = ? AND account = ?"),
        insert_reject_(db,
                       "INSERT INTO reject(kind, source_file, source_line, account, event_id, "
                       "time, field, reason, raw, source_path) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, "
                       "?)"),
        insert_numbered_reject_(db,
                                "INSERT INTO reject(kind, source_file, source_line, account, "
                                "event_id, time, field, reason, raw, source_path, id) VALUES(?, ?, "
                                "?, ?, ?, ?, ?, ?, ?, ?, ?)"),
        find_reject_(db,
                     "SELECT 1 FROM reject WHERE kind = ? AND source_path = ? AND "
                     "source_line = ? AND raw = ? LIMIT 1"),
        load_account_(db, "SELECT clock, state FROM account_state WHERE account = ?"),
        save_account_(db,
                      "INSERT INTO account_state(account, clock, state) VALUES(?, ?, ?) "
                      "ON CONFLICT(account) DO UPDATE SET clock = excluded.clock, "
                      "state = excluded.state") {
    for (const auto& p : catalog.data().prices) {
      const Seconds from = replay::to_seconds(p.period.from);
      earliest_ = std::min(earliest_.value_or(from), from);
    }
  }

  void replay_file(const std::string& path) {
    read_file(path, [&](const UsageEvent& ev, std::int64_t line, const std::string& raw) {
      apply(ev, path, line, raw);
    });
  }

  // Reads a log file, hands each event that passes the guards to `on_event(ev, line, raw)` and
  // quarantines (or, without skip_invalid, throws for) the others; replay_file applies them, a
  // replay with workers (replay_workers.cpp) collects them by account. Sets the canonical path
  // of the file, which rejects name.
  template <typename OnEvent>
  void read_file(const std::string& path, OnEvent&& on_event) {
    UsageEvent ev;
    EventReader reader(path);
    std::error_code ec;
    canonical_path_ = std::filesystem::weakly_canonical(std::filesystem::absolute(path), ec);
    if (ec) canonical_path_ = path;
    while (true) {
      const auto status = reader.next(ev);
      if (status == EventReader::Status::end) break;
      ++report.events_read;
      if (options_.progress && report.events_read % kProgressEvery == 0) {
        report_bytes(bytes_done + reader.bytes_read());
      }
      if (status == EventReader::Status::malformed) {
        // Nothing is applied: the whole replay is one transaction, rolled back by the throw.
        if (!options_.skip_invalid) throw reader.error();
        quarantine(reader.path(), reader.line_number(), reader.line_text(), reader.error());
        continue;
      }
      if (auto why = implausible_time(ev.time)) {
        InputError e(path, "line " + std::to_string(reader.line_number()), "time", *why);
        if (!options_.skip_invalid) throw e;
        quarantine(path, reader.line_number(), reader.line_text(), e);
        continue;
      }
      on_event(ev, reader.line_number(), reader.line_text());
    }
    bytes_done += reader.bytes_read();
  }

  const std::string& canonical_path() const noexcept { return canonical_path_; }

  // Keeps the latest event time seen (the end of the replay; apply does it for the events it
  // applies).
  void note_event(const UsageEvent& ev, const std::string& file, std::int64_t line) {
    note_latest(replay::to_seconds(ev.time), file, line);
  }

  // Replay progress (ReplayOptions::progress): bytes of the files read so far (replay_file adds
  // each), and of all the files (replay.cpp sets it from their sizes).
  std::uint64_t bytes_done = 0, bytes_total = 0;
  void report_bytes(std::uint64_t done) {
    bytes_total = std::max(bytes_total, done);  // a file that grew while being read
    options_.progress({"replay", done, bytes_total, "bytes", report.events_read, "events"});
  }

  // The clock a replay ends at and what moved it there, for the message of a settlement step
  // that is too long: the replay clock of earlier replays, the latest event seen, --until.
  struct EndClock {
    std::optional<Seconds> clock;
    std::string cause;
  };
  EndClock end_clock() {
    EndClock end;
    {
      store::Statement q(db_, "SELECT clock FROM replay_clock WHERE one = 1");
      if (q.executeStep()) end.clock = q.getColumn(0).getInt64();
    }
    auto& clock = end.clock;
    end.cause = "the replay clock of an earlier replay";
    if (max_seen_) {
      if (!clock || *max_seen_ > *clock) end.cause = "the latest event, " + max_seen_where_;
      clock = std::max(clock.value_or(*max_seen_), *max_seen_);
    }
    if (options_.until) {
      const Seconds until = replay::to_seconds(*options_.until);
      if (!clock || until > *clock) end.cause = "--until";
      clock = std::max(clock.value_or(until), until);
    }
    return end;
  }

  void finish() {
    const EndClock end = end_clock();
    if (end.clock) settle_loaded(*end.clock, end.cause);
    finish_run(end);
  }

  // The end of a replay but the settlement of the accounts this driver loaded: the accounts of
  // earlier replays that had no events now (but those in `skip`) settled up to the clock, the
  // replay clock and the run. A replay with workers runs it once, after them.
  void finish_run(const EndClock& end, const std::unordered_set<std::string>& skip = {}) {
    if (const auto& clock = end.clock) {
      const std::string& cause = end.cause;
      // Accounts of earlier replays that had no events now.
      std::vector<std::string> idle;
      {
        store::Statement q(db_,
                           "SELECT account FROM account_state WHERE clock < ? ORDER BY account");
        q.bind(1, static_cast<int64_t>(*clock));
        while (q.executeStep()) idle.push_back(q.getColumn(0).getString());
      }
      for (const auto& name : idle) {
        if (accounts_.count(name) || skip.count(name)) continue;
        auto a = load(name);
        check_step(*a, *clock, cause, "", "");
        close_account(*a, *clock);
      }
      set_replay_clock(*clock);
    }
    // The run, so that a rebuild settles at the same points (migration 0006); not when it
    // repeats the last run (no new event and the same --until): a replay of a log already
    // replayed changes nothing.
    store::Statement run(db_,
                         "INSERT INTO replay_run(last_seq, until) SELECT m, CAST(?1 AS INTEGER) "
                         "FROM (SELECT coalesce(max(seq), 0) AS m FROM event) AS latest WHERE NOT "
                         "EXISTS (SELECT 1 FROM replay_run r WHERE r.id = (SELECT max(id) FROM "
                         "replay_run) AND r.last_seq = m AND (?1 IS NULL OR r.until IS ?1))");
    if (options_.until) {
      run.bind(1, static_cast<int64_t>(replay::to_seconds(*options_.until)));
    } else {
      run.bind(1);
    }
    run.exec();
    report.charge_rows = sim_.charge_rows;
    report.settlements = sim_.settlements;
  }

  // ---- a replay with workers (replay_workers.cpp) ----

  // One event of the log as read, for a worker to parse again and apply later: its line, and
  // when that is not JSON (CSV) the event as JSON (a parsed UsageEvent kept instead took 750
  // bytes an event, 370 MB for a 10,000-instance 30-day log).
  struct LoggedEvent {
    std::string raw;
    std::string json;  // empty: `raw` is the event's JSON
    std::int64_t line = 0;
    std::uint32_t file = 0;  // index into the replay's files
    Position position = 0;   // among the lines read (position_of_last_line)
  };
  struct LogFile {
    std::string path, canonical;
  };

  // Applies the events of one account (all of them from the log, in log order) and settles it
  // up to the replay's end, as replay_file and finish would; inside the account's transaction,
  // which the caller holds. The account is then forgotten: the next transaction loads it again.
  // Returns whether an event loaded the account (one not a duplicate).
  bool replay_account(const std::string& name, const std::vector<LoggedEvent>& events,
                      const std::vector<LogFile>& files, const EndClock& end) {
    if (numbering_.counting()) {
      counted_ids_.clear();
      counted_payloads_.clear();
      stored_ids_loaded_ = false;
    }
    for (const auto& e : events) {
      const LogFile& f = files[e.file];
      canonical_path_ = f.canonical;
      numbering_.at(e.position);
      apply(parse_event_json(e.json.empty() ? e.raw : e.json, f.path, e.line), f.path, e.line,
            e.raw);
    }
    const bool loaded = accounts_.count(name) > 0;
    numbering_.at(kSettlePosition);
    if (end.clock) {
      auto it = accounts_.find(name);
      std::unique_ptr<replay::Account> idle;
      replay::Account* a = it != accounts_.end() ? it->second.get() : nullptr;
      if (a == nullptr) {  // every event a duplicate: settled as an idle account would be
        idle = load(name);
        if (idle && idle->clock < *end.clock) a = idle.get();
      }
      if (a != nullptr) {
        check_step(*a, *end.clock, end.cause, "", "");
        close_account(*a, *end.clock);
      }
    }
    accounts_.erase(name);
    return loaded;
  }

  // The position of the last line read_file read (an event's, or a quarantined line's).
  Position position_of_last_line() const noexcept {
    return static_cast<Position>(report.events_read - 1);
  }

  // Where the rows' numbers come from: a count (the first pass), a plan, or the database
  // (nullptr for both). The counts are by position, the positions of one writer increasing.
  void count_rows(std::vector<PositionRows>* counts) { numbering_.count(counts); }
  void number_rows(const PlannedIds* plan) {
    if (plan) {
      numbering_.use(plan);
    } else {
      numbering_.off();
    }
  }
  // Throws PlanMismatch unless the rows written took every number of the plan.
  void check_plan_taken() const { numbering_.check_all_taken(); }

  // What an account's attempt adds to the report, to take back when it is rolled back.
  struct Counters {
    ReplayReport report;
    std::int64_t charge_rows, settlements;
  };
  Counters counters() const { return {report, sim_.charge_rows, sim_.settlements}; }
  void restore(const Counters& c) {
    report = c.report;
    sim_.charge_rows = c.charge_rows;
    sim_.settlements = c.settlements;
  }

  // Forgets an account whose transaction was rolled back.
  void forget_account(const std::string& name) { accounts_.erase(name); }

  // Collects the quarantined lines instead of writing them (a replay with workers reads the
  // logs before any transaction; write_deferred_rejects writes them in the last one, again
  // should that transaction be rolled back and tried again).
  void defer_rejects() { defer_rejects_ = true; }
  void write_deferred_rejects() {
    defer_rejects_ = false;
    for (const auto& d : deferred_) {
      canonical_path_ = d.canonical;
      quarantine_now(d.path, d.line, d.raw, d.error);
    }
  }
  // The first pass over the deferred lines: their rejects counted by position, none written.
  void count_deferred_rejects(std::vector<PositionRows>* counts) {
    numbering_.count(counts);
    counted_rejects_.clear();
    for (const auto& d : deferred_) {
      canonical_path_ = d.canonical;
      numbering_.at(d.position);
      quarantine_now(d.path, d.line, d.raw, d.error);
    }
    numbering_.off();
  }
  // The deferred lines, for the hash of the log (line and text).
  template <typename F>
  void for_each_deferred(F&& f) const {
    for (const auto& d : deferred_) f(d.line, d.raw);
  }

  // ---- rebuilding accounts from their stored events (replay_rebuild.cpp) ----

  // Applies a stored event again, as the replay that stored it did.
  void reapply(std::int64_t seq, const std::string& payload, const std::string& file,
               std::int64_t line, const std::string& raw) {
    const UsageEvent ev = parse_event_json(payload, file, line);
    ++report.events_read;
    note_latest(replay::to_seconds(ev.time), file, line);
    canonical_path_ = file;
    evaluate(ev, seq, file, line, raw);
  }

  // Settles every account this driver has loaded up to `clock` (a replay's end).
  void settle_loaded(Seconds clock, const std::string& cause) {
    std::vector<std::string> names;
    names.reserve(accounts_.size());
    for (const auto& [name, a] : accounts_) names.push_back(name);
    std::sort(names.begin(), names.end());
    for (const auto& name : names) {
      replay::Account& a = *accounts_.at(name);
      check_step(a, clock, cause, "", "");
      close_account(a, clock);  // also saves the state of an account already there
    }
  }

  std::int64_t charge_rows() const noexcept { return sim_.charge_rows; }
  std::int64_t settlements() const noexcept { return sim_.settlements; }

  void set_replay_clock(Seconds clock) {
    store::Statement q(db_,
                       "INSERT INTO replay_clock(one, clock) VALUES(1, ?) ON CONFLICT(one) DO "
                       "UPDATE SET clock = excluded.clock");
    q.bind(1, static_cast<int64_t>(clock));
    q.exec();
    report.clock = replay::to_instant(clock);
  }

  ReplayReport report;

 private:
  void apply(const UsageEvent& ev, const std::string& path, std::int64_t line,
             const std::string& raw) {
    const Seconds t = replay::to_seconds(ev.time);
    note_latest(t, path, line);
    payload_ = to_json(ev);
    if (numbering_.counting()) [[unlikely]] {
      count_event(ev, path, line, raw);
      return;
    }
    const std::string type(to_string(ev.type));
    if (PgBatch* batch = sink_.batch()) [[unlikely]] {  // PostgreSQL: buffered (replay_sink.hpp)
      const auto seq =
          batch->insert_event(ev.account, ev.id, t, type, ev.instance, payload_, path, line);
      if (!seq) {
        duplicate(ev, path, line, raw);
        return;
      }
      evaluate(ev, *seq, path, line, raw);
      return;
    }
    if (numbering_.planned()) [[unlikely]] {
      apply_numbered(ev, t, type, path, line, raw);
      return;
    }
    bind_event(insert_event_.start(), ev, t, type, path, line);
    const auto seq = insert_event_.run();
    if (!seq) {
      duplicate(ev, path, line, raw);
      return;
    }
    evaluate(ev, *seq, path, line, raw);
  }

  // An event's columns, ?1 to ?8 of both inserts (account, id, time, type, instance, payload,
  // source file and line).
  void bind_event(store::Statement& q, const UsageEvent& ev, Seconds t, const std::string& type,
                  const std::string& path, std::int64_t line) {
    q.bindNoCopy(1, ev.account);
    q.bindNoCopy(2, ev.id);
    q.bind(3, static_cast<int64_t>(t));
    q.bindNoCopy(4, type);
    q.bindNoCopy(5, ev.instance);
    q.bindNoCopy(6, payload_);
    q.bindNoCopy(7, path);
    q.bind(8, static_cast<int64_t>(line));
  }

  // SQLite, rows numbered by a plan: the event stored with the plan's seq unless it is there
  // (a duplicate, which takes no number).
  void apply_numbered(const UsageEvent& ev, Seconds t, const std::string& type,
                      const std::string& path, std::int64_t line, const std::string& raw) {
    find_event_.reset();
    find_event_.bind(1, ev.account);
    find_event_.bind(2, ev.id);
    const bool stored = find_event_.executeStep();
    find_event_.reset();
    if (stored) {
      duplicate(ev, path, line, raw);
      return;
    }
    const std::int64_t seq = *numbering_.take(p_event);
    auto& q = insert_numbered_event_;
    q.reset();
    bind_event(q, ev, t, type, path, line);
    q.bind(9, static_cast<int64_t>(seq));
    q.exec();
    evaluate(ev, seq, path, line, raw);
  }

  // The first pass (counting): the event found new or a duplicate as `apply` would find it,
  // from the account's stored ids (read once) and the events of this pass, and run through the
  // rules; nothing written.
  void count_event(const UsageEvent& ev, const std::string& path, std::int64_t line,
                   const std::string& raw) {
    if (!stored_ids_loaded_) {
      stored_ids_loaded_ = true;
      account_event_ids_.reset();
      account_event_ids_.bind(1, ev.account);
      while (account_event_ids_.executeStep()) {
        counted_ids_.insert(account_event_ids_.getColumn(0).getString());
      }
      account_event_ids_.reset();
    }
    if (counted_ids_.count(ev.id)) {
      ++report.duplicates;
      std::string stored;
      if (auto it = counted_payloads_.find(ev.id); it != counted_payloads_.end()) {
        stored = it->second;
      } else {
        find_event_.reset();
        find_event_.bind(1, ev.account);
        find_event_.bind(2, ev.id);
        if (find_event_.executeStep()) stored = find_event_.getColumn(0).getString();
        find_event_.reset();
      }
      if (stored != payload_ && !reject_seen("duplicate", line, raw)) numbering_.take(p_reject);
      return;
    }
    counted_ids_.insert(ev.id);
    counted_payloads_.emplace(ev.id, payload_);
    evaluate(ev, *numbering_.take(p_event), path, line, raw);
  }

  // Runs a stored event through the rules: applied, or rejected with the reason.
  void evaluate(const UsageEvent& ev, std::int64_t seq, const std::string& path, std::int64_t line,
                const std::string& raw) {
    const Seconds t = replay::to_seconds(ev.time);
    replay::Account& a = account(ev.account, t);
    std::optional<std::string> reason;
    if (t < a.clock) {
      reason = "earlier than hours already settled for account " + ev.account + " (clock " +
               format_instant(replay::to_instant(a.clock)) + "); usage logs must be in time order";
    } else {
      check_step(a, t, path, "line " + std::to_string(line), "time");
      a.advance_to(sim_, t);
      reason = a.apply(sim_, ev, seq);
    }
    if (!reason) {
      ++report.applied;
      return;
    }
    ++report.rejected;
    if (!numbering_.counting()) {
      reject_event_.reset();
      reject_event_.bind(1, static_cast<int64_t>(seq));
      reject_event_.bindNoCopy(2, ev.account);
      reject_event_.exec();
    }
    add_reject("rule", path, line, ev.account, ev.id, t, "", *reason, raw);
  }

  void duplicate(const UsageEvent& ev, const std::string& path, std::int64_t line,
                 const std::string& raw) {
    ++report.duplicates;
    auto& q = find_event_;
    q.reset();
    q.bind(1, ev.account);
    q.bind(2, ev.id);
    if (!q.executeStep()) return;
    const std::string stored = q.getColumn(0).getString();
    if (stored == payload_) return;  // the same event again: idempotent, nothing to say
    const std::string where =
        q.getColumn(1).getString() + ":" + std::to_string(q.getColumn(2).getInt64());
    q.reset();
    if (reject_seen("duplicate", line, raw)) return;
    add_reject("duplicate", path, line, ev.account, ev.id, replay::to_seconds(ev.time), "id",
               "id '" + ev.id + "' of account " + ev.account +
                   " was already used for a different event (" + where + "); not applied",
               raw);
  }

  void quarantine(const std::string& path, std::int64_t line, const std::string& raw,
                  const InputError& e) {
    ++report.malformed_skipped;
    if (defer_rejects_) {
      deferred_.push_back({path, canonical_path_, line, raw, e, position_of_last_line()});
      return;
    }
    quarantine_now(path, line, raw, e);
  }

  void quarantine_now(const std::string& path, std::int64_t line, const std::string& raw,
                      const InputError& e) {
    if (reject_seen("malformed", line, raw)) return;
    add_reject("malformed", path, line, "", "", std::nullopt, e.field(), e.reason(), raw);
  }

  // Keeps the latest event time seen and where it was, for the message of a long settlement.
  void note_latest(Seconds t, const std::string& file, std::int64_t line) {
    if (!max_seen_ || t > *max_seen_) {
      max_seen_ = t;
      max_seen_where_ = file + ":" + std::to_string(line);
    }
  }

  // Why an event time cannot be right, if it cannot.
  std::optional<std::string> implausible_time(Instant time) const {
    const Seconds t = replay::to_seconds(time);
    if (earliest_ && t < *earliest_) {
      return format_instant(time) + " is before the catalog's first price (" +
             format_instant(replay::to_instant(*earliest_)) +
             "): nothing could be billed then; check the year";
    }
    if (options_.not_after && time > *options_.not_after) {
      return later_than_allowed(time, *options_.not_after) + "; check the year";
    }
    return std::nullopt;
  }

  // Refuses to settle an account with open-ended billing for longer than the limit in one step:
  // `file`,
  // `place` and `field` name what asked for it (an event's line, or --until).
  void check_step(const replay::Account& a, Seconds to, const std::string& file,
                  const std::string& place, const std::string& field) const {
    if (options_.allow_long_settlement || to <= a.clock) return;
    const Seconds limit = options_.max_settlement_step.count();
    if (to - a.clock <= limit) return;
    // Only what can bill without end: a pay-as-you-go or spot instance (its disks bill while it
    // is stopped) or an auto-renewed prepaid one. A prepaid instance without auto-renewal ends
    // in the recycle bin and is destroyed, whatever the gap.
    std::size_t open_ended = 0;
    for (const auto& [id, inst] : a.instances) {
      if (inst->state == replay::State::destroyed || inst->state == replay::State::recycle_bin) {
        continue;
      }
      if (inst->mode == BillingMode::prepaid && !inst->auto_renew) continue;
      ++open_ended;
    }
    if (open_ended == 0) return;
    constexpr Seconds kDay = 86'400;
    throw InputError(file, place, field,
                     "would settle account " + a.name + " (" + std::to_string(open_ended) +
                         " instance" + (open_ended == 1 ? "" : "s") +
                         " billed until stopped) for " + std::to_string((to - a.clock) / kDay) +
                         " days in one step, from " + format_instant(replay::to_instant(a.clock)) +
                         " to " + format_instant(replay::to_instant(to)) + "; the limit is " +
                         std::to_string(limit / kDay) +
                         " days: check the date, or pass --allow-long-settlement");
  }

  // Whether this line of the file being read (compared by its canonical path, whatever its
  // spelling) was recorded as a reject of this kind before.
  bool reject_exists(const char* kind, std::int64_t line, const std::string& raw) {
    auto& q = find_reject_;
    q.reset();
    q.bind(1, kind);
    q.bind(2, canonical_path_);
    q.bind(3, static_cast<int64_t>(line));
    q.bind(4, raw);
    const bool found = q.executeStep();
    q.reset();
    return found;
  }

  // reject_exists, or counting, whether the first pass counted it already.
  bool reject_seen(const char* kind, std::int64_t line, const std::string& raw) {
    if (reject_exists(kind, line, raw)) return true;
    if (!numbering_.counting()) return false;
    return !counted_rejects_
                .insert(std::string(kind) + '\n' + canonical_path_ + '\n' + std::to_string(line) +
                        '\n' + raw)
                .second;
  }

  void add_reject(const char* kind, const std::string& path, std::int64_t line,
                  const std::string& account, const std::string& event_id,
                  std::optional<Seconds> time, const std::string& field, const std::string& reason,
                  const std::string& raw) {
    const auto id = numbering_.take(p_reject);
    if (numbering_.counting()) return;
    auto& q = id ? insert_numbered_reject_ : insert_reject_;
    q.reset();
    if (id) q.bind(11, static_cast<int64_t>(*id));
    q.bind(1, kind);
    q.bind(2, path);
    q.bind(3, static_cast<int64_t>(line));
    q.bind(4, account);
    q.bind(5, event_id);
    if (time) {
      q.bind(6, static_cast<int64_t>(*time));
    } else {
      q.bind(6);
    }
    q.bind(7, field);
    q.bind(8, reason);
    q.bind(9, raw);
    q.bind(10, canonical_path_);
    q.exec();
  }

  std::unique_ptr<replay::Account> load(const std::string& name) {
    auto& q = load_account_;
    q.reset();
    q.bind(1, name);
    if (!q.executeStep()) return nullptr;
    const Seconds clock = q.getColumn(0).getInt64();
    const std::string state = q.getColumn(1).getString();
    q.reset();
    return replay::Account::load(name, clock, state);
  }

  replay::Account& account(const std::string& name, Seconds t) {
    auto it = accounts_.find(name);
    if (it != accounts_.end()) return *it->second;
    auto a = load(name);
    if (!a) {
      a = std::make_unique<replay::Account>();
      a->name = name;
      a->clock = t;
    }
    return *accounts_.emplace(name, std::move(a)).first->second;
  }

  void close_account(replay::Account& a, Seconds clock) {
    a.advance_to(sim_, clock);
    a.write_open_runs(sim_);
    if (numbering_.counting()) return;
    const std::string state = a.save();
    auto& q = save_account_;
    q.reset();
    q.bind(1, a.name);
    q.bind(2, static_cast<int64_t>(a.clock));
    q.bindNoCopy(3, state);
    q.exec();
  }

  store::Connection& db_;
  ReplayOptions options_;
  RowNumbering numbering_;
  SqlSink sink_;
  CountingSink counting_sink_;
  replay::Sim sim_;
  IdInsert insert_event_;
  store::Statement insert_numbered_event_, find_event_, account_event_ids_, reject_event_,
      insert_reject_, insert_numbered_reject_, find_reject_, load_account_, save_account_;
  // The first pass: the account's event ids stored and counted, the payloads of those counted,
  // the rejects counted (kind, path, line, text).
  std::unordered_set<std::string> counted_ids_;
  std::unordered_map<std::string, std::string> counted_payloads_;
  std::unordered_set<std::string> counted_rejects_;
  bool stored_ids_loaded_ = false;
  std::unordered_map<std::string, std::unique_ptr<replay::Account>> accounts_;
  std::optional<Seconds> max_seen_;
  std::string max_seen_where_;       // file:line of the latest event
  std::optional<Seconds> earliest_;  // the catalog's first price
  std::string payload_;
  std::string canonical_path_;  // of the file being read
  struct DeferredReject {
    std::string path, canonical;
    std::int64_t line;
    std::string raw;
    InputError error;
    Position position;
  };
  bool defer_rejects_ = false;
  std::vector<DeferredReject> deferred_;
};

}  // namespace gpubill::replay_detail
