// Saving and loading an account's replay state (account_state.state, JSON). Everything that
// affects later rows is saved exactly (decimals as text, instants as unix seconds); caches are
// not saved and are rebuilt on use.
#include <nlohmann/json.hpp>

#include "gpubill/errors.hpp"
#include "replay_model.hpp"

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

json dec(Decimal d) {
  return d.to_string();
}

Decimal dec_of(const json& j) {
  return Decimal::parse(j.get<std::string>());
}

json run_json(const Run& r) {
  return json{{"row_id", r.row_id},
              {"movement_id", r.movement_id},
              {"dirty", r.dirty},
              {"repeat", r.repeat},
              {"start", r.start},
              {"end", r.end},
              {"full_hour", r.full_hour},
              {"quantity", r.quantity},
              {"unit_price", dec(r.unit_price)},
              {"price_id", r.price_id},
              {"policy_id", r.policy_id},
              {"exact", dec(r.exact)},
              {"billed", dec(r.billed)},
              {"rounding", dec(r.rounding)},
              {"decimals", r.decimals},
              {"seqs", r.seqs},
              {"instance_type", r.instance_type},
              {"note", r.note},
              {"balance_after", dec(r.balance_after)}};
}

Run run_of(const json& j) {
  Run r;
  r.row_id = j.at("row_id").get<std::int64_t>();
  r.movement_id = j.at("movement_id").get<std::int64_t>();
  r.dirty = j.at("dirty").get<bool>();
  r.repeat = j.at("repeat").get<std::int64_t>();
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

json meter_json(const Meter& m) {
  return json{{"component", m.component},
              {"source", source_name(m.source)},
              {"subject", m.subject},
              {"multiplier", m.multiplier},
              {"unit", m.unit},
              {"retired", m.retired},
              {"active", m.active},
              {"active_since", m.active_since},
              {"run_started", m.run_started},
              {"active_seq", m.active_seq},
              {"hour_end", m.hour_end},
              {"first_use", m.first_use},
              {"last_use", m.last_use},
              {"used", m.used},
              {"extra", m.extra},
              {"seqs", m.seqs},
              {"note", m.note},
              {"run", run_json(m.run)}};
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
  m->run = run_of(j.at("run"));
  return m;
}

json instance_json(const Instance& i) {
  json meters = json::array();
  for (const auto& m : i.meters) meters.push_back(meter_json(*m));
  return json{{"id", i.id},
              {"index", i.index},
              {"provider", i.provider},
              {"region", i.region},
              {"type", i.type},
              {"family", i.family},
              {"mode", std::string(to_string(i.mode))},
              {"currency", i.currency.to_string()},
              {"state", std::string(to_string(i.state))},
              {"created_at", i.created_at},
              {"destroyed_at", i.destroyed_at},
              {"create_seq", i.create_seq},
              {"destroy_seq", i.destroy_seq},
              {"gpus", i.gpus},
              {"gpu_model", i.gpu_model},
              {"lifetime_billed", dec(i.lifetime_billed)},
              {"expiry", i.expiry},
              {"purchased_at", i.purchased_at},
              {"auto_renew", i.auto_renew},
              {"auto_renew_seq", i.auto_renew_seq},
              {"paid", dec(i.paid)},
              {"monthly", dec(i.monthly)},
              {"factor", dec(i.factor)},
              {"timers", i.timers},
              {"meters", std::move(meters)}};
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
  i->timers = j.at("timers").get<std::array<Seconds, kTimerKinds>>();
  for (const auto& m : j.at("meters")) {
    i->meters.push_back(meter_of(m));
    i->meters.back()->owner = i.get();
  }
  return i;
}

}  // namespace

std::string Account::save() const {
  json balances_json = json::object();
  for (const auto& [code, b] : balances) {
    json jb{{"amount", dec(b.amount)}, {"funded", b.funded}};
    if (b.negative_since) jb["negative_since"] = *b.negative_since;
    balances_json[code] = std::move(jb);
  }
  json list = json::array();
  for (const auto& [index, inst] : by_index_) list.push_back(instance_json(*inst));
  const json j{{"version", 1},
               {"next_index", next_index},
               {"balances", std::move(balances_json)},
               {"instances", std::move(list)}};
  return j.dump();
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
    a->rebuild();
    return a;
  } catch (const json::exception& e) {
    throw StoreError("account_state of '" + name + "' does not decode: " + e.what());
  } catch (const ParseError& e) {
    throw StoreError("account_state of '" + name + "' does not decode: " + e.what());
  }
}

}  // namespace gpubill::replay
