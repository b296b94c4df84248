// Values the tests write often, shared so that each test file does not define its own copy (the
// tests compile as one unity file per tests/<area>/, where two copies clash).
#pragma once

#include <catch2/catch.hpp>

#include <string>

#include "gpubill/base/money.hpp"
#include "gpubill/base/time.hpp"
#include "gpubill/catalog/catalog.hpp"
#include "gpubill/catalog/catalog_import.hpp"
#include "gpubill/store/db.hpp"

namespace gpubill::testing {

// An instant written as ISO 8601 with an offset, or a date (midnight UTC).
inline Instant at(const char* text) {
  return parse_instant(text, true);
}

// An exact amount in CNY, e.g. cny("12.34").
inline Money cny(const char* amount) {
  return Money(Decimal::parse(amount), Currency::parse("CNY"));
}

// `text` with the first occurrence of `from` replaced by `to`; fails the test when `from` is not
// there (a fixture that changed would otherwise test nothing).
inline std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  const auto pos = text.find(from);
  REQUIRE(pos != std::string::npos);
  return text.replace(pos, from.size(), to);
}

// A workload file's text: `gpu` is the JSON of its "gpu" member, 720 hours from `date`, and
// `more` any further members (each starting with a comma).
inline std::string workload_json(const std::string& gpu, const std::string& date,
                                 const std::string& more = "") {
  return R"({"format": "gpubill-workload/1", "gpu": )" + gpu +
         R"(, "duration": {"hours": 720}, "date": ")" + date + "\"" + more + "}";
}

// The bundled catalog (fixtures/catalog/), imported once per test process into memory.
inline const Catalog& bundled_catalog() {
  static const Catalog catalog = [] {
    auto db = Database::open(":memory:");
    ensure_bundled_catalog(db);
    return Catalog::load(db);
  }();
  return catalog;
}

}  // namespace gpubill::testing
