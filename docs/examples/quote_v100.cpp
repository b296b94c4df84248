// Using gpubill as a library: quote one V100 for a month on the bundled catalog and print the
// three cheapest lines. Built against the installed package by tests/cli/install_example.sh:
//   c++ quote_v100.cpp $(pkg-config --cflags --libs gpubill) -o quote_v100
#include <gpubill/catalog/catalog_import.hpp>
#include <gpubill/quote/quote.hpp>
#include <gpubill/quote/workload.hpp>
#include <gpubill/store/db.hpp>

#include <iostream>

int main() {
  // A private in-memory database, filled with the catalog compiled into the library.
  gpubill::Database db = gpubill::Database::open(":memory:");
  gpubill::ensure_bundled_catalog(db);

  gpubill::Workload w;
  w.gpu.models = {"V100"};
  w.duration.hours = gpubill::Decimal(720);
  w.currency = "USD";

  const gpubill::Catalog catalog = gpubill::Catalog::load(db);
  const gpubill::QuoteEngine engine(catalog);
  const gpubill::QuoteResult result =
      engine.quote(gpubill::resolve_workload(w, catalog), gpubill::QuoteOptions{3});
  for (const gpubill::QuoteLine& line : result.lines) {
    if (!line.priced) continue;
    std::cout << line.rank << "  " << line.id << "  " << line.total->to_string() << "\n";
  }
  return result.lines_priced > 0 ? 0 : 1;
}
