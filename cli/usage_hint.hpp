// What a usage error means on gpubill's command line, with a suggestion: an unknown command
// ("gpubill qoute": unknown command 'qoute'; did you mean `quote`?) or a mistyped flag
// ("--curency": did you mean `--currency`?).
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace gpubill::cli {

// The message for a command line that failed to parse, read from its words (`args`, without
// the program name) against the commands and flags `app` defines; "" when it finds nothing
// better to say than CLI11's own message.
std::string usage_hint(CLI::App& app, const std::vector<std::string>& args);

// Up to three of `candidates` within a small edit distance of `word`, closest first.
std::vector<std::string> close_names(const std::string& word,
                                     const std::vector<std::string>& candidates);

}  // namespace gpubill::cli
