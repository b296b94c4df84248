// Private to the engine: one write transaction that takes SQLite's write lock up front and says
// who holds it when another process has to wait.
#pragma once

#include <SQLiteCpp/SQLiteCpp.h>

#include <string>

namespace gpubill {

// BEGIN IMMEDIATE: the write lock is taken before anything is read, so two writers queue (for
// the connection's busy timeout) instead of one failing half-way with "database is locked"
// after it read. While it is held, a note `<database>-writer` beside the file names the work
// and the process; a writer that waits in vain gets a StoreError naming them. Rolls back on
// destruction unless committed. Throws StoreError when the lock cannot be had.
class WriteTransaction {
 public:
  // `work` is what the holder does, e.g. "replay" or "catalog import"; `path` the database file
  // ("" or ":memory:" for none: no note is written).
  WriteTransaction(SQLite::Database& db, const std::string& path, const std::string& work);
  ~WriteTransaction();
  WriteTransaction(const WriteTransaction&) = delete;
  WriteTransaction& operator=(const WriteTransaction&) = delete;

  void commit();

 private:
  void drop_note() noexcept;

  SQLite::Database& db_;
  std::string note_;  // path of the holder note, empty when none
  bool open_ = false;
};

// What the holder note of the database at `path` says, as "a replay (pid 123) since
// 2026-11-30 22:10:03 UTC", or "another process" when there is no note or its process is gone.
std::string describe_lock_holder(const std::string& path);

}  // namespace gpubill
