// Private to the engine: the replay's discrete-event simulation of accounts (docs/usage-log.md,
// "How replay works"). Instants are UTC unix seconds (int64) inside the simulation.
//
// An account advances lazily: when one of its events arrives it is brought to the event's time
// (advance_to), processing everything time causes up to and including that instant — hourly
// settlements first, then timers (auto-renewal, expiry, arrears shutdown, reclaim, recycle-bin
// destruction) — and then the event is applied. At the end of a replay every account is brought
// to the replay clock and its state is saved (replay_state.cpp), so a log replayed in parts gives
// the same rows as the whole.
//
// Settlement runs: each meter (one priced component of an instance) keeps its last settlement
// row open in memory. A full-hour settlement identical to the open row's (same seconds, price row
// and amount, policy, events, instance type) and contiguous with it extends the row (repeat + 1)
// instead of writing a new one. When every live meter of an account is in such a steady state,
// a span of N hours up to the next thing that can change anything (an event, a timer, a price or
// policy change, a time-zone offset change, or the hour the balance crosses zero, found
// arithmetically) is settled in O(meters), not O(N × meters).
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "gpubill/base/time.hpp"
#include "gpubill/catalog/catalog.hpp"
#include "gpubill/replay/events.hpp"
#include "gpubill/rules/prepaid_lifecycle.hpp"
#include "gpubill/rules/rules.hpp"

namespace date {
class time_zone;
}

