// Loading the PostgreSQL module (postgres_module.hpp).
#include "store/postgres_module.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <vector>

#include "gpubill/base/errors.hpp"
#include "gpubill/store/target.hpp"

namespace gpubill::store {

#ifdef GPUBILL_POSTGRES_MODULE_NAME

namespace {

using OpenFn = Connection* (*)(const std::string&, const ConnectOptions&);

std::vector<std::filesystem::path> module_candidates() {
  namespace fs = std::filesystem;
  std::vector<fs::path> out;
  if (const char* env = std::getenv("GPUBILL_POSTGRES_MODULE"); env && *env) out.emplace_back(env);
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    out.push_back(exe.parent_path() / GPUBILL_POSTGRES_MODULE_NAME);
    out.push_back(exe.parent_path() / ".." / GPUBILL_INSTALL_LIBDIR / "gpubill" /
                  GPUBILL_POSTGRES_MODULE_NAME);
  }
  out.push_back(fs::path(GPUBILL_INSTALL_FULL_LIBDIR) / "gpubill" / GPUBILL_POSTGRES_MODULE_NAME);
  return out;
}

OpenFn load_module() {
  std::string tried;
  for (const auto& path : module_candidates()) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
      tried += (tried.empty() ? "" : ", ") + path.string();
      continue;
    }
    // Never closed: connections made through it may live until the process ends.
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    const char* why = handle ? nullptr : dlerror();
    if (!handle) throw StoreError("cannot load PostgreSQL support " + path.string() + ": " + why);
    auto* open = reinterpret_cast<OpenFn>(dlsym(handle, "gpubill_postgres_open"));
    if (!open) throw StoreError(path.string() + " is not gpubill's PostgreSQL module");
    return open;
  }
  throw StoreError("PostgreSQL support is not installed: no " +
                   std::string(GPUBILL_POSTGRES_MODULE_NAME) + " (looked in " + tried +
                   "; GPUBILL_POSTGRES_MODULE names it)");
}

}  // namespace

std::unique_ptr<Connection> open_postgres(const std::string& url, const ConnectOptions& options) {
  static std::mutex mutex;
  static OpenFn open = nullptr;
  {
    const std::lock_guard<std::mutex> lock(mutex);
    if (!open) open = load_module();  // a failure is retried by the next call
  }
  return std::unique_ptr<Connection>(open(url, options));
}

#else  // built with GPUBILL_POSTGRES=OFF

std::unique_ptr<Connection> open_postgres(const std::string& url, const ConnectOptions&) {
  throw StoreError("cannot open '" + redact_target(url) +
                   "': this gpubill was built without PostgreSQL (GPUBILL_POSTGRES=OFF)");
}

#endif

}  // namespace gpubill::store
