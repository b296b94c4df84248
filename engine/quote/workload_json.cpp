// Reading a workload file (docs/workload-format.md).
#include <fstream>
#include <sstream>

#include "base/json_fields.hpp"
#include "gpubill/base/errors.hpp"
#include "gpubill/base/input_file.hpp"
#include "gpubill/quote/workload.hpp"

namespace gpubill {

namespace {

using json_input::Fields;
using json_input::json;

// A decimal written as a string ("0.5") or as a JSON integer (720); a JSON number with a
// fraction or exponent is rejected because it cannot be read exactly.
std::optional<Decimal> opt_amount(const Fields& f, std::string_view key) {
  const json* v = f.find(key);
  if (!v) return std::nullopt;
  if (v->is_number_integer()) {
    if (v->is_number_unsigned() && v->get<std::uint64_t>() > 1'000'000'000'000ULL) {
      f.fail(key, "too large");
    }
    const auto i = v->get<std::int64_t>();
    if (i < 0) f.fail(key, "must not be negative (found " + std::to_string(i) + ")");
    return Decimal(i);
  }
  if (v->is_number()) {
    f.fail(key, "write a fractional amount as a string (\"" + v->dump() +
                    "\"): a JSON number with a fraction cannot be read exactly");
  }
  if (!v->is_string()) f.fail(key, "expected a decimal (a string such as \"0.5\" or an integer)");
  const auto d = Decimal::try_parse(v->get<std::string>());
  if (!d) f.fail(key, "'" + v->get<std::string>() + "' is not an exact decimal");
  if (d->sign() < 0) f.fail(key, "must not be negative (found " + d->to_string() + ")");
  return d;
}

std::optional<int> opt_count(const Fields& f, std::string_view key) {
  const json* v = f.find(key);
  if (!v) return std::nullopt;
  const auto i = json_input::as_int(*v, 0, 1'000'000);
  if (!i) f.fail(key, "expected a whole number from 0 to 1000000, found " + v->dump());
  return i;
}

std::vector<std::string> string_list(const Fields& f, std::string_view key) {
  std::vector<std::string> out;
  const json* v = f.find(key);
  if (!v) return out;
  if (v->is_string()) {  // a single name is accepted for a list of one
    out.push_back(v->get<std::string>());
  } else if (v->is_array()) {
    for (std::size_t i = 0; i < v->size(); ++i) {
      const json& item = (*v)[i];
      if (!item.is_string() || item.get<std::string>().empty()) {
        throw InputError(f.file(),
                         json_input::child_pointer(json_input::child_pointer(f.pointer(), key), i),
                         std::string(key), "expected a non-empty string, found " + item.dump());
      }
      out.push_back(item.get<std::string>());
    }
  } else {
    f.fail(key, "expected a list of strings");
  }
  return out;
}

std::optional<std::string> opt_string(const Fields& f, std::string_view key) {
  if (!f.find(key)) return std::nullopt;
  return f.text(key);
}

std::string child(const Fields& f, std::string_view key) {
  return json_input::child_pointer(f.pointer(), key);
}

}  // namespace

Workload parse_workload_json(std::string_view text, const std::string& file_name) {
  const json doc = json_input::parse_document(text, file_name);
  const Fields top(
      doc, "/", file_name,
      {"format", "name", "gpu", "host", "storage", "network", "duration", "spot", "providers",
       "regions", "modes", "currency", "date", "month_hours", "gpu_fraction"});
  Workload w;
  w.source = file_name;
  if (const json* fmt = top.find("format")) {
    if (!fmt->is_string() || fmt->get<std::string>() != "gpubill-workload/1") {
      top.fail("format", "expected \"gpubill-workload/1\", found " + fmt->dump());
    }
  }
  w.name = top.opt_text("name");

  if (const json* g = top.find("gpu")) {
    const Fields f(*g, child(top, "gpu"), file_name,
                   {"models", "model", "min_fp32_tflops", "min_fp16_tflops", "min_memory_gb",
                    "count", "nvlink"});
    if (f.has("models") && f.has("model")) f.fail("model", "give either model or models");
    w.gpu.models = string_list(f, f.has("model") ? "model" : "models");
    w.gpu.min_fp32_tflops = opt_amount(f, "min_fp32_tflops");
    w.gpu.min_fp16_tflops = opt_amount(f, "min_fp16_tflops");
    w.gpu.min_memory_gb = opt_amount(f, "min_memory_gb");
    w.gpu.count = opt_count(f, "count");
    w.gpu.nvlink = f.boolean_or("nvlink", false);
  }
  w.gpu.fraction = opt_amount(top, "gpu_fraction");
  if (const json* h = top.find("host")) {
    const Fields f(*h, child(top, "host"), file_name, {"min_vcpu", "min_ram_gb"});
    w.host.min_vcpu = opt_count(f, "min_vcpu");
    w.host.min_ram_gb = opt_amount(f, "min_ram_gb");
  }
  if (const json* s = top.find("storage")) {
    const Fields f(*s, child(top, "storage"), file_name,
                   {"dataset_gb", "headroom_gb", "disk_kind"});
    w.storage.dataset_gb = opt_amount(f, "dataset_gb");
    w.storage.headroom_gb = opt_amount(f, "headroom_gb");
    w.storage.disk_kind = opt_string(f, "disk_kind");
  }
  if (const json* n = top.find("network")) {
    const Fields f(*n, child(top, "network"), file_name, {"bandwidth_mbps", "egress_gb"});
    w.network.bandwidth_mbps = opt_count(f, "bandwidth_mbps");
    w.network.egress_gb = opt_amount(f, "egress_gb");
  }
  if (const json* d = top.find("duration")) {
    const Fields f(*d, child(top, "duration"), file_name,
                   {"hours", "hours_per_day", "days", "months", "gpu_hours", "reference_gpu",
                    "pflop", "precision", "efficiency"});
    w.duration.hours = opt_amount(f, "hours");
    w.duration.hours_per_day = opt_amount(f, "hours_per_day");
    w.duration.days = opt_count(f, "days");
    w.duration.months = opt_count(f, "months");
    w.duration.gpu_hours = opt_amount(f, "gpu_hours");
    w.duration.reference_gpu = opt_string(f, "reference_gpu");
    w.duration.pflop = opt_amount(f, "pflop");
    if (auto p = opt_string(f, "precision")) {
      try {
        w.duration.precision = parse_precision(*p);
      } catch (const ParseError& e) {
        f.fail("precision", e.what());
      }
    }
    w.duration.efficiency = opt_amount(f, "efficiency");
  }
  if (const json* s = top.find("spot")) {
    const Fields f(*s, child(top, "spot"), file_name,
                   {"interruptions_per_hour", "checkpoint_interval_hours", "checkpoint_write_hours",
                    "restart_hours"});
    w.spot.interruptions_per_hour = opt_amount(f, "interruptions_per_hour");
    w.spot.checkpoint_interval_hours = opt_amount(f, "checkpoint_interval_hours");
    w.spot.checkpoint_write_hours = opt_amount(f, "checkpoint_write_hours");
    w.spot.restart_hours = opt_amount(f, "restart_hours");
  }
  w.providers = string_list(top, "providers");
  w.regions = string_list(top, "regions");
  w.modes = string_list(top, "modes");
  w.currency = opt_string(top, "currency");
  w.date = opt_string(top, "date");
  w.month_hours = opt_count(top, "month_hours");
  return w;
}

// A workload is a few hundred bytes; a larger file is a mistake (a log given as a workload).
constexpr std::size_t kMaxWorkloadBytes = 1 << 20;

Workload load_workload_file(const std::string& path) {
  return parse_workload_json(read_input_file(path, kMaxWorkloadBytes), path);
}

}  // namespace gpubill
