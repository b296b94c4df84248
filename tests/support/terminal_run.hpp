// Runs the built `gpubill` on a pseudo-terminal (made by script(1)) of a given width, for the
// tests of what a terminal shows.
#pragma once

#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "text_width.hpp"

namespace gpubill::testing {

struct TerminalRun {
  int status = -1;
  std::string output;  // what the terminal received, "\r\n" turned into "\n"
};

// `gpubill ARGS` on a terminal `columns` wide; `args` are appended as they are.
inline TerminalRun on_terminal(const std::string& args, int columns) {
  const std::string command =
      "stty cols " + std::to_string(columns) + "; '" + GPUBILL_CLI_PATH + "' " + args;
  TerminalRun r;
  // script -e returns the command's status.
  FILE* pipe = ::popen(("script -qec \"" + command + "\" /dev/null").c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buffer[4096];
  std::size_t n;
  std::string raw;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) raw.append(buffer, n);
  const int status = ::pclose(pipe);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '\r' && i + 1 < raw.size() && raw[i + 1] == '\n') continue;
    r.output += raw[i];
  }
  return r;
}

// The lines of a text.
inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

}  // namespace gpubill::testing