namespace gpubill::replay {

using Seconds = std::int64_t;
constexpr Seconds kHour = 3600;
constexpr Seconds kNever = std::numeric_limits<Seconds>::max();

inline Seconds to_seconds(Instant t) {
  return t.time_since_epoch().count();
}
inline Instant to_instant(Seconds s) {
  return Instant{std::chrono::seconds{s}};
}

// ---- rows written --------------------------------------------------------------------------

struct ChargeRow {
  std::string account, instance, provider, region, instance_type, component, kind, mode;
  Seconds period_start = 0, period_end = 0;
  std::int64_t repeat = 1;
  std::string quantity, unit;
  Decimal unit_price;
  std::string price_unit;
  Decimal exact, billed, rounding;  // per settlement
  int decimals = 2;                 // billed amounts are written with this many decimals
  Currency currency = Currency::parse("CNY");
  std::optional<std::int64_t> price_id, policy_id, discount_id;
  std::string event_seqs, note;
  std::optional<Decimal> effective;  // per settlement, when not `billed` (commitment rows)
};

struct MovementRow {
  std::string account;
  Seconds at = 0;
  Currency currency = Currency::parse("CNY");
  Decimal amount, balance_after;
  std::string kind;  // topup, charge, refund
  std::optional<std::int64_t> charge_id, event_seq;
};

struct StateRow {
  std::string account, instance;
  Seconds at = 0;
  std::string state, reason;
  std::int64_t event_seq = 0;  // 0 = caused by time
};

// Where the simulation's rows go (the store, replay_sink.hpp).
class Sink {
 public:
  virtual ~Sink() = default;
  virtual std::int64_t insert_charge(const ChargeRow& row) = 0;
  // Rewrites repeat, period_end and the totals of a row written earlier.
  virtual void update_charge(std::int64_t id, const ChargeRow& row) = 0;
  virtual std::int64_t insert_movement(const MovementRow& row) = 0;
  virtual void update_movement(std::int64_t id, const MovementRow& row) = 0;
  virtual void insert_state(const StateRow& row) = 0;
};

// ---- simulation state ------------------------------------------------------------------------

// preempted: a spot instance the provider stopped at the policy's spot_max_run_hours (Google's
// preemptible VMs after 24 h); it may be started again.
enum class State { running, stopped, arrears_stopped, recycle_bin, destroyed, preempted };
std::string_view to_string(State s) noexcept;
State parse_state(std::string_view s);

// What a meter's price row is.
enum class Source { instance, gpu, disk, bandwidth };

// Timer kinds, in the order they fire at one instant.
enum TimerKind : int {
  t_auto_renew = 0,
  t_expiry,
  t_arrears_shutdown,
  t_reclaim,
  t_recycle_destroy,
  t_spot_max_run,  // a spot instance's maximum run (policy spot_max_run_hours) ends
  kTimerKinds
};

// The open settlement row of a meter. Its hours are debited from the balance as movements in
// segments: a top-up, order or refund of the same currency first writes the hours settled so far
// as one movement (closing the segment), so that every movement's balance includes all the
// debits before it; the hours after that go into the next segment.
struct Run {
  std::int64_t row_id = 0, movement_id = 0;  // once written; movement_id: the open segment's
  bool dirty = false;                        // written, and extended since
  std::int64_t repeat = 0;                   // 0 = no open row
  std::int64_t debited = 0;                  // settlements in closed movement segments
  Seconds start = 0, end = 0;
  bool full_hour = false;
  std::int64_t quantity = 0;  // metered seconds × multiplier, per settlement
  Decimal unit_price;
  std::int64_t price_id = 0, policy_id = 0;
  Decimal exact, billed, rounding;  // per settlement
  int decimals = 2;
  std::vector<std::int64_t> seqs;
  std::string instance_type, note;
  Decimal balance_after;
  Seconds settled_at = 0;  // the hour end of its latest settlement (not saved)
};

struct Instance;

struct Balance {
  Decimal amount;
  bool funded = false;  // topped up at least once: arrears rules apply
  std::optional<Seconds> negative_since;
};

struct ProviderInfo {
  const Provider* provider = nullptr;
  std::optional<Calendar> calendar;
  const date::time_zone* zone = nullptr;
  // The UTC offset is constant in [offset_from, offset_until): hours are 3600 s apart there.
  Seconds offset_from = 0, offset_until = 0;
};

// One priced, hourly-settled component of a pay-as-you-go or spot instance.
struct Meter {
  Instance* owner = nullptr;
  std::string component;  // compute, system_disk, data_disk, bandwidth
  Source source = Source::instance;
  std::string subject;          // instance type, GPU model, disk kind or bandwidth kind
  std::int64_t multiplier = 1;  // GPUs, GB or Mbps
  std::string unit;             // second, gpu_second, gb_second, mbps_second
  bool retired = false;         // replaced (resize) or its instance destroyed: settle and drop
  bool active = false;
  Seconds active_since = 0, run_started = 0;
  std::int64_t active_seq = 0;
  // The open (not yet settled) hour; hour_end == 0: none.
  Seconds hour_end = 0, first_use = 0, last_use = 0;
  std::int64_t used = 0, extra = 0;
  std::vector<std::int64_t> seqs;
  std::string note;
  Run run;
  // The open settlement cycle when the policy settles this resource per day or month
  // (cycle_end == 0: none): its hourly usage records are exact and add up to cycle_exact, which
  // is rounded once when the cycle ends. A stopped meter stays listed until then, waiting
  // (hour_end = cycle_end, no open hour).
  Seconds cycle_start = 0, cycle_end = 0;
  Decimal cycle_exact;
  bool waiting_cycle = false;
  // Under usage_rounding down_carry: what the meter's last record cut below settlement_decimals,
  // charged with its next record (rules::settle_carried). Saved with the state, so a log
  // replayed in two parts bills as it does whole; left uncharged when the meter is dropped.
  Decimal carry;
  // A spot compute meter's records settled since its instance's launch while the policy's
  // spot_interrupted_free_seconds had not passed: what an interruption in that window credits
  // back (exact and billed sums). Saved with the state.
  Decimal free_exact, free_billed;
  // Not saved: caches and list membership.
  bool listed = false;
  const PriceRow* price = nullptr;
  const ResourcePriceRow* resource = nullptr;
  const BillingPolicy* policy = nullptr;
  Seconds cache_from = kNever, cache_until = kNever;
};

struct Instance {
  std::string id;
  std::int64_t index = 0;  // unique within the account, for timers
  std::string provider, region, type, family;
  BillingMode mode = BillingMode::payg;
  Currency currency = Currency::parse("CNY");
  State state = State::running;
  Seconds created_at = 0, destroyed_at = 0;
  std::int64_t create_seq = 0, destroy_seq = 0;
  int gpus = 0;
  std::string gpu_model;
  std::vector<std::unique_ptr<Meter>> meters;
  Decimal lifetime_billed;
  // Prepaid.
  Seconds expiry = 0, purchased_at = 0;
  bool auto_renew = false;
  std::int64_t auto_renew_seq = 0;
  Decimal paid, monthly, factor;
  std::array<Seconds, kTimerKinds> timers{};  // 0 = not set
  ProviderInfo* pinfo = nullptr;              // cache, not saved
  Balance* bal = nullptr;                     // cache of the account's balance in `currency`
};

// Sustained use of one kind of resource (an instance type, or a GPU model: unit second or
// gpu_second) in one region and calendar month, where the policy has sustained_use_tiers: its
// metered seconds per hour, for the month's credit (rules::sustained_use_credit).
struct SustainedGroup {
  std::string provider, region, subject, unit;
  Currency currency = Currency::parse("USD");
  Seconds month_start = 0, month_end = 0;
  std::map<Seconds, rules::UsageHour> hours;  // by hour end
  std::int64_t price_id = 0, policy_id = 0;   // of the latest hour
};
// Its key in Account::sustained.
inline std::string sustained_key(const SustainedGroup& g) {
  return g.provider + '\x1f' + g.region + '\x1f' + g.unit + '\x1f' + g.subject + '\x1f' +
         std::to_string(g.month_start);
}

// A commitment the account bought (a commit event; replay_sim_commit.cpp): AWS reserved
// instances and Google committed use discounts, applied at each clock hour's end to the
// pay-as-you-go usage of that hour, up to count × 3600 s (× the normalization factor).
struct Commitment {
  std::string id;           // the commit event's id
  std::int64_t seq = 0;     // the commit event
  std::int64_t row_id = 0;  // its commitment_price row
  std::string provider, region, subject, family;
  bool per_gpu = false;     // a GPU committed per GPU (Google), else an instance type
  bool flexible = false;    // a regional RI applied across sizes of its family
  std::int64_t weight = 4;  // quarter normalized units per second of one unit
  std::int64_t count = 1;
  Seconds start = 0, end = 0;  // [start, end): term_months of 365-day years
  int term_months = 12;
  std::string program, offering_class, payment;
  Currency currency = Currency::parse("USD");
  Decimal upfront, hourly;  // per unit
  Seconds next_hour = 0;    // the next hour end to apply at
  std::string source;       // the row's source (for notes)
  // A savings plan (program "savings_plan", replay_sim_savings.cpp): "compute" or
  // "ec2_instance"; its hourly commitment (in currency); when it was bought (its rates are the
  // catalog's savings_plan rows in force then). count is 1; upfront is the term's commitment for
  // all upfront, hourly the commitment for no upfront; row_id the first rate row found.
  std::string plan;
  Decimal amount;
  Seconds bought = 0;
  bool savings_plan() const noexcept { return !plan.empty(); }
};

class Sim;

class Account {
 public:
  std::string name;
  Seconds clock = 0;
  std::int64_t next_index = 1;
  std::map<std::string, Balance> balances;  // by currency code
  std::unordered_map<std::string, std::unique_ptr<Instance>> instances;
  // Open sustained-use months, by provider, region, unit, subject and month start.
  std::map<std::string, SustainedGroup> sustained;
  // No-reason returns made, by provider and calendar year ("tencent|2019") or "provider|life".
  std::map<std::string, int> no_reason_returns;
  // Commitments bought, in purchase order (replay_sim_commit.cpp).
  std::vector<Commitment> commitments;

