// libFuzzer: a provider's billing export (any format, detected from its header) reconciled
// against an account with no charges. Bad input must end in gpubill::Error, never a crash;
// every line read is an extra line or matched within the tolerance.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "gpubill/base/errors.hpp"
#include "gpubill/catalog/catalog_import.hpp"
#include "gpubill/reconcile/reconcile.hpp"
#include "gpubill/store/db.hpp"

namespace {

gpubill::Database& database() {
  static gpubill::Database db = [] {
    auto d = gpubill::Database::open(":memory:");
    gpubill::ensure_bundled_catalog(d);
    return d;
  }();
  return db;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // The readers stream a file: the input is written to one first.
  static const std::string path = "/tmp/gpubill-fuzz-reconcile-" + std::to_string(::getpid());
  if (FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(data, 1, size, f);
    std::fclose(f);
  } else {
    return 0;
  }
  gpubill::ReconcileOptions options;
  options.account = "fuzz";
  options.invoice_path = path;
  try {
    const auto report = gpubill::reconcile(database(), options);
    for (const auto& d : report.differences) {
      if (d.kind != gpubill::DifferenceKind::extra) __builtin_trap();  // no charges: only extras
    }
  } catch (const gpubill::Error&) {
  }
  return 0;
}
