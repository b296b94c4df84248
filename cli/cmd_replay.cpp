// gpubill replay | instances: replaying usage logs into bills, and the instances' state history.
#include <chrono>
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "gpubill/base/errors.hpp"
#include "gpubill/replay/replay.hpp"
#include "output.hpp"
#include "progress_bar.hpp"

namespace gpubill::cli {

namespace {

// The guards' options, shared by replay, rebuild and void.
struct GuardArgs {
  bool allow_long_settlement = false;
  int future_margin_days = 1;
  bool quiet = false;  // no progress bar
};

void add_guard_options(CLI::App& sub, GuardArgs& g) {
  sub.add_flag("--allow-long-settlement", g.allow_long_settlement,
               "Settle an account with instances for more than 400 days in one step (almost "
               "always a wrong date)");
  sub.add_option("--future-margin-days", g.future_margin_days,
                 "Refuse event times and --until later than now plus this many days")
      ->check(count_flag(0, 36'500))
      ->default_val(1);
  add_quiet_option(sub, g.quiet);
}

// The one place that reads the wall clock: times after now (plus a margin) are typos.
Instant not_after(const GuardArgs& g) {
  return std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()) +
         std::chrono::days{g.future_margin_days};
}

struct ReplayArgs {
  std::vector<std::string> logs;
  bool skip_invalid = false;
  std::int64_t cache_mib = kDefaultReplayCacheKiB / 1024;
  std::optional<std::string> until;
  int workers = 1;
  GuardArgs guards;
  Format format = Format::table;
};

int run_replay(const Globals& globals, const ReplayArgs& args) {
  auto db = globals.open_database(Access::write);
  ReplayOptions options;
  options.skip_invalid = args.skip_invalid;
  options.until = instant_flag("--until", args.until);
  options.not_after = not_after(args.guards);
  options.allow_long_settlement = args.guards.allow_long_settlement;
  options.page_cache_kib = args.cache_mib * 1024;
  options.workers = args.workers;
  ProgressBar bar(args.guards.quiet);
  options.progress = bar.sink();
  const ReplayReport r = replay_logs(db, args.logs, options);
  bar.finish();
  constexpr Kind count = Kind::integer;
  Table t = record_table({{"events_read", std::to_string(r.events_read), count},
                          {"applied", std::to_string(r.applied), count},
                          {"duplicates", std::to_string(r.duplicates), count},
                          {"rejected", std::to_string(r.rejected), count},
                          {"malformed_skipped", std::to_string(r.malformed_skipped), count},
                          {"charge_rows", std::to_string(r.charge_rows), count},
                          {"settlements", std::to_string(r.settlements), count},
                          {"clock", r.clock ? format_instant(*r.clock) : ""}});
  t.columns[1].right_align = true;
  write_table(std::cout, t, args.format);
  const std::int64_t refused = r.rejected + r.malformed_skipped;
  if (args.format == Format::table && refused > 0) {
    std::cout << "\nSome lines were not applied: see `gpubill rejects`.\n";
  }
  if (r.applied == 0 && refused > 0) {
    // Not one event went in: a wrong file or a wrong catalog, not a bill to trust.
    std::cerr << "gpubill: none of the " << r.events_read << " events was applied (" << r.rejected
              << " rejected by the rules, " << r.malformed_skipped
              << " malformed); see `gpubill rejects`\n";
    return kExitError;
  }
  return 0;
}

struct RebuildArgs {
  std::vector<std::string> accounts;
  std::optional<std::string> until;
  GuardArgs guards;
  Format format = Format::table;
  // gpubill void
  std::string account, reason;
  std::vector<std::string> event_ids;
};

RebuildOptions rebuild_options(const RebuildArgs& args, ProgressBar& bar) {
  RebuildOptions o;
  o.progress = bar.sink();
  o.accounts = args.accounts;
  o.until = instant_flag("--until", args.until);
  o.not_after = not_after(args.guards);
  o.allow_long_settlement = args.guards.allow_long_settlement;
  return o;
}

int print_rebuild(const RebuildReport& r, Format format) {
  constexpr Kind count = Kind::integer;
  Table t = record_table({{"accounts", join(r.accounts, " ")},
                          {"events_reapplied", std::to_string(r.replay.events_read), count},
                          {"applied", std::to_string(r.replay.applied), count},
                          {"rejected", std::to_string(r.replay.rejected), count},
                          {"void_events", std::to_string(r.void_events), count},
                          {"charge_rows", std::to_string(r.replay.charge_rows), count},
                          {"settlements", std::to_string(r.replay.settlements), count},
                          {"clock_before", r.clock_before ? format_instant(*r.clock_before) : ""},
                          {"clock", r.replay.clock ? format_instant(*r.replay.clock) : ""},
                          {"lines_moved", std::to_string(r.moved.size()), count}});
  t.columns[1].right_align = true;
  write_table(std::cout, t, format);
  if (format == Format::table && !r.moved.empty()) {
    // Re-pricing the past: every line whose billed total changed, appeared or went away.
    std::cout << "\nlines moved (billed total before → after):\n";
    const auto total = [](const std::optional<Money>& m) {
      return m ? m->amount().to_string() + " " + m->currency().to_string() : std::string("none");
    };
    for (const MovedLine& m : r.moved) {
      std::cout << "  " << m.account << " " << (m.instance.empty() ? "-" : m.instance) << " "
                << m.component << " " << m.kind << " " << format_instant(m.period_start) << " … "
                << format_instant(m.period_end) << ": " << total(m.before) << " → "
                << total(m.after) << "\n";
    }
  }
  return 0;
}

struct InstancesArgs {
  std::string account, instance;
  bool current = false;
  Format format = Format::table;
};

int run_instances(const Globals& globals, const InstancesArgs& args) {
  auto db = globals.open_database(Access::read);
  InstanceStateFilter filter;
  if (!args.account.empty()) {
    check_account(db, args.account);
    filter.account = args.account;
  }
  if (!args.instance.empty()) filter.instance = args.instance;
  filter.current = args.current;
  Document doc(std::cout, args.format, Document::Shape::listing);
  doc.begin_rows(
      "rows", {{"account"}, {"instance"}, {"at"}, {"state"}, {"reason"}, int_column("event_seq")});
  for_each_instance_state(db, filter, [&](const InstanceStateRow& r) {
    doc.row({r.account, r.instance, format_instant(r.at), r.state, r.reason,
             r.event_seq ? std::to_string(*r.event_seq) : ""});
  });
  doc.end_rows();
  doc.finish();
  return 0;
}

}  // namespace

void add_replay_commands(CLI::App& app, Globals& globals, Action& action) {
  {
    auto* sub = app.add_subcommand(
        "replay", "Replay usage logs (JSON Lines or CSV, docs/usage-log.md) into bills");
    auto args = std::make_shared<ReplayArgs>();
    sub->add_option("logs", args->logs, "Usage log files (.jsonl or .csv), in time order")
        ->required();
    sub->add_flag("--skip-invalid", args->skip_invalid,
                  "Quarantine malformed lines in the rejects table instead of stopping");
    sub->add_option("--until", args->until,
                    "Settle every account up to this instant (RFC 3339, or YYYY-MM-DD for 00:00 "
                    "UTC), e.g. a month end");
    add_guard_options(*sub, args->guards);
    sub->add_option("--cache-mib", args->cache_mib,
                    "Cap of the database page cache during the replay, in MiB (taken only as "
                    "needed; long logs replay faster with more)")
        ->check(count_flag(2, 65'536))
        ->default_val(kDefaultReplayCacheKiB / 1024);
    sub->add_option("--workers", args->workers,
                    "Replay the accounts by this many connections at once (PostgreSQL), each "
                    "account in a transaction of its own: above 1 the replay is atomic per "
                    "account, not as a whole; on SQLite one after another, in one transaction "
                    "(docs/postgresql.md)")
        ->check(count_flag(1, 256))
        ->default_val(1);
    add_format_option(*sub, args->format);
    add_db_option(*sub, globals);
    sub->callback([&globals, &action, args] {
      action = [&globals, args] { return run_replay(globals, *args); };
    });
  }
  {
    auto* sub = app.add_subcommand(
        "rebuild",
        "Recompute accounts' charges, movements and states from their stored events (after a "
        "void or a late price import)");
    auto args = std::make_shared<RebuildArgs>();
    sub->add_option("--account", args->accounts,
                    "Only this account (repeatable; default every account, and the replay clock "
                    "is recomputed)");
    sub->add_option("--until", args->until, "Settle up to at least this instant at the end");
    add_guard_options(*sub, args->guards);
    add_format_option(*sub, args->format);
    add_db_option(*sub, globals);
    sub->callback([&globals, &action, args] {
      action = [&globals, args] {
        auto db = globals.open_database(Access::write);
        ProgressBar bar(args->guards.quiet);
        const RebuildReport r = rebuild_accounts(db, rebuild_options(*args, bar));
        bar.finish();
        return print_rebuild(r, args->format);
      };
    });
  }
  {
    auto* sub = app.add_subcommand(
        "void",
        "Declare replayed events void (a wrong line of a log) and rebuild what they changed");
    auto args = std::make_shared<RebuildArgs>();
    sub->add_option("event_ids", args->event_ids, "Ids of the events to void")->required();
    sub->add_option("--account", args->account, "The events' account")->required();
    sub->add_option("--reason", args->reason, "Why they are void (kept with them)")->required();
    add_guard_options(*sub, args->guards);
    add_format_option(*sub, args->format);
    add_db_option(*sub, globals);
    sub->callback([&globals, &action, args] {
      action = [&globals, args] {
        auto db = globals.open_database(Access::write);
        ProgressBar bar(args->guards.quiet);
        const RebuildReport r = void_events(db, args->account, args->event_ids, args->reason,
                                            rebuild_options(*args, bar));
        bar.finish();
        return print_rebuild(r, args->format);
      };
    });
  }
  {
    auto* sub = app.add_subcommand("instances", "Instance state history written by replay");
    auto args = std::make_shared<InstancesArgs>();
    sub->add_option("--account", args->account, "Only this account");
    sub->add_option("--instance", args->instance, "Only this instance");
    sub->add_flag("--current", args->current, "Only each instance's latest state");
    add_format_option(*sub, args->format);
    add_db_option(*sub, globals);
    sub->callback([&globals, &action, args] {
      action = [&globals, args] { return run_instances(globals, *args); };
    });
  }
}

}  // namespace gpubill::cli
