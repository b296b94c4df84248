// gpubill: the command-line front end. Parses arguments, calls the library, prints.
#include <cstdlib>
#include <iostream>

#ifdef __GLIBC__
#include <malloc.h>
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
