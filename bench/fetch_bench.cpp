// `catalog fetch` of an AWS offer file: the conversion alone (simdjson On-Demand, streamed) and
// the whole fetch in process (download from a recording, convert, import in one transaction with
// `catalog check`), in offer-file products per second, with the process's peak RSS.
//
//   scripts/fetch/make_recordings.py --aws-bench 10000 /tmp/aws-bench
//   build/gpubill init --db /tmp/fetch-bench.db
//   build/bench/gpubill_fetch_bench /tmp/aws-bench /tmp/fetch-bench.db
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

#include "gpubill/catalog/catalog.hpp"
#include "gpubill/fetch/fetch.hpp"
#include "gpubill/fetch/price_list.hpp"
#include "gpubill/store/db.hpp"

using namespace gpubill;

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

long peak_rss_mib() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s RECORDING_DIR DATABASE (a copy is written beside it)\n",
                 argv[0]);
    return 2;
  }
  const std::string dir = argv[1], original = argv[2], copy = original + ".bench";
  const std::string file = dir + "/page-1.json";
  std::size_t products = 0;
  {
    auto db = Database::open(original);
    const Catalog catalog = Catalog::load(db);
    PriceListRows rows;
    const PriceListContext context{&catalog, "us-east-1", true, Instant{}, "bench [P]"};
    const auto start = std::chrono::steady_clock::now();
    (void)convert_aws_offer_file(file, file, context, rows);
    const double s = seconds_since(start);
    products = rows.read;
    std::printf("convert: %zu products, %zu price rows in %.3f s: %.0f products/s\n", rows.read,
                rows.prices.size(), s, rows.read / s);
  }
  std::filesystem::copy_file(original, copy, std::filesystem::copy_options::overwrite_existing);
  {
    auto db = Database::open(copy);
    auto transport = make_recorded_transport(dir);
    FetchRequest request;
    request.provider = PriceListProvider::aws;
    request.gpu_only = true;
    const auto start = std::chrono::steady_clock::now();
    const FetchReport report = fetch_price_list(db, *transport, request);
    const double s = seconds_since(start);
    std::printf(
        "fetch (convert + import + catalog check): %zu products, %zu prices in %.3f s: "
        "%.0f products/s\n",
        report.read, report.import.prices, s, report.read / s);
  }
  std::filesystem::remove(copy);
  std::printf("peak RSS: %ld MiB (%zu products)\n", peak_rss_mib(), products);
  return 0;
}
