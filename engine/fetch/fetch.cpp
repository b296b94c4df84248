// `catalog fetch`: download every page, then convert and import them in one transaction
// (fetch.hpp).
#include "gpubill/fetch/fetch.hpp"

#include <stdlib.h>

#include <algorithm>
#include <filesystem>

#include "fetch/price_rows.hpp"
#include "gpubill/base/errors.hpp"
#include "gpubill/fetch/price_list.hpp"

namespace gpubill {

namespace {

// A fetch reads at most this many pages (Azure's whole VM list is about 5,000 pages of 100).
constexpr std::size_t kMaxPages = 20'000;

// A directory for the downloads, removed with everything in it when the fetch ends.
class TempDir {
 public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "gpubill-fetch-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw StoreError("cannot create a temporary directory for the download in " +
                       std::filesystem::temp_directory_path().string());
    }
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const noexcept { return path_; }

 private:
  std::filesystem::path path_;
};

struct Page {
  Download download;
  std::string url;   // as shown (no API key)
  std::string name;  // what errors call it: the URL, or the recorded file
};

std::string percent_encoded(std::string_view text) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (const unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

void check_region(const std::string& region) {
  if (region.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") != std::string::npos) {
    throw InputError("command line", "", "--region",
                     "not a region id (lower-case letters, digits and '-'): \"" + region + "\"");
  }
}

// The URL of the next page, or "".
std::string next_url(PriceListProvider provider, const Page& page, const std::string& first) {
  if (provider == PriceListProvider::azure) {
    return azure_next_page_link(page.download.file.string(), page.name);
  }
  if (provider == PriceListProvider::google) {
    const std::string token = google_next_page_token(page.download.file.string(), page.name);
    if (token.empty()) return "";
    return first + (first.find('?') == std::string::npos ? "?" : "&") +
           "pageToken=" + percent_encoded(token);
  }
  return "";
}

std::vector<Page> download_pages(Transport& transport, const FetchRequest& request,
                                 const std::string& first, const std::filesystem::path& dir) {
  const bool recorded = !transport.recorded_at().empty();
  std::vector<Page> pages;
  std::string url = first;
  for (std::size_t n = 1;; ++n) {
    if (n > kMaxPages) {
      throw InputError(fetch_rows::shown_url(first), "", "",
                       "more than " + std::to_string(kMaxPages) + " pages: stopped");
    }
    Download d = transport.get(url, n, dir / ("page-" + std::to_string(n) + ".json"));
    const std::string shown = fetch_rows::shown_url(url);
    std::string name = recorded ? d.file.string() : shown;
    pages.push_back(Page{std::move(d), shown, std::move(name)});
    const std::string next = next_url(request.provider, pages.back(), first);
    if (next.empty()) break;
    const bool seen = std::any_of(pages.begin(), pages.end(), [&](const Page& p) {
      return p.url == fetch_rows::shown_url(next);
    });
    if (seen) {
      throw InputError(pages.back().name, "", "",
                       "links to a page already read: " + fetch_rows::shown_url(next));
    }
    url = next;
  }
  return pages;
}

// The notes a fetch adds: what the catalog does not know, the offer file's date.
std::vector<std::string> fetch_notes(const PriceListRows& rows, const std::string& published) {
  std::vector<std::string> notes = rows.notes;
  if (!published.empty()) notes.push_back("offer file published " + published);
  if (!rows.unknown.empty()) {
    std::size_t n = 0;
    for (const auto& [name, count] : rows.unknown) n += count;
    notes.push_back(
        std::to_string(n) + (n == 1 ? " row" : " rows") + " for " +
        std::to_string(rows.unknown.size()) +
        (rows.unknown.size() == 1 ? " instance type or GPU" : " instance types or GPUs") +
        " the catalog does not know, not imported (--verbose names them)");
  }
  return notes;
}

ConvertedRows convert_pages(const Catalog& catalog, const FetchRequest& request,
                            const std::vector<Page>& pages, bool recorded, FetchReport& report) {
  PriceListRows rows;
  PriceListContext context{&catalog, request.region, request.gpu_only, report.fetched_at, ""};
  const std::string when = format_instant(report.fetched_at);
  std::string published;
  for (const auto& page : pages) {
    context.source = page.url + (recorded ? ", recorded " : ", fetched ") + when +
                     (recorded ? " — " + page.download.origin : std::string()) + " [P]";
    const std::string file = page.download.file.string();
    switch (request.provider) {
      case PriceListProvider::aws:
        published = convert_aws_offer_file(file, page.name, context, rows);
        break;
      case PriceListProvider::azure:
        (void)convert_azure_page(file, page.name, context, rows);
        break;
      case PriceListProvider::google:
        (void)convert_google_page(file, page.name, context, rows);
        break;
    }
  }
  report.read = rows.read;
  report.unknown = rows.unknown;
  ConvertedRows out;
  out.notes = fetch_notes(rows, published);
  for (auto& r : rows.regions) {
    const bool known =
        std::any_of(catalog.data().regions.begin(), catalog.data().regions.end(),
                    [&](const Region& k) { return k.provider == r.provider && k.id == r.id; });
    if (!known) out.data.regions.push_back(std::move(r));
  }
  out.data.prices = std::move(rows.prices);
  out.places = std::move(rows.places);
  return out;
}

}  // namespace