  // Rebuilds the indexes (live meters, timers, instance numbers) after loading.
  void rebuild();
  // Processes everything time causes up to and including t.
  void advance_to(Sim& sim, Seconds t);
  // Applies an event at its time (advance_to it first). Returns the reason when the rules
  // forbid it; then nothing was changed.
  std::optional<std::string> apply(Sim& sim, const UsageEvent& ev, std::int64_t seq);
  // Writes every open run (insert or update) and keeps it open; for saving the state.
  void write_open_runs(Sim& sim);
  // Writes the open segments of the runs in currency c as movements and closes them: called
  // before any other movement of c, so that its balance_after follows from the movements before.
  void close_debits(Sim& sim, Currency c);

  // Saved state as JSON text, and back (replay_state.cpp).
  std::string save() const;
  static std::unique_ptr<Account> load(const std::string& name, Seconds clock,
                                       const std::string& json);

 private:
  friend class Sim;
  std::unordered_map<std::int64_t, Instance*> by_index_;
  std::set<std::tuple<Seconds, int, std::int64_t>> timers_;
  std::vector<Meter*> live_;  // meters with an open hour
  Seconds next_hour_end_ = kNever;

  // events
  std::optional<std::string> topup(Sim&, const UsageEvent&, std::int64_t seq);
  std::optional<std::string> create(Sim&, const UsageEvent&, std::int64_t seq);
  // create's prepaid order: the instance's term, its order charge and its timers.
  void order_prepaid(Sim&, Instance& inst, const UsageEvent& ev, Seconds t, std::int64_t seq,
                     const rules::PrepaidOrder& order, const PriceRow& price,
                     const BillingPolicy& policy);
  std::optional<std::string> start(Sim&, Instance&, Seconds t, std::int64_t seq);
  // `note`: what the history says after "stop" / "destroy" (an interruption).
  std::optional<std::string> stop(Sim&, Instance&, Seconds t, std::int64_t seq,
                                  const std::string& note = {});
  std::optional<std::string> resize(Sim&, Instance&, const UsageEvent&, std::int64_t seq);
  std::optional<std::string> resize_prepaid(Sim& sim, Instance& inst, const InstanceType& type,
                                            const PriceRow& price, const BillingPolicy& policy,
                                            Seconds t, std::int64_t seq);
  std::optional<std::string> renew(Sim&, Instance&, const UsageEvent&, std::int64_t seq);
  std::optional<std::string> set_auto_renew(Sim&, Instance&, const UsageEvent&, std::int64_t seq);
  std::optional<std::string> destroy(Sim&, Instance&, Seconds t, std::int64_t seq,
                                     std::optional<ReturnKind> asked = std::nullopt,
                                     const std::string& note = {});
  std::optional<std::string> commit(Sim&, const UsageEvent&, std::int64_t seq);
  std::optional<std::string> commit_savings_plan(Sim&, const UsageEvent&, std::int64_t seq);

