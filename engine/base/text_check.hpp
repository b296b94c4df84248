// Private to the engine: what a name or id read from a file may contain. Every text field of a
// usage log, a SkyPilot CSV and a catalog file passes through here, so that nothing stored can
// later break a JSON export (invalid UTF-8), a table (a newline) or a terminal (escapes).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace gpubill::text_check {

// Ids and names: accounts, instances, event ids, providers, regions, instance types, GPUs.
constexpr std::size_t kMaxNameBytes = 256;
// Free text: a source, a note, a description.
constexpr std::size_t kMaxTextBytes = 4096;

// Why `text` is not acceptable, or nullopt: not valid UTF-8 (overlong forms, surrogates and
// code points above U+10FFFF included), a control character (U+0000–U+001F, U+007F–U+009F),
// or longer than `max_bytes`.
std::optional<std::string> problem(std::string_view text, std::size_t max_bytes);

// problem(), and for a name that people read and type (an account, an instance, an event id):
// nothing but white space, or a character that shows nothing or reorders the text around it
// (zero-width spaces and joiners, U+FEFF, bidirectional marks, overrides and isolates).
std::optional<std::string> name_problem(std::string_view text, std::size_t max_bytes);

// `text` with every control character but tab and newline, and every byte that is not part of
// valid UTF-8, written as \xHH: safe to print on a terminal (an escape sequence in a log line
// would otherwise reach it through an error message quoting the line).
std::string escaped(std::string_view text);

// Only the UTF-8 check: the byte offset of the first invalid sequence, or nullopt.
std::optional<std::size_t> invalid_utf8_at(std::string_view text);

}  // namespace gpubill::text_check
