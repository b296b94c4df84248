// The umbrella header compiles on its own and brings every area's API.
#include "gpubill/gpubill.hpp"

#include <catch2/catch.hpp>

TEST_CASE("gpubill/gpubill.hpp includes the whole public API", "[api]") {
  const gpubill::Money price(gpubill::Decimal::parse("13.86"), gpubill::Currency::parse("CNY"));
  CHECK(price.to_string() == "13.86 CNY");
  CHECK(gpubill::latest_schema_version() > 0);
  CHECK(gpubill::is_postgres_url("postgresql://h/db"));
  CHECK(gpubill::kDefaultReplayCacheKiB > 0);
}
