// A store target's name (a PostgreSQL URL or an SQLite path) and the advisory-lock keys of
// PostgreSQL write transactions: pure functions, compiled into the library and into the
// PostgreSQL module (postgres_module.hpp).
#include <cstdint>
#include <string>
#include <string_view>

#include "gpubill/store/target.hpp"
#include "store/connection.hpp"

namespace gpubill {

bool is_postgres_url(std::string_view target) noexcept {
  return target.starts_with("postgresql://") || target.starts_with("postgres://");
}

std::string redact_target(std::string_view target) {
  std::string out(target);
  if (!is_postgres_url(target)) return out;
  // user:PASSWORD@ in the authority part.
  const auto authority = out.find("://") + 3;
  const auto at = out.find('@', authority);
  const auto slash = out.find('/', authority);
  if (at != std::string::npos && (slash == std::string::npos || at < slash)) {
    const auto colon = out.find(':', authority);
    if (colon != std::string::npos && colon < at) out.replace(colon + 1, at - colon - 1, "***");
  }
  // password=… in the query.
  for (auto p = out.find("password="); p != std::string::npos; p = out.find("password=", p + 1)) {
    const auto start = p + 9;
    const auto end = out.find('&', start);
    out.replace(start, (end == std::string::npos ? out.size() : end) - start, "***");
  }
  return out;
}

namespace store {

std::int64_t advisory_lock_key(std::string_view scope) noexcept {
  std::uint64_t h = 14695981039346656037ull;
  for (char c : std::string_view("gpubill:"))
    h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  for (char c : scope) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return static_cast<std::int64_t>(h);
}

}  // namespace store

}  // namespace gpubill
