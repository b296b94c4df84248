// The PostgreSQL backend lives in a module of its own, libgpubill_postgres.so (connection_pg.cpp
// with dialect.cpp and target.cpp, linked with libpqxx), loaded the first time a postgresql://
// target is opened. Linked into the library, libpq and the 24 libraries it needs (TLS,
// Kerberos, LDAP…) made every gpubill command start 10 ms slower, SQLite users included.
//
// Where the module is looked for, first found wins:
//   1. $GPUBILL_POSTGRES_MODULE, a path to the module file;
//   2. the directory of the running program (a build tree: gpubill and gpubill_tests);
//   3. <program's directory>/../<libdir>/gpubill/ (an installed or unpacked package);
//   4. <libdir>/gpubill/ under the install prefix this gpubill was configured with.
#pragma once

#include <memory>
#include <string>

#include "store/connection.hpp"

namespace gpubill::store {

// Loads the module (once per process; it is never unloaded) and opens `url` through it. Throws
// StoreError naming every place tried when the module cannot be loaded, or saying that this
// gpubill was built without PostgreSQL (GPUBILL_POSTGRES=OFF); otherwise what the module
// throws (StoreTargetError, StoreConnectError, StoreError).
std::unique_ptr<Connection> open_postgres(const std::string& url, const ConnectOptions& options);

}  // namespace gpubill::store
