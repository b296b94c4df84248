// How `catalog fetch` gets a provider's price list: a small interface with two implementations,
// HTTPS through libcurl and a directory of recorded responses, so that the converters
// (price_list.hpp) only ever read files.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>

#include "gpubill/base/progress.hpp"

namespace gpubill {

// One response body, stored in a file.
struct Download {
  std::filesystem::path file;
  // Where the body came from, for the rows' source: the URL for a download; for a recording
  // "recorded response <file> (<its provenance>)".
  std::string origin;
};

class Transport {
 public:
  virtual ~Transport() = default;
  // The body of `url`, the `page`-th request of this fetch (1 = the first), written to `dest`
  // (a file in a temporary directory the caller owns) or read from a recording. Throws
  // InputError naming the URL or file when there is no body (HTTP status ≥ 400, a network
  // error, a missing recorded page).
  virtual Download get(const std::string& url, std::size_t page,
                       const std::filesystem::path& dest) = 0;
  // When the recording was made (RFC 3339), for a recording; empty for a live transport, whose
  // fetch time is the caller's clock.
  virtual std::string recorded_at() const { return {}; }
};

// HTTPS (or HTTP) GET through libcurl: redirects followed, a 60 s connect timeout, compressed
// transfer accepted, `progress` told the bytes received ("download" stage).
std::unique_ptr<Transport> make_curl_transport(ProgressSink progress = {});

// A directory of recorded responses: `page-<n>.json` is the body of the n-th request, whatever
// its URL, and `recording.json` says when and from where the recording was made:
//   {"recorded_at": "2026-07-20T00:00:00Z", "provenance": "assembled from …"}
// Throws InputError naming the directory when recording.json is missing or malformed.
std::unique_ptr<Transport> make_recorded_transport(const std::filesystem::path& dir);

}  // namespace gpubill
