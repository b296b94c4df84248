#include "store/connection.hpp"

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

bool Column::isNull() const {
  return s_.is_null(index_);
}

std::int64_t Column::getInt64() const {
  return s_.get_int(index_);
}

int Column::getInt() const {
  const auto v = s_.get_int(index_);
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) {
    throw StoreError("column " + getName() + ": " + std::to_string(v) + " does not fit an int");
  }
  return static_cast<int>(v);
}

std::string Column::getString() const {
  return s_.get_text(index_);
}

std::string Column::getBlob() const {
  return s_.get_blob(index_);
}

std::string Column::getName() const {
  return s_.column_name(index_);
}

Statement::Statement(Connection& db, std::string_view sql) : impl_(db.prepare(sql)) {}
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
bool Statement::executeStep() {
  return impl_->step();
}
int Statement::exec() {
  return impl_->run();
}
Column Statement::getColumn(int index) const {
  if (index < 0 || index >= impl_->column_count()) {
    throw StoreError("no column " + std::to_string(index) + " in a result of " +
                     std::to_string(impl_->column_count()));
  }
  return Column(*impl_, index);
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
