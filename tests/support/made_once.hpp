// Files the tests make once per build and share (a database with the bundled catalog, the same
// after some imports): beside the CLI, in build/test-databases/, named after the stamps of what
// they are made from, so that a rebuilt program or a changed input makes a new one.
#pragma once

#include <catch2/catch.hpp>

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>

namespace gpubill::testing {

// The stamp (size and modification time) of `path`, as text for a file name.
inline std::string file_stamp(const std::filesystem::path& path) {
  namespace fs = std::filesystem;
  const auto time = static_cast<unsigned long long>(  // file_clock's epoch may lie ahead
      fs::last_write_time(path).time_since_epoch().count());
  return std::to_string(fs::file_size(path)) + "-" + std::to_string(time);
}

// build/test-databases/`name`, made by `make` unless it is there. `make` writes a file of this
// process's own (its argument), which is then linked into place: tests running at once never
// read half of one, and the first one made stays (no reader sees its file replaced).
inline std::string made_once(const std::string& name,
                             const std::function<void(const std::string& partial)>& make) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(GPUBILL_CLI_PATH).parent_path() / "test-databases";
  const fs::path path = dir / name;
  if (fs::exists(path)) return path.string();
  fs::create_directories(dir);
  const fs::path mine = dir / ("making-" + std::to_string(::getpid()) + "-" + name);
  fs::remove(mine);
  make(mine.string());
  if (::link(mine.c_str(), path.c_str()) != 0 && errno != EEXIST) {
    FAIL("cannot link " << mine << " to " << path << ": " << std::strerror(errno));
  }
  fs::remove(mine);
  return path.string();
}

}  // namespace gpubill::testing
