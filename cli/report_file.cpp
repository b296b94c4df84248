#include "report_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "gpubill/base/errors.hpp"

namespace gpubill::cli {

namespace {

namespace fs = std::filesystem;

constexpr std::string_view kMark = "<meta name=\"generator\" content=\"gpubill\">";

[[noreturn]] void fail(const std::string& path, const std::string& why) {
  throw InputError(path, "", "--output", why);
}

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  return fs::equivalent(a, b, ec) && !ec;
}

// Whether the file's first 4 KiB carry gpubill's generator mark (a report it wrote before).
bool written_by_gpubill(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string head(4096, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  return head.find(kMark) != std::string::npos;
}

void check_target(const std::string& path, const std::string& db_path, bool force) {
  if (!db_path.empty()) {
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
      if (same_file(path, db_path + suffix)) {
        fail(path, "is the database gpubill has open: a report never overwrites it");
      }
    }
  }
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (!fs::exists(status)) return;
  if (!fs::is_regular_file(status)) fail(path, "exists and is not a regular file");
  if (!force && !written_by_gpubill(path)) {
    fail(path,
         "exists and is not a report gpubill wrote: give another file, or --force to replace it");
  }
}

void write_all(int fd, std::string_view page, const std::string& path, const std::string& temp) {
  const char* p = page.data();
  std::size_t n = page.size();
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      const int error = w < 0 ? errno : EIO;
      ::close(fd);
      ::unlink(temp.c_str());
      fail(path, std::string("could not be written: ") + std::strerror(error));
    }
    p += w;
    n -= static_cast<std::size_t>(w);
  }
}

}  // namespace

void write_report_file(const std::string& path, std::string_view page, const std::string& db_path,
                       bool force) {
  if (path == "-") {
    std::cout << page;
    return;
  }
  check_target(path, db_path, force);
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string temp = (dir / ("." + target.filename().string() + ".gpubill-XXXXXX")).string();
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) {
    fail(path, std::string("cannot be written: cannot create a temporary file in '") +
                   dir.string() + "': " + std::strerror(errno));
  }
  const mode_t mask = ::umask(0);
  ::umask(mask);
  (void)::fchmod(fd, 0666 & ~mask);
  write_all(fd, page, path, temp);
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const int error = errno;
    ::unlink(temp.c_str());
    fail(path, std::string("could not be written: ") + std::strerror(error));
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(temp.c_str());
    fail(path, std::string("could not be written: ") + std::strerror(error));
  }
}

}  // namespace gpubill::cli
