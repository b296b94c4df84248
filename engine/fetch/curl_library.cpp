// Loading libcurl at first use (curl_library.hpp).
#include "fetch/curl_library.hpp"

#include <dlfcn.h>

#include <string>

#include "gpubill/base/errors.hpp"

namespace gpubill::fetch_curl {

namespace {

constexpr const char* kSoname = "libcurl.so.4";

[[noreturn]] void fail(const std::string& what) {
  const char* why = dlerror();
  throw InputError(kSoname, "", "",
                   what + (why ? std::string(": ") + why : std::string()) +
                       "; `catalog fetch` downloads through libcurl (Debian: libcurl4)");
}

template <typename Fn>
void resolve(void* handle, const char* name, Fn& out) {
  // POSIX guarantees a function's address converts through dlsym's void*.
  out = reinterpret_cast<Fn>(dlsym(handle, name));
  if (!out) fail(std::string("libcurl lacks ") + name);
}

CurlLibrary load() {
  // Never closed: libcurl keeps global state until the process ends.
  void* handle = dlopen(kSoname, RTLD_NOW | RTLD_LOCAL);
  if (!handle) fail("cannot load libcurl");
  CurlLibrary lib;
  resolve(handle, "curl_global_init", lib.global_init);
  resolve(handle, "curl_global_cleanup", lib.global_cleanup);
  resolve(handle, "curl_easy_init", lib.easy_init);
  resolve(handle, "curl_easy_cleanup", lib.easy_cleanup);
  resolve(handle, "curl_easy_setopt", lib.easy_setopt);
  resolve(handle, "curl_easy_perform", lib.easy_perform);
  resolve(handle, "curl_easy_getinfo", lib.easy_getinfo);
  resolve(handle, "curl_easy_strerror", lib.easy_strerror);
  return lib;
}

}  // namespace

const CurlLibrary& curl_library() {
  static const CurlLibrary lib = load();  // a throw leaves it unset: the next call retries
  return lib;
}

}  // namespace gpubill::fetch_curl
