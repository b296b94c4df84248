// Where a report is written: never over the database, nor over a file gpubill did not write
// (unless --force), and atomically (a temporary file beside it, then a rename), so that a
// failed or interrupted report leaves the old file whole.
#pragma once

#include <string>
#include <string_view>

namespace gpubill::cli {

// Writes `page` to `path` ("-" = standard output, through std::cout). Throws InputError(path,
// "", "--output", reason) when `path` is the open database `db_path` (or its -wal/-shm files),
// is not a regular file, or is an existing file without gpubill's generator mark (<meta
// name="generator" content="gpubill">) and not `force`; and when the file cannot be written
// (the OS's message).
void write_report_file(const std::string& path, std::string_view page, const std::string& db_path,
                       bool force);

}  // namespace gpubill::cli
