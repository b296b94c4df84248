// Quote latency in-process: a QuoteEngine over a synthetic catalog of 100,000 offers
// (synthetic_catalog.hpp), one core. Target: <= 20 ms per quote.
//
//   build-quote/bench/gpubill_quote_bench                 (all benchmarks)
//   build-quote/bench/gpubill_quote_bench --benchmark_filter=Quote
//   GPUBILL_BENCH_OFFERS=20000 build-quote/bench/gpubill_quote_bench
//
// Each quote runs against an engine built once (the index is part of loading a catalog, timed
// separately as BM_BuildEngine). The workloads: a GPU model (selective), an FP32 floor that
// most offers meet (broad), the broad one over 14 months (prepaid plans), work measured in
// GPU-hours (each GPU its own time), and the broad one ranking every line (--top 0).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <iostream>
#include <memory>

#include "gpubill/quote/quote.hpp"
#include "gpubill/quote/workload.hpp"
#include "synthetic_catalog.hpp"

namespace {

using namespace gpubill;

struct Fixture {
  synthetic::Generated generated;
  std::unique_ptr<Catalog> catalog;
  std::unique_ptr<QuoteEngine> engine;
};

std::size_t offers_wanted() {
  if (const char* n = std::getenv("GPUBILL_BENCH_OFFERS")) return std::stoul(n);
  return 100'000;
}

Fixture& fixture() {
  static Fixture f = [] {
    Fixture x;
    synthetic::Options opt;
    opt.offers = offers_wanted();
    x.generated = synthetic::generate(opt);
    x.catalog = std::make_unique<Catalog>(x.generated.data);
    x.engine = std::make_unique<QuoteEngine>(*x.catalog);
    std::cerr << "synthetic catalog: " << x.engine->offer_count() << " offers, "
              << x.catalog->data().prices.size() << " price rows, "
              << x.catalog->data().instance_types.size() << " instance types, "
              << x.catalog->data().providers.size() << " providers\n";
    return x;
  }();
  return f;
}

ResolvedWorkload workload(const std::string& kind) {
  Workload w;
  w.date = format_instant(fixture().generated.quote_at);
  w.duration.hours = Decimal(720);
  if (kind == "selective") {
    w.gpu.models = {"V100"};
  } else if (kind == "broad") {
    w.gpu.min_fp32_tflops = Decimal(5);
  } else if (kind == "months14") {
    w.gpu.min_fp32_tflops = Decimal(5);
    w.duration = {};
    w.duration.months = 14;
  } else if (kind == "work") {
    w.gpu.min_fp32_tflops = Decimal(5);
    w.duration = {};
    w.duration.gpu_hours = Decimal(1000);
    w.duration.reference_gpu = "V100";
  } else if (kind == "storage") {
    w.gpu.min_fp32_tflops = Decimal(5);
    w.storage.dataset_gb = Decimal(500);
  }
  return resolve_workload(w, *fixture().catalog);
}

void run(benchmark::State& state, const std::string& kind, std::size_t top) {
  const QuoteEngine& engine = *fixture().engine;
  const ResolvedWorkload w = workload(kind);
  QuoteOptions options;
  options.top = top;
  std::size_t fitting = 0, priced = 0;
  for (auto _ : state) {
    const QuoteResult q = engine.quote(w, options);
    fitting = q.offers_fitting;
    priced = q.lines_priced;
    benchmark::DoNotOptimize(q.lines.data());
  }
  state.counters["offers"] = static_cast<double>(engine.offer_count());
  state.counters["fitting"] = static_cast<double>(fitting);
  state.counters["priced_lines"] = static_cast<double>(priced);
}

void BM_BuildEngine(benchmark::State& state) {
  const Catalog& catalog = *fixture().catalog;
  for (auto _ : state) {
    QuoteEngine engine(catalog);
    benchmark::DoNotOptimize(engine.offer_count());
  }
}

void BM_QuoteSelectiveTop20(benchmark::State& s) {
  run(s, "selective", 20);
}
void BM_QuoteBroadTop20(benchmark::State& s) {
  run(s, "broad", 20);
}
void BM_QuoteBroad14MonthsTop20(benchmark::State& s) {
  run(s, "months14", 20);
}
void BM_QuoteWorkGpuHoursTop20(benchmark::State& s) {
  run(s, "work", 20);
}
void BM_QuoteBroadStorageTop20(benchmark::State& s) {
  run(s, "storage", 20);
}
void BM_QuoteSelectiveAllLines(benchmark::State& s) {
  run(s, "selective", 0);
}
void BM_QuoteBroadAllLines(benchmark::State& s) {
  run(s, "broad", 0);
}

}  // namespace

BENCHMARK(BM_BuildEngine)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_QuoteSelectiveTop20)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_QuoteBroadTop20)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_QuoteBroad14MonthsTop20)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_QuoteWorkGpuHoursTop20)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_QuoteBroadStorageTop20)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_QuoteSelectiveAllLines)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_QuoteBroadAllLines)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