PriceListProvider parse_price_list_provider(std::string_view text) {
  if (text == "aws") return PriceListProvider::aws;
  if (text == "azure") return PriceListProvider::azure;
  if (text == "google") return PriceListProvider::google;
  throw ParseError("no price list fetcher for provider \"" + std::string(text) +
                   "\" (aws, azure, google)");
}

std::string_view to_string(PriceListProvider provider) noexcept {
  switch (provider) {
    case PriceListProvider::aws:
      return "aws";
    case PriceListProvider::azure:
      return "azure";
    case PriceListProvider::google:
      return "google";
  }
  return "?";
}

std::string default_price_list_url(const FetchRequest& request) {
  switch (request.provider) {
    case PriceListProvider::aws:
      return "https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/current/" +
             (request.region.empty() ? std::string("us-east-1") : request.region) + "/index.json";
    case PriceListProvider::azure: {
      std::string filter = "serviceName eq 'Virtual Machines' and priceType eq 'Consumption'";
      if (!request.region.empty()) filter += " and armRegionName eq '" + request.region + "'";
      return "https://prices.azure.com/api/retail/prices?$filter=" + percent_encoded(filter);
    }
    case PriceListProvider::google:
      return "https://cloudbilling.googleapis.com/v1/services/6F81-5844-456A/skus" +
             (request.google_api_key.empty() ? std::string()
                                             : "?key=" + percent_encoded(request.google_api_key));
  }
  return "";
}

FetchReport fetch_price_list(Database& db, Transport& transport, const FetchRequest& given) {
  FetchRequest request = given;
  if (request.provider == PriceListProvider::aws && request.region.empty()) {
    request.region = "us-east-1";
  }
  check_region(request.region);
  const bool recorded = !transport.recorded_at().empty();
  if (request.provider == PriceListProvider::google && request.endpoint.empty() &&
      request.google_api_key.empty() && !recorded) {
    throw InputError("command line", "", "GOOGLE_API_KEY",
                     "Google's Cloud Billing Catalog API needs an API key: set GOOGLE_API_KEY to "
                     "a key of a project with the Cloud Billing API enabled "
                     "(https://cloud.google.com/billing/docs/how-to/get-pricing-information-api), "
                     "or read a recording with --recorded DIR");
  }
  const std::string first =
      request.endpoint.empty() ? default_price_list_url(request) : request.endpoint;
  FetchReport report;
  report.fetched_at = recorded ? parse_instant(transport.recorded_at()) : request.now;
  TempDir dir;
  const std::vector<Page> pages = download_pages(transport, request, first, dir.path());
  for (const auto& p : pages) report.urls.push_back(p.url);
  report.import = import_converted_rows(
      db, fetch_rows::shown_url(first),
      [&](const Catalog& catalog) {
        return convert_pages(catalog, request, pages, recorded, report);
      },
      request.import);
  return report;
}

}  // namespace gpubill
