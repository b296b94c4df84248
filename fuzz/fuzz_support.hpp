// Shared by the libFuzzer targets: the bundled catalog, loaded once per process.
#pragma once

#include "gpubill/catalog/catalog.hpp"
#include "gpubill/catalog/catalog_import.hpp"
#include "gpubill/store/db.hpp"

namespace gpubill::fuzz {

inline const Catalog& bundled_catalog() {
  static const Catalog catalog = [] {
    auto db = Database::open(":memory:");
    ensure_bundled_catalog(db);
    return Catalog::load(db);
  }();
  return catalog;
}

}  // namespace gpubill::fuzz
