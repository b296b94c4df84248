// Private to the engine: "did you mean …?" suggestions for misspelt names (GPU models,
// providers, regions, JSON fields).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gpubill::text_match {

enum class Case { sensitive, insensitive };

// s with ASCII letters in lower case; other bytes (UTF-8 included) unchanged.
std::string to_lower(std::string_view s);

// Levenshtein distance: the fewest single-byte insertions, deletions and substitutions that
// turn a into b; with Case::insensitive, ASCII letters compare without case.
std::size_t edit_distance(std::string_view a, std::string_view b, Case c = Case::insensitive);

// Up to n distinct candidates, closest to name first (case-insensitive distance, then text).
std::vector<std::string> closest(std::string_view name, const std::vector<std::string>& candidates,
                                 std::size_t n);

}  // namespace gpubill::text_match
