// HTTPS through libcurl (transport.hpp): one GET per page, the body streamed into a file.
// libcurl is loaded by the first transport made (curl_library.hpp).
#include <cstdio>
#include <memory>

#include "fetch/curl_library.hpp"
#include "fetch/price_rows.hpp"
#include "gpubill/base/errors.hpp"
#include "gpubill/fetch/transport.hpp"

namespace gpubill {

namespace {

struct Body {
  std::FILE* file = nullptr;
  std::uint64_t bytes = 0, total = 0;
  const ProgressSink* progress = nullptr;
};

std::size_t write_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto* body = static_cast<Body*>(user);
  const std::size_t n = std::fwrite(data, size, count, body->file) * size;
  body->bytes += n;
  if (*body->progress) {
    (*body->progress)(Progress{"download", body->bytes, body->total, "bytes",
                               static_cast<std::int64_t>(body->bytes), "bytes"});
  }
  return n;
}

class CurlTransport final : public Transport {
 public:
  explicit CurlTransport(ProgressSink progress)
      : curl_(fetch_curl::curl_library()), progress_(std::move(progress)) {
    curl_.global_init(CURL_GLOBAL_DEFAULT);
  }
  ~CurlTransport() override { curl_.global_cleanup(); }

  Download get(const std::string& url, std::size_t /*page*/,
               const std::filesystem::path& dest) override {
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(dest.c_str(), "wb"),
                                                         &std::fclose);
    if (!file)
      throw InputError(fetch_rows::shown_url(url), "", "", "cannot write " + dest.string());
    std::unique_ptr<CURL, void (*)(CURL*)> curl(curl_.easy_init(), curl_.easy_cleanup);
    if (!curl) throw InputError(fetch_rows::shown_url(url), "", "", "libcurl could not start");
    Body body{file.get(), 0, 0, &progress_};
    char error[CURL_ERROR_SIZE] = "";
    curl_.easy_setopt(curl.get(), CURLOPT_URL, url.c_str());
    curl_.easy_setopt(curl.get(), CURLOPT_FOLLOWLOCATION, 1L);
    curl_.easy_setopt(curl.get(), CURLOPT_CONNECTTIMEOUT, 60L);
    curl_.easy_setopt(curl.get(), CURLOPT_ACCEPT_ENCODING, "");
    curl_.easy_setopt(curl.get(), CURLOPT_USERAGENT, "gpubill-catalog-fetch/1");
    curl_.easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, &write_body);
    curl_.easy_setopt(curl.get(), CURLOPT_WRITEDATA, &body);
    curl_.easy_setopt(curl.get(), CURLOPT_ERRORBUFFER, error);
    const CURLcode code = curl_.easy_perform(curl.get());
    if (code != CURLE_OK) {
      throw InputError(
          fetch_rows::shown_url(url), "", "",
          std::string("download failed: ") + (*error ? error : curl_.easy_strerror(code)));
    }
    long status = 0;
    curl_.easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &status);
    if (status >= 400) {
      throw InputError(fetch_rows::shown_url(url), "", "",
                       "the server answered HTTP " + std::to_string(status));
    }
    if (std::fflush(file.get()) != 0) {
      throw InputError(fetch_rows::shown_url(url), "", "", "cannot write " + dest.string());
    }
    return Download{dest, fetch_rows::shown_url(url)};
  }

 private:
  const fetch_curl::CurlLibrary& curl_;
  ProgressSink progress_;
};

}  // namespace

std::unique_ptr<Transport> make_curl_transport(ProgressSink progress) {
  return std::make_unique<CurlTransport>(std::move(progress));
}

}  // namespace gpubill
