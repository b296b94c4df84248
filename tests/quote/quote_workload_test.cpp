// Workload files and their resolution: defaults, and each kind of bad input (unknown names
// with the closest known ones, contradictions named, malformed JSON with file, pointer, field).
#include <catch2/catch.hpp>

#include <filesystem>

#include "gpubill/base/errors.hpp"
#include "gpubill/quote/workload.hpp"
#include "quote_fixture.hpp"

using namespace gpubill;
using gpubill::testing::loaded_quote_catalog;
using gpubill::testing::quote_catalog;
using gpubill::testing::quote_workload;

namespace {

// The InputError resolving `w` throws.
InputError resolve_error(const Workload& w) {
  try {
    resolve_workload(w, loaded_quote_catalog());
  } catch (const InputError& e) {
    return e;
  }
  FAIL("no InputError");
  throw std::logic_error("unreachable");
}

InputError parse_error(const std::string& text) {
  try {
    parse_workload_json(text, "w.json");
  } catch (const InputError& e) {
    return e;
  }
  FAIL("no InputError for " << text);
  throw std::logic_error("unreachable");
}

Workload hours(Workload w, int h = 10) {
  w.duration.hours = Decimal(h);
  return w;
}

}  // namespace

TEST_CASE("a workload file is read with its defaults", "[workload]") {
  const Workload w = parse_workload_json(R"({
    "format": "gpubill-workload/1",
    "name": "training",
    "gpu": {"models": ["V100", "A100"], "count": 4, "nvlink": true, "min_memory_gb": "16"},
    "host": {"min_vcpu": 16},
    "storage": {"dataset_gb": "150.5"},
    "duration": {"hours": 500},
    "providers": ["aws", "google"],
    "modes": ["payg", "spot"],
    "currency": "USD",
    "date": "2023-07-01"
  })",
                                         "w.json");
  const ResolvedWorkload r = resolve_workload(w, loaded_quote_catalog());
  CHECK(r.gpu_count == 4);
  CHECK(r.nvlink);
  CHECK(r.gpus.size() == 4);  // V100-SXM2-16GB, -32GB, V100-PCIE-16GB, A100-40GB
  CHECK(r.min_vcpu == 16);
  CHECK(r.ram_default);
  CHECK(*r.storage_gb == Decimal::parse("200.5"));  // 150.5 + 50 headroom (default)
  CHECK(r.headroom_default);
  CHECK(r.duration == DurationKind::hours);
  CHECK(r.hours == Decimal(500));
  CHECK(r.providers == std::vector<std::string>{"aws", "google"});
  CHECK(r.modes == std::vector<BillingMode>{BillingMode::payg, BillingMode::spot});
  CHECK(r.currency == Currency::parse("USD"));
  CHECK_FALSE(r.at_default);
}

TEST_CASE("defaults: CNY, the latest price date, every mode", "[workload]") {
  const ResolvedWorkload r =
      resolve_workload(hours(quote_workload({"T4"})), loaded_quote_catalog());
  CHECK(r.currency == Currency::parse("CNY"));
  CHECK(r.currency_default);
  CHECK(r.modes.size() == 5);
  Workload w = hours(quote_workload({"T4"}));
  w.date.reset();
  const ResolvedWorkload d = resolve_workload(w, loaded_quote_catalog());
  CHECK(d.at_default);
  CHECK(d.at == *loaded_quote_catalog().latest_price_date());
}

TEST_CASE("sample workload files resolve against the bundled names", "[workload]") {
  const std::filesystem::path dir =
      std::filesystem::path(GPUBILL_SOURCE_DIR) / "fixtures" / "workloads";
  std::size_t n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    INFO(entry.path());
    const Workload w = load_workload_file(entry.path().string());
    CHECK_FALSE(w.name.empty());
    ++n;
  }
  CHECK(n >= 5);
}

TEST_CASE("unknown GPU, provider and region names list the closest known ones", "[workload]") {
  Workload w = hours(quote_workload({"V1OO"}));
  InputError e = resolve_error(w);
  CHECK(e.file() == "test.json");
  CHECK(e.place() == "/gpu/models/0");
  CHECK(e.field() == "models");
  CHECK_THAT(e.reason(),
             Catch::Contains("unknown GPU 'V1OO'") && Catch::Contains("closest known: V100"));

  w = hours(quote_workload({"T4"}));
  w.providers = {"tencnet"};
  e = resolve_error(w);
  CHECK(e.place() == "/providers/0");
  CHECK_THAT(e.reason(), Catch::Contains("unknown provider 'tencnet' (closest known: tencent"));

  w = hours(quote_workload({"T4"}));
  w.regions = {"us-east-2"};
  e = resolve_error(w);
  CHECK_THAT(e.reason(), Catch::Contains("unknown region 'us-east-2' (closest known: us-east-1"));

  w = hours(quote_workload({}));
  w.duration = {};
  w.duration.gpu_hours = Decimal(10);
  w.duration.reference_gpu = "T5";
  e = resolve_error(w);
  CHECK(e.place() == "/duration");
  CHECK(e.field() == "reference_gpu");
  CHECK_THAT(e.reason(), Catch::Contains("closest known: T4"));
}

