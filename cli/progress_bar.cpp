#include "progress_bar.hpp"

#include <sys/ioctl.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace gpubill::cli {

namespace {

constexpr auto kRedrawEvery = std::chrono::milliseconds(100);
constexpr std::size_t kBarColumns = 20;

// Columns of the terminal on stderr (80 when it does not say).
std::size_t terminal_width() {
  winsize ws{};
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 80;
}

std::string one_decimal(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// "1.2/2.7 MB" for bytes (B, kB, MB or GB by the larger of the two), "1200/5000 rows" otherwise.
std::string amounts(const Progress& p) {
  const bool bytes = p.unit == "bytes";
  const std::uint64_t larger = std::max(p.done, p.total);
  const char* unit = larger < 1000           ? "B"
                     : larger < 1000'000     ? "kB"
                     : larger < 1000'000'000 ? "MB"
                                             : "GB";
  const double scale = larger < 1000           ? 1
                       : larger < 1000'000     ? 1e3
                       : larger < 1000'000'000 ? 1e6
                                               : 1e9;
  const auto text = [&](std::uint64_t v) {
    if (!bytes) return std::to_string(v);
    return scale == 1 ? std::to_string(v) : one_decimal(static_cast<double>(v) / scale);
  };
  std::string out = text(p.done);
  if (p.total > 0) out += "/" + text(p.total);
  return out + " " + (bytes ? unit : std::string(p.unit));
}

std::string clock_text(double seconds) {
  const auto s = static_cast<long>(seconds + 0.5);
  const std::string ss = std::to_string(s % 60);
  return std::to_string(s / 60) + ":" + (ss.size() < 2 ? "0" : "") + ss;
}

// "replay [#####-------]  45%  1.2/2.7 MB  8120 events/s  ETA 0:12", fields dropped from the
// right to fit `width` columns (ASCII only: one byte a column).
std::string line(const Progress& p, double elapsed, std::size_t width) {
  std::vector<std::string> fields{std::string(p.stage)};
  if (p.total > 0) {
    const std::uint64_t done = std::min(p.done, p.total);
    const auto filled = static_cast<std::size_t>(done * kBarColumns / p.total);
    fields.push_back("[" + std::string(filled, '#') + std::string(kBarColumns - filled, '-') +
                     "] " + std::to_string(done * 100 / p.total) + "%");
  }
  fields.push_back(amounts(p));
  if (elapsed >= 0.05) {
    fields.push_back(std::to_string(static_cast<long>(static_cast<double>(p.items) / elapsed)) +
                     " " + std::string(p.items_unit) + "/s");
  }
  if (p.total > 0 && p.done >= p.total) {
    fields.push_back("done in " + one_decimal(elapsed) + " s");
  } else if (p.total > 0 && p.done > 0 && elapsed >= 0.05) {
    const double left =
        elapsed * static_cast<double>(p.total - p.done) / static_cast<double>(p.done);
    fields.push_back("ETA " + clock_text(left));
  }
  std::string out;
  for (const auto& f : fields) {
    const std::string next = out.empty() ? f : out + "  " + f;
    if (next.size() + 1 > width) break;  // keep the last column free: no wrap
    out = next;
  }
  return out;
}

}  // namespace

void add_quiet_option(CLI::App& sub, bool& quiet) {
  sub.add_flag("--quiet,-q", quiet,
               "No progress bar (it is drawn on standard error only when that is a terminal)");
}

ProgressBar::ProgressBar(bool quiet)
    : enabled_(!quiet && ::isatty(STDERR_FILENO) == 1), start_(Clock::now()) {}

void ProgressBar::finish() {
  if (drawn_) std::fputs("\n", stderr);
  drawn_ = false;
  enabled_ = false;  // a late report draws nothing
}

ProgressSink ProgressBar::sink() {
  if (!enabled_) return {};
  return [this](const Progress& p) { draw(p); };
}

void ProgressBar::draw(const Progress& p) {
  if (!enabled_) return;
  const auto now = Clock::now();
  const bool last = p.total > 0 && p.done >= p.total;
  if (drawn_ && !last && now - last_draw_ < kRedrawEvery) return;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  // \r back to the line's start, \033[K clears what a longer earlier line left.
  std::fprintf(stderr, "\r%s\033[K", line(p, elapsed, terminal_width()).c_str());
  std::fflush(stderr);
  drawn_ = true;
  last_draw_ = now;
}

}  // namespace gpubill::cli
