#include "store/connection.hpp"

#include <sqlite3.h>

#include <limits>

#include "gpubill/base/errors.hpp"
#include "store/postgres_module.hpp"

namespace gpubill {

namespace store {

std::unique_ptr<Connection> Connection::open(const std::string& target,
                                             const ConnectOptions& options) {
  if (is_postgres_url(target)) return open_postgres(target, options);
  return open_sqlite(target, options);
}

bool names_table(std::string_view sql, std::string_view table) noexcept {
  const auto word = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  };
  for (auto at = sql.find(table); at != std::string_view::npos; at = sql.find(table, at + 1)) {
    const auto end = at + table.size();
    if ((at == 0 || !word(sql[at - 1])) && (end == sql.size() || !word(sql[end]))) return true;
  }
  return false;
}

bool Column::isNull() const {
  if (s_.raw_) return sqlite3_column_type(s_.raw_, index_) == SQLITE_NULL;
  return s_.impl_->is_null(index_);
}

std::int64_t Column::getInt64() const {
  if (s_.raw_) return sqlite3_column_int64(s_.raw_, index_);
  return s_.impl_->get_int(index_);
}

int Column::getInt() const {
  const auto v = getInt64();
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) {
    throw StoreError(std::string("column ") + getName() + ": " + std::to_string(v) +
                     " does not fit an int");
  }
  return static_cast<int>(v);
}

const char* Column::getText() const {
  if (s_.raw_) {
    const auto* text = sqlite3_column_text(s_.raw_, index_);
    return text ? reinterpret_cast<const char*>(text) : "";
  }
  return s_.impl_->get_text_view(index_).data();
}

std::string_view Column::getStringView() const {
  if (s_.raw_) {
    const char* text = getText();  // before the length, as SQLite's documentation asks
    return {text, static_cast<std::size_t>(sqlite3_column_bytes(s_.raw_, index_))};
  }
  return s_.impl_->get_text_view(index_);
}

std::string Column::getString() const {
  return std::string(getStringView());
}

std::string Column::getBlob() const {
  if (s_.raw_) {
    const void* bytes = sqlite3_column_blob(s_.raw_, index_);
    const auto size = static_cast<std::size_t>(sqlite3_column_bytes(s_.raw_, index_));
    return bytes ? std::string(static_cast<const char*>(bytes), size) : std::string();
  }
  return s_.impl_->get_blob(index_);
}

const char* Column::getName() const {
  return s_.impl_->column_name(index_);
}

Statement::Statement(Connection& db, std::string_view sql) : impl_(db.prepare(sql)) {
  raw_ = impl_->sqlite_statement();
  if (raw_) raw_columns_ = sqlite3_column_count(raw_);
}
Statement::~Statement() = default;

void Statement::bind(int index, std::int64_t value) {
  impl_->bind_int(index, value);
}
void Statement::bind(int index, std::string_view value) {
  impl_->bind_text(index, value);
}
void Statement::bind(int index) {
  impl_->bind_null(index);
}
void Statement::bindBlob(int index, std::string_view bytes) {
  impl_->bind_blob(index, bytes);
}
void Statement::stream(int batch_rows) {
  if (batch_rows < 1) throw StoreError("a streamed query needs batches of at least one row");
  impl_->set_stream(batch_rows);
}
bool Statement::executeStep() {
  return impl_->step();
}
int Statement::exec() {
  return impl_->run();
}
void Statement::bindNoCopy(int index, const std::string& value) {
  impl_->bind_text_static(index, value);
}
Column Statement::checked_column(int index) const {
  if (index < 0 || index >= impl_->column_count()) {
    throw StoreError("no column " + std::to_string(index) + " in a result of " +
                     std::to_string(impl_->column_count()));
  }
  return Column(*this, index);
}
int Statement::getColumnCount() const {
  return impl_->column_count();
}
void Statement::reset() {
  impl_->reset();
}
void Statement::clearBindings() {
  impl_->clear();
}

Transaction::Transaction(Connection& db, Kind kind, const std::string& work,
                         const std::optional<std::string>& account)
    : db_(db) {
  if (kind == Kind::write) {
    db_.begin_write(work, account);
  } else {
    db_.begin_read();
  }
  open_ = true;
}

Transaction::~Transaction() {
  if (open_) db_.rollback();
}

void Transaction::commit() {
  open_ = false;
  try {
    db_.commit();
  } catch (...) {
    db_.rollback();  // whatever the commit left open; nothing when the backend ended it
    throw;
  }
}

}  // namespace store
}  // namespace gpubill
