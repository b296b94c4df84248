// libcurl, loaded when `catalog fetch` first downloads rather than when any gpubill process
// starts. Linked in, libcurl and the 30 libraries it needs (TLS, Kerberos, LDAP, IDN…) were 8 of
// the 15 ms every command spent before main (LD_DEBUG=statistics, perf), and only the download
// uses them. Compiled against <curl/curl.h>, so each entry point keeps its declared type.
#pragma once

#include <curl/curl.h>

namespace gpubill::fetch_curl {

struct CurlLibrary {
  decltype(&curl_global_init) global_init = nullptr;
  decltype(&curl_global_cleanup) global_cleanup = nullptr;
  decltype(&curl_easy_init) easy_init = nullptr;
  decltype(&curl_easy_cleanup) easy_cleanup = nullptr;
  decltype(&curl_easy_setopt) easy_setopt = nullptr;
  decltype(&curl_easy_perform) easy_perform = nullptr;
  decltype(&curl_easy_getinfo) easy_getinfo = nullptr;
  decltype(&curl_easy_strerror) easy_strerror = nullptr;
};

// libcurl's entry points, loaded once per process (libcurl.so.4, the soname of Debian's
// libcurl4 and libcurl3-gnutls alike) and kept for its life. Throws InputError naming the
// library and what the loader said when it is missing or lacks one of them.
const CurlLibrary& curl_library();

}  // namespace gpubill::fetch_curl
