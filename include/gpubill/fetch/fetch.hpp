// `gpubill catalog fetch`: a provider's public price list downloaded (or read from a recording),
// converted (price_list.hpp) and imported as one catalog import (catalog_import.hpp).
//
// Every page is downloaded into a temporary directory first; only then does one transaction
// read the catalog, convert the pages and write the rows, running `catalog check` as every
// import does. An interrupted fetch (a network error, a signal, an exception from a progress
// sink) leaves the catalog as it was, and running it again starts from the beginning.
//
// Rows are effective from the fetch time (the recording's time for a recording), so a fetched
// price supersedes the older row of its key from then on; fetching the same recording again
// rewrites the same rows.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "gpubill/base/progress.hpp"
#include "gpubill/base/time.hpp"
#include "gpubill/catalog/catalog_import.hpp"
#include "gpubill/fetch/transport.hpp"

namespace gpubill {

class Database;

enum class PriceListProvider { aws, azure, google };
// "aws" | "azure" | "google"; throws ParseError naming the choices.
PriceListProvider parse_price_list_provider(std::string_view text);
std::string_view to_string(PriceListProvider provider) noexcept;

struct FetchRequest {
  PriceListProvider provider = PriceListProvider::aws;
  std::string region;  // AWS: required (default us-east-1); Azure, Google: optional filter
  bool gpu_only = false;
  // The first URL (default: the provider's public endpoint, default_price_list_url).
  std::string endpoint;
  std::string google_api_key;  // appended as key=… to Google's URLs when given
  Instant now{};               // the fetch time of a live fetch (the CLI's clock)
  ImportOptions import;        // bounds, force, progress of the write
};

// The provider's public price list URL for a request: AWS's bulk offer file of AmazonEC2 for the
// region, Azure's Retail Prices API filtered to Virtual Machines (and the region), Google's
// Cloud Billing Catalog SKUs of Compute Engine (service 6F81-5844-456A) with the key.
std::string default_price_list_url(const FetchRequest& request);

struct FetchReport {
  ImportReport import;
  std::vector<std::string> urls;               // every URL requested, in order
  std::size_t read = 0;                        // products / items / SKUs read
  std::map<std::string, std::size_t> unknown;  // type or GPU the catalog lacks → rows
  Instant fetched_at{};
};

// Downloads every page through `transport`, then converts and imports them in one transaction.
// A Google fetch from the public endpoint without a key throws InputError("command line", "",
// "GOOGLE_API_KEY", …). Throws InputError for a response that changed shape, StoreError on
// database failures; nothing is written then.
FetchReport fetch_price_list(Database& db, Transport& transport, const FetchRequest& request);

}  // namespace gpubill