  // commitments (replay_sim_commit.cpp)
  // The next hour end at which a commitment applies (kNever: none).
  Seconds next_commitment_hour() const;
  // At hour end e: shares each commitment in force over the hour among the pay-as-you-go usage
  // settling at e (covers_, written by settle_meter), and writes the hour's fees and unused rows.
  void apply_commitments(Sim&, Seconds e);
  // The covered parts of meter m's hour (settle_meter): offset rows at the on-demand rate.
  void write_covers(Sim&, Meter& m, Seconds e, const PriceRow& price, const BillingPolicy& policy);
  // A meter's pay-as-you-go compute usage settling at an hour end, not yet covered.
  struct CoverCandidate {
    Meter* meter;
    std::int64_t quantity;  // metered seconds × multiplier
  };
  // After the reserved instances: the savings plans in force over the hour ending at e cover
  // what usage is left, EC2 Instance plans first, then Compute plans (replay_sim_savings.cpp).
  void apply_savings_plans(Sim&, Seconds e, std::vector<CoverCandidate>& usage);
  // A savings plan's rate row for an instance type in a region (nullptr: none), cached.
  const CommitmentRow* savings_rate(Sim&, std::size_t k, const std::string& type,
                                    const std::string& region);
  std::map<std::string, const CommitmentRow*> savings_rates_;  // not saved: a catalog cache
  struct Cover {
    const Meter* meter = nullptr;
    std::size_t commitment = 0;
    std::int64_t quantity = 0;            // in the meter's unit (seconds × multiplier)
    std::int64_t units = 0;               // quarter normalized unit-seconds
    Seconds at = 0;                       // the hour end
    Decimal share;                        // of the commitment's amortised hour (EffectiveCost)
    const CommitmentRow* rate = nullptr;  // a savings plan's rate row for the covered type
  };
  std::vector<Cover> covers_;
  // The covered rows of the hour being settled, written once all its meters are settled.
  std::vector<std::pair<std::size_t, ChargeRow>> covered_rows_;  // by their cover in covers_
  void write_covered_rows(Sim&, Seconds e, const std::vector<Meter*>& settled);

  // time
  void process_hour_end(Sim&, Seconds e, Seconds bound);
  // Sustained use: records `hours` hours of a meter ending at first_end, first_end + 3600, …;
  // closes the months that end at t with their credit lines.
  void add_sustained_use(Sim&, const Meter& m, Seconds first_end, std::int64_t hours);
  Seconds next_sustained_close() const;
  void close_sustained_use(Sim&, Seconds t);
  void settle_meter(Sim&, Meter& m, Seconds e);
  void bulk(Sim&, Seconds e, Seconds bound, Seconds valid_until, Seconds grid_until);
  void process_timer(Sim&);

