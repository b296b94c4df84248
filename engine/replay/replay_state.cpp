// Saving and loading an account's replay state (account_state.state, JSON). Everything that
// affects later rows is saved exactly (decimals as text, instants as unix seconds); caches are
// not saved and are rebuilt on use.
#include <nlohmann/json.hpp>

#include <algorithm>

#include "base/json_text.hpp"
#include "gpubill/base/errors.hpp"
#include "replay/replay_model.hpp"

namespace gpubill::replay {

namespace {

using nlohmann::json;

std::string source_name(Source s) {
  switch (s) {
    case Source::instance:
      return "instance";
    case Source::gpu:
      return "gpu";
    case Source::disk:
      return "disk";
    case Source::bandwidth:
      return "bandwidth";
  }
  return "instance";
}

Source parse_source(const std::string& s) {
  if (s == "instance") return Source::instance;
  if (s == "gpu") return Source::gpu;
  if (s == "disk") return Source::disk;
  if (s == "bandwidth") return Source::bandwidth;
  throw StoreError("account_state: unknown meter source '" + s + "'");
}

Decimal dec_of(const json& j) {
  return Decimal::parse(j.get<std::string>());
}

// Writes the state JSON directly (saving every account at the end of a replay is on the hot
// path; building nlohmann objects for it cost several times more). Loading uses nlohmann.
class Writer {
 public:
  std::string out;
  Writer& open(char c) {
    out += c;
    first_ = true;
    return *this;
  }
  Writer& close(char c) {
    out += c;
    first_ = false;
    return *this;
  }
  Writer& key(std::string_view k) {
    if (!first_) out += ',';
    first_ = false;
    out += '"';
    out += k;
    out += "\":";
    return *this;
  }
  Writer& item() {
    if (!first_) out += ',';
    first_ = false;
    return *this;
  }
  Writer& str(std::string_view v) {
    json_text::append_string(out, v);
    first_ = false;
    return *this;
  }
  Writer& num(std::int64_t v) {
    out += std::to_string(v);
    first_ = false;
    return *this;
  }
  Writer& boolean(bool v) {
    out += v ? "true" : "false";
    first_ = false;
    return *this;
  }
  Writer& dec(Decimal d) { return str(d.to_string()); }
  template <typename T>
  Writer& nums(const T& values) {
    open('[');
    for (const auto v : values) item().num(static_cast<std::int64_t>(v));
    return close(']');
  }

