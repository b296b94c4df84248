// Files a user names on the command line: catalogs, workloads, lease-vs-buy configurations,
// usage logs. One place says what is wrong with one that cannot be read.
#pragma once

#include <cstddef>
#include <string>

namespace gpubill {

// Throws InputError naming `path` when it does not exist, is a directory, or cannot be opened
// for reading (with the system's reason).
void check_input_file(const std::string& path);

// The whole file, after check_input_file. Throws InputError when it is larger than `max_bytes`
// (default 1 GiB) or a read fails.
std::string read_input_file(const std::string& path, std::size_t max_bytes = std::size_t{1} << 30);

}  // namespace gpubill