  // meters
  void activate(Sim&, Meter& m, Seconds t, std::int64_t seq);
  // min_run: a compute meter's run is billed at least the policy's minimum; released: the meter
  // ends for good, and a disk is billed at least the policy's minimum life of a volume.
  void deactivate(Sim&, Meter& m, Seconds t, bool min_run, bool released = false);
  // Deactivates the meter for good (destroy, resize, reclaim).
  void retire(Sim&, Meter& m, Seconds t, bool min_run);
  void flush(Sim&, Meter& m);
  // Rounds the meter's open settlement cycle as one record (a cycle_rounding charge) at t.
  void close_cycle(Sim&, Meter& m, Seconds t);
  // The run's row and its open segment's movement, as they are. A row already written is
  // updated only with update_row; otherwise it stays dirty, to be updated later.
  void write_run(Sim&, Meter& m, bool update_row = true);
  void retire_settled(Sim&, Instance& inst);
  void finish_if_done(Sim&, Instance& inst, Seconds t);

  // timers
  void set_timer(Instance& inst, int kind, Seconds t);
  void clear_timer(Instance& inst, int kind);
  void clear_timers(Instance& inst);
  // A spot instance starting to run at `t` is stopped by the provider after the policy's
  // spot_max_run_hours, if it has one.
  void schedule_spot_max_run(Sim& sim, Instance& inst, Seconds t);
  // The provider stops a running spot instance at its maximum run (state preempted).
  void preempt(Sim& sim, Instance& inst, Seconds t);
  // What a stop does to a pay-as-you-go or spot instance's meters at `t`; the history text.
  std::string stop_meters(Sim& sim, Instance& inst, Seconds t);
  // A stop or destroy with `interrupted`: checks it applies (a running spot instance), and when
  // the policy's spot_interrupted_free_seconds has not passed since the launch of an instance
  // never stopped, ends its compute meters at `t` uncharged, credits what they settled since the
  // launch, and says so in `note`. Returns the reason it does not apply.
  std::optional<std::string> interrupt(Sim& sim, Instance& inst, Seconds t, std::int64_t seq,
                                       std::string& note);
  // The interruption credit of a compute meter (replay_sim_settle.cpp).
  void credit_interrupted(Sim& sim, Meter& m, Seconds t, std::int64_t seq,
                          const BillingPolicy& policy);
  void schedule_prepaid(Sim&, Instance& inst, Seconds now);

  // balances
  Balance& balance(Currency c) { return balances[std::string(c.code())]; }
  Balance& balance_of(Instance& inst) {
    if (!inst.bal) inst.bal = &balance(inst.currency);
    return *inst.bal;
  }
  void credit(Sim&, Currency c, Decimal amount, Seconds t, std::int64_t seq);
  void after_debit(Sim&, Currency c, Seconds t);

  // rows
  std::int64_t charge(Sim&, const ChargeRow& row, Seconds at, std::int64_t seq,
                      const char* movement_kind);
  void history(Sim&, const Instance& inst, Seconds t, std::string reason, std::int64_t seq);
};

// The shared context of one replay: the catalog, the sink, per-provider calendars, counters.
class Sim {
 public:
  Sim(const Catalog& catalog, Sink& sink) : catalog(catalog), sink(sink) {}
  const Catalog& catalog;
  Sink& sink;
  std::int64_t settlements = 0, charge_rows = 0;

  ProviderInfo& provider(const std::string& id);
  // The next local hour boundary after e (an hour boundary) in the provider's zone.
  Seconds next_hour_end(ProviderInfo& p, Seconds e);
  Seconds first_hour_end(ProviderInfo& p, Seconds t);

  // Price and policy look-ups with the instant until which the answer cannot change.
  struct PriceAt {
    const PriceRow* row = nullptr;
    Seconds until = kNever;
  };
  PriceAt price_at(const std::string& provider, SubjectKind kind, const std::string& subject,
                   const std::string& region, BillingMode mode, Seconds t) const;
  struct ResourceAt {
    const ResourcePriceRow* row = nullptr;
    Seconds until = kNever;
  };
  ResourceAt resource_at(bool disk, const std::string& provider, const std::string& kind,
                         BillingMode mode, Seconds t) const;
  struct PolicyAt {
    const BillingPolicy* row = nullptr;
    Seconds until = kNever;
  };
  PolicyAt policy_at(const std::string& provider, Seconds t) const;

  std::vector<Meter*> scratch;

 private:
  std::unordered_map<std::string, ProviderInfo> providers_;
};

}  // namespace gpubill::replay