 private:
  bool first_ = true;
};

void write_run(Writer& w, const Run& r) {
  w.open('{');
  w.key("row_id").num(r.row_id);
  w.key("movement_id").num(r.movement_id);
  w.key("dirty").boolean(r.dirty);
  w.key("repeat").num(r.repeat);
  w.key("debited").num(r.debited);
  w.key("start").num(r.start);
  w.key("end").num(r.end);
  w.key("full_hour").boolean(r.full_hour);
  w.key("quantity").num(r.quantity);
  w.key("unit_price").dec(r.unit_price);
  w.key("price_id").num(r.price_id);
  w.key("policy_id").num(r.policy_id);
  w.key("exact").dec(r.exact);
  w.key("billed").dec(r.billed);
  w.key("rounding").dec(r.rounding);
  w.key("decimals").num(r.decimals);
  w.key("seqs").nums(r.seqs);
  w.key("instance_type").str(r.instance_type);
  w.key("note").str(r.note);
  w.key("balance_after").dec(r.balance_after);
  w.close('}');
}

void write_meter(Writer& w, const Meter& m) {
  w.open('{');
  w.key("component").str(m.component);
  w.key("source").str(source_name(m.source));
  w.key("subject").str(m.subject);
  w.key("multiplier").num(m.multiplier);
  w.key("unit").str(m.unit);
  w.key("retired").boolean(m.retired);
  w.key("active").boolean(m.active);
  w.key("active_since").num(m.active_since);
  w.key("run_started").num(m.run_started);
  w.key("active_seq").num(m.active_seq);
  w.key("hour_end").num(m.hour_end);
  w.key("first_use").num(m.first_use);
  w.key("last_use").num(m.last_use);
  w.key("used").num(m.used);
  w.key("extra").num(m.extra);
  w.key("seqs").nums(m.seqs);
  w.key("note").str(m.note);
  w.key("cycle_start").num(m.cycle_start);
  w.key("cycle_end").num(m.cycle_end);
  w.key("cycle_exact").dec(m.cycle_exact);
  if (!m.carry.is_zero()) w.key("carry").dec(m.carry);
  if (!m.free_exact.is_zero()) w.key("free_exact").dec(m.free_exact);
  if (!m.free_billed.is_zero()) w.key("free_billed").dec(m.free_billed);
  w.key("waiting_cycle").boolean(m.waiting_cycle);
  w.key("run");
  write_run(w, m.run);
  w.close('}');
}

void write_instance(Writer& w, const Instance& i) {
  w.open('{');
  w.key("id").str(i.id);
  w.key("index").num(i.index);
  w.key("provider").str(i.provider);
  w.key("region").str(i.region);
  w.key("type").str(i.type);
  w.key("family").str(i.family);
  w.key("mode").str(to_string(i.mode));
  w.key("currency").str(i.currency.code());
  w.key("state").str(to_string(i.state));
  w.key("created_at").num(i.created_at);
  w.key("destroyed_at").num(i.destroyed_at);
  w.key("create_seq").num(i.create_seq);
  w.key("destroy_seq").num(i.destroy_seq);
  w.key("gpus").num(i.gpus);
  w.key("gpu_model").str(i.gpu_model);
  w.key("lifetime_billed").dec(i.lifetime_billed);
  w.key("expiry").num(i.expiry);
  w.key("purchased_at").num(i.purchased_at);
  w.key("auto_renew").boolean(i.auto_renew);
  w.key("auto_renew_seq").num(i.auto_renew_seq);
  w.key("paid").dec(i.paid);
  w.key("monthly").dec(i.monthly);
  w.key("factor").dec(i.factor);
  w.key("timers").nums(i.timers);
  w.key("meters").open('[');
  for (const auto& m : i.meters) {
    w.item();
    write_meter(w, *m);
  }
  w.close(']');
  w.close('}');
}

void write_commitment(Writer& w, const Commitment& c) {
  w.open('{');
  w.key("id").str(c.id);
  w.key("seq").num(c.seq);
  w.key("row_id").num(c.row_id);
  w.key("provider").str(c.provider);
  w.key("region").str(c.region);
  w.key("subject").str(c.subject);
  w.key("family").str(c.family);
  w.key("per_gpu").boolean(c.per_gpu);
  w.key("flexible").boolean(c.flexible);
  w.key("weight").num(c.weight);
  w.key("count").num(c.count);
  w.key("start").num(c.start);
  w.key("end").num(c.end);
  w.key("term_months").num(c.term_months);
  w.key("program").str(c.program);
  w.key("class").str(c.offering_class);
  w.key("payment").str(c.payment);
  w.key("currency").str(c.currency.code());
  w.key("upfront").dec(c.upfront);
  w.key("hourly").dec(c.hourly);
  w.key("next_hour").num(c.next_hour);
  w.key("source").str(c.source);
  if (c.savings_plan()) {
    w.key("plan").str(c.plan);
    w.key("amount").dec(c.amount);
    w.key("bought").num(c.bought);
  }
  w.close('}');
}

Commitment commitment_of(const json& j) {
  Commitment c;
  c.id = j.at("id").get<std::string>();
  c.seq = j.at("seq").get<std::int64_t>();
  c.row_id = j.at("row_id").get<std::int64_t>();
  c.provider = j.at("provider").get<std::string>();
  c.region = j.at("region").get<std::string>();
  c.subject = j.at("subject").get<std::string>();
  c.family = j.at("family").get<std::string>();
  c.per_gpu = j.at("per_gpu").get<bool>();
  c.flexible = j.at("flexible").get<bool>();
  c.weight = j.at("weight").get<std::int64_t>();
  c.count = j.at("count").get<std::int64_t>();
  c.start = j.at("start").get<Seconds>();
  c.end = j.at("end").get<Seconds>();
  c.term_months = j.at("term_months").get<int>();
  c.program = j.at("program").get<std::string>();
  c.offering_class = j.at("class").get<std::string>();
  c.payment = j.at("payment").get<std::string>();
  c.currency = Currency::parse(j.at("currency").get<std::string>());
  c.upfront = dec_of(j.at("upfront"));
  c.hourly = dec_of(j.at("hourly"));
  c.next_hour = j.at("next_hour").get<Seconds>();
  c.source = j.at("source").get<std::string>();
  if (j.contains("plan")) {  // a savings plan
    c.plan = j.at("plan").get<std::string>();
    c.amount = dec_of(j.at("amount"));
    c.bought = j.at("bought").get<Seconds>();
  }
  return c;
}

Run run_of(const json& j) {
  Run r;
  r.row_id = j.at("row_id").get<std::int64_t>();
  r.movement_id = j.at("movement_id").get<std::int64_t>();
  r.dirty = j.at("dirty").get<bool>();
  r.repeat = j.at("repeat").get<std::int64_t>();
  r.debited = j.value("debited", std::int64_t{0});  // absent in states saved before segments
  r.start = j.at("start").get<Seconds>();
  r.end = j.at("end").get<Seconds>();
  r.full_hour = j.at("full_hour").get<bool>();
  r.quantity = j.at("quantity").get<std::int64_t>();
  r.unit_price = dec_of(j.at("unit_price"));
  r.price_id = j.at("price_id").get<std::int64_t>();
  r.policy_id = j.at("policy_id").get<std::int64_t>();
  r.exact = dec_of(j.at("exact"));
  r.billed = dec_of(j.at("billed"));
  r.rounding = dec_of(j.at("rounding"));
  r.decimals = j.at("decimals").get<int>();
  r.seqs = j.at("seqs").get<std::vector<std::int64_t>>();
  r.instance_type = j.at("instance_type").get<std::string>();
  r.note = j.at("note").get<std::string>();
  r.balance_after = dec_of(j.at("balance_after"));
  return r;
}

std::unique_ptr<Meter> meter_of(const json& j) {
  auto m = std::make_unique<Meter>();
  m->component = j.at("component").get<std::string>();
  m->source = parse_source(j.at("source").get<std::string>());
  m->subject = j.at("subject").get<std::string>();
  m->multiplier = j.at("multiplier").get<std::int64_t>();
  m->unit = j.at("unit").get<std::string>();
  m->retired = j.at("retired").get<bool>();
  m->active = j.at("active").get<bool>();
  m->active_since = j.at("active_since").get<Seconds>();
  m->run_started = j.at("run_started").get<Seconds>();
  m->active_seq = j.at("active_seq").get<std::int64_t>();
  m->hour_end = j.at("hour_end").get<Seconds>();
  m->first_use = j.at("first_use").get<Seconds>();
  m->last_use = j.at("last_use").get<Seconds>();
  m->used = j.at("used").get<std::int64_t>();
  m->extra = j.at("extra").get<std::int64_t>();
  m->seqs = j.at("seqs").get<std::vector<std::int64_t>>();
  m->note = j.at("note").get<std::string>();
  // States saved before settlement cycles (migration 7) have none open.
  m->cycle_start = j.value("cycle_start", Seconds{0});
  m->cycle_end = j.value("cycle_end", Seconds{0});
  if (j.contains("cycle_exact")) m->cycle_exact = dec_of(j.at("cycle_exact"));
  if (j.contains("carry")) m->carry = dec_of(j.at("carry"));
  if (j.contains("free_exact")) m->free_exact = dec_of(j.at("free_exact"));
  if (j.contains("free_billed")) m->free_billed = dec_of(j.at("free_billed"));
  m->waiting_cycle = j.value("waiting_cycle", false);
  m->run = run_of(j.at("run"));
  return m;
}

std::unique_ptr<Instance> instance_of(const json& j) {
  auto i = std::make_unique<Instance>();
  i->id = j.at("id").get<std::string>();
  i->index = j.at("index").get<std::int64_t>();
  i->provider = j.at("provider").get<std::string>();
  i->region = j.at("region").get<std::string>();
  i->type = j.at("type").get<std::string>();
  i->family = j.at("family").get<std::string>();
  i->mode = parse_billing_mode(j.at("mode").get<std::string>());
  i->currency = Currency::parse(j.at("currency").get<std::string>());
  i->state = parse_state(j.at("state").get<std::string>());
  i->created_at = j.at("created_at").get<Seconds>();
  i->destroyed_at = j.at("destroyed_at").get<Seconds>();
  i->create_seq = j.at("create_seq").get<std::int64_t>();
  i->destroy_seq = j.at("destroy_seq").get<std::int64_t>();
  i->gpus = j.at("gpus").get<int>();
  i->gpu_model = j.at("gpu_model").get<std::string>();
  i->lifetime_billed = dec_of(j.at("lifetime_billed"));
  i->expiry = j.at("expiry").get<Seconds>();
  i->purchased_at = j.at("purchased_at").get<Seconds>();
  i->auto_renew = j.at("auto_renew").get<bool>();
  i->auto_renew_seq = j.at("auto_renew_seq").get<std::int64_t>();
  i->paid = dec_of(j.at("paid"));
  i->monthly = dec_of(j.at("monthly"));
  i->factor = dec_of(j.at("factor"));
  // A state saved before a timer kind was added has fewer entries: the others are unset.
  const auto saved_timers = j.at("timers").get<std::vector<Seconds>>();
  if (saved_timers.size() > i->timers.size()) {
    throw StoreError("account_state: " + std::to_string(saved_timers.size()) +
                     " timers saved, at most " + std::to_string(i->timers.size()) + " known");
  }
  std::copy(saved_timers.begin(), saved_timers.end(), i->timers.begin());
  for (const auto& m : j.at("meters")) {
    i->meters.push_back(meter_of(m));
    i->meters.back()->owner = i.get();
  }
  return i;
}

}  // namespace

std::string Account::save() const {
  Writer w;
  w.out.reserve(512 + 1024 * by_index_.size());
  w.open('{');
  w.key("version").num(1);
  w.key("next_index").num(next_index);
  w.key("balances").open('{');
  for (const auto& [code, b] : balances) {
    w.key(code).open('{');
    w.key("amount").dec(b.amount);
    w.key("funded").boolean(b.funded);
    if (b.negative_since) w.key("negative_since").num(*b.negative_since);
    w.close('}');
  }
  w.close('}');
  w.key("instances").open('[');
  for (const auto& [index, inst] : by_index_) {
    w.item();
    write_instance(w, *inst);
  }
  w.close(']');
  if (!no_reason_returns.empty()) {
    w.key("no_reason_returns").open('{');
    for (const auto& [key, n] : no_reason_returns) w.key(key).num(n);
    w.close('}');
  }
  if (!commitments.empty()) {
    w.key("commitments").open('[');
    for (const auto& c : commitments) {
      w.item();
      write_commitment(w, c);
    }
    w.close(']');
  }
  if (!sustained.empty()) {
    w.key("sustained").open('[');
    for (const auto& [key, g] : sustained) {
      w.item();
      w.open('{');
      w.key("provider").str(g.provider);
      w.key("region").str(g.region);
      w.key("subject").str(g.subject);
      w.key("unit").str(g.unit);
      w.key("currency").str(std::string(g.currency.code()));
      w.key("month_start").num(g.month_start);
      w.key("month_end").num(g.month_end);
      w.key("price_id").num(g.price_id);
      w.key("policy_id").num(g.policy_id);
      w.key("hours").open('[');
      for (const auto& [end, h] : g.hours) {
        w.item();
        w.open('[');
        w.item();
        w.num(end);
        w.item();
        w.num(h.seconds);
        w.item();
        w.dec(h.hourly_price);
        w.close(']');
      }
      w.close(']');
      w.close('}');
    }
    w.close(']');
  }
  w.close('}');
  return std::move(w.out);
}

std::unique_ptr<Account> Account::load(const std::string& name, Seconds clock,
                                       const std::string& text) {
  try {
    const json j = json::parse(text);
    if (j.at("version").get<int>() != 1) {
      throw StoreError("account_state of '" + name + "': unknown state version");
    }
    auto a = std::make_unique<Account>();
    a->name = name;
    a->clock = clock;
    a->next_index = j.at("next_index").get<std::int64_t>();
    for (const auto& [code, jb] : j.at("balances").items()) {
      Balance b;
      b.amount = dec_of(jb.at("amount"));
      b.funded = jb.at("funded").get<bool>();
      if (jb.contains("negative_since")) b.negative_since = jb.at("negative_since").get<Seconds>();
      a->balances.emplace(code, b);
    }
    for (const auto& ji : j.at("instances")) {
      auto inst = instance_of(ji);
      const std::string id = inst->id;
      a->instances.emplace(id, std::move(inst));
    }
    if (j.contains("no_reason_returns")) {
      for (const auto& [key, n] : j.at("no_reason_returns").items()) {
        a->no_reason_returns.emplace(key, n.get<int>());
      }
    }
    if (j.contains("commitments")) {
      for (const auto& jc : j.at("commitments")) a->commitments.push_back(commitment_of(jc));
    }
    if (j.contains("sustained")) {
      for (const auto& jg : j.at("sustained")) {
        SustainedGroup g;
        g.provider = jg.at("provider").get<std::string>();
        g.region = jg.at("region").get<std::string>();
        g.subject = jg.at("subject").get<std::string>();
        g.unit = jg.at("unit").get<std::string>();
        g.currency = Currency::parse(jg.at("currency").get<std::string>());
        g.month_start = jg.at("month_start").get<Seconds>();
        g.month_end = jg.at("month_end").get<Seconds>();
        g.price_id = jg.at("price_id").get<std::int64_t>();
        g.policy_id = jg.at("policy_id").get<std::int64_t>();
        for (const auto& jh : jg.at("hours")) {
          rules::UsageHour h;
          h.seconds = jh.at(1).get<std::int64_t>();
          h.hourly_price = dec_of(jh.at(2));
          g.hours.emplace(jh.at(0).get<Seconds>(), h);
        }
        const std::string key = sustained_key(g);
        a->sustained.emplace(key, std::move(g));
      }
    }
    a->rebuild();
    return a;
  } catch (const json::exception& e) {
    throw StoreError("account_state of '" + name + "' does not decode: " + e.what());
  } catch (const ParseError& e) {
    throw StoreError("account_state of '" + name + "' does not decode: " + e.what());
  }
}

}  // namespace gpubill::replay
