// The progress bar long commands (replay, rebuild, void, catalog import) draw on stderr: only
// when stderr is a terminal and --quiet is not given, redrawn in place at most ten times a
// second. The library reports how far it has read (gpubill/base/progress.hpp); the bar measures the
// time for the rate and the ETA.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "gpubill/base/progress.hpp"

namespace CLI {
class App;
}

namespace gpubill::cli {

// Adds "--quiet" (no progress bar) to a subcommand.
void add_quiet_option(CLI::App& sub, bool& quiet);

class ProgressBar {
 public:
  using Clock = std::chrono::steady_clock;

  // Draws on stderr when it is a terminal and !quiet; times the work from now.
  explicit ProgressBar(bool quiet);
  // Ends the line it drew (a newline), so that what follows starts on a line of its own:
  // call it when the work is done; the destructor calls it too (an error's message).
  void finish();
  ~ProgressBar() { finish(); }
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // What to give the library: empty when the bar does not draw.
  ProgressSink sink();

 private:
  void draw(const Progress& p);

  bool enabled_ = false;
  bool drawn_ = false;
  Clock::time_point start_{}, last_draw_{};
};

}  // namespace gpubill::cli
