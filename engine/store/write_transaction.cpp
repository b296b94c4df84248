#include "store/write_transaction.hpp"

#include <signal.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>

#include "gpubill/base/errors.hpp"
#include "gpubill/base/time.hpp"

namespace gpubill {

namespace {

bool has_file(const std::string& path) {
  return !path.empty() && path != ":memory:";
}

std::string note_path(const std::string& path) {
  return path + "-writer";
}

}  // namespace

std::string describe_lock_holder(const std::string& path) {
  const std::string fallback = "another process";
  if (!has_file(path)) return fallback;
  std::ifstream in(note_path(path));
  std::string work;
  long pid = 0;
  if (!(in >> pid) || !std::getline(in >> std::ws, work) || pid <= 0) return fallback;
  // A note left by a killed process (SIGKILL skips the destructor) names nobody.
  if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) return fallback;
  std::string since;
  std::error_code ec;
  const auto written = std::filesystem::last_write_time(note_path(path), ec);
  if (!ec) {
    const auto system = std::chrono::file_clock::to_sys(written);
    since = " since " + format_instant(std::chrono::floor<std::chrono::seconds>(system));
  }
  return "a " + work + " (pid " + std::to_string(pid) + ")" + since;
}

WriteTransaction::WriteTransaction(SQLite::Database& db, const std::string& path,
                                   const std::string& work)
    : db_(db) {
  try {
    db_.exec("BEGIN IMMEDIATE");
  } catch (const SQLite::Exception& e) {
    if (e.getErrorCode() == SQLITE_BUSY) {
      throw StoreError("database '" + path + "' is being written by " + describe_lock_holder(path) +
                       "; gave up waiting after the busy timeout (GPUBILL_BUSY_TIMEOUT, seconds)");
    }
    throw StoreError("cannot start a write transaction on '" + path + "': " + e.what());
  }
  open_ = true;
  if (has_file(path)) {
    // Best effort: the note only improves another writer's message.
    std::ofstream out(note_path(path), std::ios::trunc);
    if (out << ::getpid() << ' ' << work << '\n') note_ = note_path(path);
  }
}

WriteTransaction::~WriteTransaction() {
  drop_note();
  if (open_) {
    try {
      db_.exec("ROLLBACK");
    } catch (...) {
      // The connection is unusable; SQLite rolls back when it closes.
    }
  }
}

void WriteTransaction::commit() {
  drop_note();  // while the lock is still held, so the next writer's note survives
  db_.exec("COMMIT");
  open_ = false;
}

void WriteTransaction::drop_note() noexcept {
  if (note_.empty()) return;
  std::error_code ec;
  std::filesystem::remove(note_, ec);
  note_.clear();
}

}  // namespace gpubill