TEST_CASE("contradictory constraints are errors naming them", "[workload]") {
  SECTION("count 0") {
    Workload w = hours(quote_workload({"T4"}));
    w.gpu.count = 0;
    const InputError e = resolve_error(w);
    CHECK(e.field() == "count");
    CHECK_THAT(e.reason(), Catch::Contains("count 0 contradicts"));
  }
  SECTION("a model below the memory floor") {
    Workload w = hours(quote_workload({"T4"}));
    w.gpu.min_memory_gb = Decimal(24);
    const InputError e = resolve_error(w);
    CHECK(e.place() == "/gpu/models/0");
    CHECK_THAT(e.reason(), Catch::Contains("GPU 'T4' contradicts") &&
                               Catch::Contains("T4 has 16 GB, below min_memory_gb 24"));
  }
  SECTION("a model without NVLink when NVLink is required") {
    Workload w = hours(quote_workload({"V100-PCIE"}));
    w.gpu.nvlink = true;
    CHECK_THAT(resolve_error(w).reason(), Catch::Contains("PCIe 3.0, not NVLink"));
  }
  SECTION("a model below the FP16 floor") {
    Workload w = hours(quote_workload({"P40"}));
    w.gpu.min_fp16_tflops = Decimal(50);
    CHECK_THAT(resolve_error(w).reason(), Catch::Contains("no FP16 tensor figure"));
  }
  SECTION("hours and work both given") {
    Workload w = hours(quote_workload({"T4"}));
    w.duration.gpu_hours = Decimal(100);
    const InputError e = resolve_error(w);
    CHECK(e.field() == "gpu_hours");
    CHECK_THAT(e.reason(), Catch::Contains("hours and gpu_hours are both given"));
  }
  SECTION("hours_per_day without days, and more than 24") {
    Workload w = quote_workload({"T4"});
    w.duration.hours_per_day = Decimal(8);
    CHECK_THAT(resolve_error(w).reason(), Catch::Contains("hours_per_day is given without days"));
    w.duration.days = 5;
    w.duration.hours_per_day = Decimal(25);
    CHECK_THAT(resolve_error(w).reason(), Catch::Contains("more than a day has"));
  }
  SECTION("no duration") {
    const InputError e = resolve_error(quote_workload({"T4"}));
    CHECK(e.field() == "duration");
    CHECK_THAT(e.reason(), Catch::Contains("no duration"));
  }
  SECTION("a region of an excluded provider") {
    Workload w = hours(quote_workload({"T4"}));
    w.providers = {"tencent"};
    w.regions = {"us-east-1"};
    CHECK_THAT(resolve_error(w).reason(),
               Catch::Contains("region 'us-east-1' belongs to aws, which the workload's providers "
                               "(tencent) exclude"));
  }
  SECTION("efficiency outside (0, 1]") {
    Workload w = quote_workload({"T4"});
    w.duration.pflop = Decimal(1);
    w.duration.efficiency = Decimal(2);
    CHECK_THAT(resolve_error(w).reason(), Catch::Contains("not a fraction of peak"));
  }
  SECTION("efficiency with hours") {
    Workload w = hours(quote_workload({"T4"}));
    w.duration.efficiency = Decimal::parse("0.5");
    CHECK_THAT(resolve_error(w).reason(), Catch::Contains("efficiency applies only to pflop"));
  }
  SECTION("a reference GPU without throughput at the precision") {
    Workload w = quote_workload({});
    w.duration.gpu_hours = Decimal(10);
    w.duration.reference_gpu = "P40";
    w.duration.precision = Precision::fp16;
    CHECK_THAT(resolve_error(w).reason(), Catch::Contains("P40 has no fp16 throughput"));
  }
  SECTION("an unknown mode, currency or date") {
    Workload w = hours(quote_workload({"T4"}));
    w.modes = {"monthly"};
    CHECK(resolve_error(w).place() == "/modes/0");
    w.modes = {};
    w.currency = "RMB";
    CHECK(resolve_error(w).field() == "currency");
    w.currency.reset();
    w.date = "2023-02-30";
    CHECK(resolve_error(w).field() == "date");
  }
}

TEST_CASE("a field set by a flag is named by the flag", "[workload]") {
  Workload w = hours(quote_workload({"T4"}));
  w.gpu.count = 0;
  w.flags["/gpu/count"] = "--count";
  const InputError e = resolve_error(w);
  CHECK(e.file() == "command line");
  CHECK(e.field() == "--count");
  CHECK_THAT(std::string(e.what()), Catch::StartsWith("command line: field '--count'"));
}

TEST_CASE("malformed workload files name file, pointer and field", "[workload]") {
  InputError e = parse_error(R"({"duration": {"hours": 1.5}})");
  CHECK(e.file() == "w.json");
  CHECK(e.place() == "/duration");
  CHECK(e.field() == "hours");
  CHECK_THAT(e.reason(), Catch::Contains("cannot be read exactly"));

  e = parse_error(R"({"duration": {"hour": 10}})");
  CHECK(e.field() == "hour");
  CHECK_THAT(e.reason(), Catch::Contains("did you mean 'hours'"));

  e = parse_error("{\n  \"gpu\": {\"count\": 2,}\n}");
  CHECK(e.place() == "line 2");

  e = parse_error(R"({"gpu": {"count": -1}})");
  CHECK(e.field() == "count");

  e = parse_error(R"({"gpu": {"models": ["V100", 7]}})");
  CHECK(e.place() == "/gpu/models/1");

  e = parse_error(R"({"storage": {"dataset_gb": "-5"}})");
  CHECK_THAT(e.reason(), Catch::Contains("must not be negative"));

  e = parse_error(R"({"format": "gpubill-workload/2"})");
  CHECK(e.field() == "format");

  e = parse_error(R"({"duration": {"precision": "fp8"}})");
  CHECK(e.field() == "precision");

  CHECK_THROWS_AS(load_workload_file("/nonexistent/w.json"), InputError);
}
