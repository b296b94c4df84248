#include "replay/event_fields.hpp"

#include <charconv>

#include "base/text_check.hpp"

namespace gpubill::event_input {

namespace {

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

constexpr std::int64_t kMaxTopUp = 1'000'000'000'000;

Decimal to_amount(std::string_view text, const Context& cx) {
  auto d = Decimal::try_parse(text);
  if (!d) {
    cx.fail("amount", "'" + std::string(text) +
                          "' is not an exact decimal amount (digits with an optional point, at "
                          "most 12 decimals, e.g. \"100.00\")");
  }
  if (d->sign() <= 0) cx.fail("amount", "a top-up amount must be positive");
  // A bound far above any real top-up keeps every balance sum inside Decimal's range.
  if (*d > Decimal(kMaxTopUp)) {
    cx.fail("amount", d->to_string() + " is above the limit of " + std::to_string(kMaxTopUp) +
                          " for one top-up");
  }
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

ReturnKind to_return_kind(std::string_view text, const Context& cx) {
  if (text == "no_reason") return ReturnKind::no_reason;
  if (text == "ordinary") return ReturnKind::ordinary;
  cx.fail("return_kind",
          "unknown kind of return '" + std::string(text) + "' (expected no_reason or ordinary)");
}

int to_term(std::string_view text, const Context& cx) {
  if (text == "1y") return 12;
  if (text == "3y") return 36;
  cx.fail("term", "unknown term '" + std::string(text) + "' (expected 1y or 3y)");
}

CommitmentPayment to_payment(std::string_view text, const Context& cx) {
  try {
    return parse_commitment_payment(text);
  } catch (const ParseError& e) {
    cx.fail("payment", e.what());
  }
}

void to_class(UsageEvent& ev, std::string_view text, const Context& cx) {
  if (text != "standard" && text != "convertible") {
    cx.fail("class", "unknown offering class '" + std::string(text) +
                         "' (expected standard or convertible)");
  }
  ev.offering_class.assign(text);
}

void to_plan(UsageEvent& ev, std::string_view text, const Context& cx) {
  if (text != "compute" && text != "ec2_instance") {
    cx.fail("plan",
            "unknown savings plan '" + std::string(text) + "' (expected compute or ec2_instance)");
  }
  ev.plan.assign(text);
}

Instant to_start(std::string_view text, const Context& cx) {
  Instant t;
  try {
    t = parse_instant(text);
  } catch (const ParseError& e) {
    cx.fail("start", e.what());
  }
  if (t.time_since_epoch().count() % 3600 != 0) {
    cx.fail("start",
            "a commitment's term starts on a clock hour (zero minutes and seconds, UTC), not " +
                std::string(text));
  }
  return t;
}

void non_empty(std::string_view text, std::string_view field, const Context& cx) {
  if (text.empty()) cx.fail(field, "must not be empty");
}

}  // namespace

int field_of(std::string_view name, bool csv) {
  const int limit = csv ? f_csv_count : f_count;
  for (int i = 0; i < limit; ++i) {
    if (csv && i == f_system_disk) continue;  // CSV spells it as two columns
    if (kFieldNames[static_cast<std::size_t>(i)] == name) return i;
  }
  return -1;
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

void check_name(std::string_view text, std::string_view field, const Context& cx) {
  non_empty(text, field, cx);
  if (auto why = text_check::name_problem(text, text_check::kMaxNameBytes)) cx.fail(field, *why);
}

// ---- per-type rules: which fields are required and which are allowed ------------------------

namespace {

// A commit names its scope once: an instance type, or a GPU committed per GPU; its term does not
// start before it is bought.
void finish_commit(UsageEvent& ev, Mask present, const Context& cx) {
  if (ev.start && *ev.start < ev.time) {
    cx.fail("start", "the term starts before the commitment is bought (time " +
                         format_instant(ev.time) + ")");
  }
  if (!ev.plan.empty()) return;  // a savings plan's scope is its plan (and family and region)
  const bool type = present & bit(f_instance_type), gpu = present & bit(f_gpu);
  if (type == gpu) {
    cx.fail(type ? "gpu" : "instance_type",
            type ? "give the commitment's scope once: instance_type or gpu, not both"
                 : "missing field (a commit names instance_type, or gpu for a per-GPU commitment)");
  }
}

}  // namespace

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
      required = bit(f_instance);
      break;
    case EventType::stop:
      required = bit(f_instance);
      allowed = bit(f_interrupted);
      break;
    case EventType::destroy:
      required = bit(f_instance);
      allowed = bit(f_return_kind) | bit(f_interrupted);
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
    case EventType::commit:
      if (present & bit(f_plan)) {  // a savings plan: an hourly amount, not units of a type
        required = bit(f_provider) | bit(f_term) | bit(f_payment) | bit(f_plan) | bit(f_amount) |
                   bit(f_currency);
        allowed = bit(f_start);
        if (ev.plan == "ec2_instance") required |= bit(f_region) | bit(f_family);
      } else {
        required = bit(f_provider) | bit(f_region) | bit(f_term) | bit(f_payment) | bit(f_units);
        allowed = bit(f_instance_type) | bit(f_gpu) | bit(f_class) | bit(f_start);
      }
      break;
  }
  const std::string type_name = (present & bit(f_plan)) && ev.type == EventType::commit
                                    ? ev.plan + " savings plan commit"
                                    : std::string(to_string(ev.type));
  const std::string article = type_name.front() == 'e' ? "an " : "a ";
  for (int f = 0; f < f_count; ++f) {
    const Mask b = bit(f);
    if ((required & b) && !(present & b)) {
      cx.fail(kFieldNames[static_cast<std::size_t>(f)],
              "missing field (required for " + article + type_name + " event)");
    }
    if ((present & b) && !((common | required | allowed) & b)) {
      cx.fail(kFieldNames[static_cast<std::size_t>(f)],
              "does not apply to " + article + type_name + " event");
    }
  }
  if (ev.type == EventType::create && ev.mode != BillingMode::prepaid) {
    if (present & bit(f_months)) cx.fail("months", "applies to prepaid instances only");
    if (present & bit(f_auto_renew)) cx.fail("auto_renew", "applies to prepaid instances only");
  }
  if (ev.type == EventType::commit) {
    finish_commit(ev, present, cx);
    return;
  }
  if ((present & bit(f_gpu)) && !(present & bit(f_gpus))) {
    cx.fail("gpu", "names the model of attached GPUs; give their count in 'gpus' too");
  }
}

// The member an id or name field is stored in, or nullptr for the other fields.
std::string* name_member(UsageEvent& ev, int f) {
  switch (f) {
    case f_id:
      return &ev.id;
    case f_account:
      return &ev.account;
    case f_instance:
      return &ev.instance;
    case f_provider:
      return &ev.provider;
    case f_region:
      return &ev.region;
    case f_instance_type:
      return &ev.instance_type;
    case f_gpu:
      return &ev.gpu;
    case f_family:
      return &ev.family;
    default:
      return nullptr;
  }
}

// Sets one field of `ev` from text (CSV cells and JSON strings share this).
void set_text_field(UsageEvent& ev, int f, std::string_view text, const Context& cx) {
  const std::string_view name = kFieldNames[static_cast<std::size_t>(f)];
  if (std::string* member = name_member(ev, f)) {
    check_name(text, name, cx);
    member->assign(text);
    return;
  }
  switch (f) {
    case f_time:
      ev.time = to_time(text, cx);
      break;
    case f_type:
      ev.type = to_type(text, cx);
      break;
    case f_amount:
      ev.amount = to_amount(text, cx);
      break;
    case f_currency:
      ev.currency = to_currency(text, cx);
      break;
    case f_mode:
      ev.mode = to_mode(text, cx);
      break;
    case f_return_kind:
      ev.return_kind = to_return_kind(text, cx);
      break;
    case f_term:
      ev.term_months = to_term(text, cx);
      break;
    case f_payment:
      ev.payment = to_payment(text, cx);
      break;
    case f_class:
      to_class(ev, text, cx);
      break;
    case f_start:
      ev.start = to_start(text, cx);
      break;
    case f_plan:
      to_plan(ev, text, cx);
      break;
    default:
      cx.fail(name, "internal error: not a text field");
  }
}

}  // namespace gpubill::event_input
