// Where a gpubill database lives: an SQLite file path or a PostgreSQL URL, and the errors of
// reaching a PostgreSQL server (docs/postgresql.md).
#pragma once

#include <string>
#include <string_view>

#include "gpubill/base/errors.hpp"

namespace gpubill {

// Whether `target` names a PostgreSQL database: it begins with "postgresql://" or
// "postgres://" (libpq's URI schemes, lower case). Anything else is an SQLite file path.
bool is_postgres_url(std::string_view target) noexcept;

// `target` fit for a message: a URL's password (user:PASSWORD@ or password=…) replaced by
// "***"; a path unchanged.
std::string redact_target(std::string_view target);

// A PostgreSQL URL that does not parse (libpq's reason, the URL with its password redacted).
class StoreTargetError : public StoreError {
 public:
  using StoreError::StoreError;
};

// A PostgreSQL server that could not be used. The message is one line naming the host (or
// socket directory), port, database and user, never the password, and what is wrong.
class StoreConnectError : public StoreError {
 public:
  enum class Reason {
    unreachable,     // no server answers there: refused, unknown host, timed out
    authentication,  // the server refused the user: wrong or missing password, no pg_hba entry
    no_database,     // the server has no database of that name
    server_too_old,  // server_version_num below the minimum (PostgreSQL 12)
    other,           // anything else libpq reports (its message is kept)
  };
  StoreConnectError(Reason reason, const std::string& message)
      : StoreError(message), reason_(reason) {}
  Reason reason() const noexcept { return reason_; }

 private:
  Reason reason_;
};

// The connection to a PostgreSQL server broke (the server or its backend process went away)
// during a statement. A transaction open then was not committed: the server rolls it back.
// Broken during COMMIT itself, the outcome is unknown and the message says so.
class StoreConnectionLost : public StoreError {
 public:
  using StoreError::StoreError;
};

// A PostgreSQL database with no gpubill schema, opened by a command that only reads (which
// creates nothing): `gpubill init` creates the schema and loads the bundled catalog.
class StoreUninitialised : public StoreError {
 public:
  using StoreError::StoreError;
};

}  // namespace gpubill
