// gpubill: the command-line front end. Parses arguments, calls the library, prints.
#include <cstdlib>
#include <iostream>

#ifdef __GLIBC__
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#endif

#include "commands.hpp"
#include "gpubill/base/errors.hpp"
#include "output.hpp"
#include "stdout_buffer.hpp"
#include "usage_hint.hpp"

namespace gpubill::cli {

void add_db_option(CLI::App& sub, Globals& globals) {
  sub.add_option("--db", globals.db_path,
                 "Database file (default: $GPUBILL_DB, else ~/.local/share/gpubill/gpubill.db)");
  sub.add_flag("--wide", globals.wide,
               "Text tables: show every cell whole (on a terminal, long cells are cut to fit its "
               "width)");
}

#ifdef __GLIBC__
// The first 32 MB of the heap in transparent huge pages, where the system gives them to those
// who ask (madvise, Debian's default). Most of a short command's time after its start was the
// kernel faulting in fresh 4 KB pages one by one (1,606 faults in a quote); in 2 MB pages a
// quote takes about a fifth less time (docs/benchmarks.md, Quote), as glibc's own
// `GLIBC_TUNABLES=glibc.malloc.hugetlb=1` does. The heap is grown once by that much (memory is
// taken only when touched) and the whole 2 MB pages in it are marked; growth beyond it is in
// ordinary pages. Nothing changes where the kernel refuses: the advice is only advice.
void use_huge_pages_for_heap() {
  constexpr std::size_t kHuge = std::size_t{2} << 20;
  constexpr std::size_t kReserve = std::size_t{32} << 20;
  // Below M_MMAP_THRESHOLD, so from the heap, which grows by that much; freed, it stays the
  // heap's top (M_TRIM_THRESHOLD) for the allocations that follow.
  void* block = std::malloc(kReserve);
  if (block == nullptr) return;
  const auto start = reinterpret_cast<std::uintptr_t>(block);
  const auto end = reinterpret_cast<std::uintptr_t>(sbrk(0));
  std::free(block);
  const std::uintptr_t first = (start + kHuge - 1) & ~(kHuge - 1);
  const std::uintptr_t last = end & ~(kHuge - 1);
  if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
}
#endif

}  // namespace gpubill::cli

int main(int argc, char** argv) {
  using namespace gpubill;
#ifdef __GLIBC__
  // A command lives for milliseconds to minutes and builds its catalog, index and ledgers in
  // vectors of a few MB. glibc serves blocks above 128 KB with mmap and returns them at once,
  // so every growth of such a vector faulted fresh pages in: about a tenth of a quote's time.
  // Served from the heap instead, freed memory is reused (docs/benchmarks.md, Quote).
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  cli::use_huge_pages_for_heap();
#endif
  CLI::App app{"gpubill: prices and bills GPU cloud servers under each provider's real rules"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "gpubill 0.1.0");
  cli::Globals globals;
  cli::add_db_option(app, globals);
  cli::Action action;
  cli::add_catalog_commands(app, globals, action);
  cli::add_quote_commands(app, globals, action);
  cli::add_tco_commands(app, globals, action);
  cli::add_bill_commands(app, globals, action);
  cli::add_replay_commands(app, globals, action);
  cli::add_report_commands(app, globals, action);
  cli::add_reconcile_command(app, globals, action);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    const std::string hint = cli::usage_hint(app, std::vector<std::string>(argv + 1, argv + argc));
    std::cerr << "gpubill: " << printable(hint.empty() ? std::string(e.what()) : hint)
              << "\nRun with --help for the commands and their flags.\n";
    return cli::kExitUsage;
  }
  cli::set_text_layout(cli::terminal_layout(globals.wide));
  // A write that fails (a full disk, a closed descriptor) stops the command with exit 1.
  cli::CheckedStdout out;
  try {
    const int status = action ? action() : cli::kExitOk;
    out.finish();
    return status;
  } catch (const gpubill::Error& e) {
    out.release();
    std::cerr << "gpubill: " << printable(e.what()) << "\n";
    return cli::kExitError;
  } catch (const std::exception& e) {
    out.release();
    std::cerr << "gpubill: internal error (please report it): " << printable(e.what()) << "\n";
    return cli::kExitInternal;
  }
}
