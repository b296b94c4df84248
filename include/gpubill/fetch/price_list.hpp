// Converting providers' public price lists into catalog price rows (pure: a file in, rows out).
//
//   AWS    the Price List bulk offer file of AmazonEC2 for one region (index.json), streamed with
//          simdjson's On-Demand parser: products (Compute Instance, Linux, shared tenancy, no
//          pre-installed software, capacity status Used) joined with terms.OnDemand. The bulk
//          file holds no spot prices (AWS publishes those through its spot price history only).
//   Azure  one page of the Retail Prices API: Virtual Machines, type Consumption, Linux meters
//          (product names without "Windows"); a "… Spot" meter is the spot price, "… Low
//          Priority" meters are skipped. Items[].retailPrice is read from the JSON number's text.
//   Google one page of the Cloud Billing Catalog's Compute Engine SKUs: GPU SKUs (category
//          resourceGroup "GPU"), usage OnDemand (payg) and Preemptible (spot), one per-GPU price
//          row per service region; units + nanos read exactly. Machine types priced per vCPU and
//          GB of RAM are not converted.
//
// A row maps to the catalog's own instance type (by id) or GPU (by id or alias, among the GPUs
// the provider's hosts take); a row for a type or GPU the catalog does not know is counted in
// `unknown`, never dropped silently. Every price row starts at the fetch time, with as_of its
// day and the given source (trust tag [P]).
//
// A response that changed shape (a missing or renamed field, a value of another type, a price
// that is not a decimal, an unexpected unit) throws InputError(file, JSON pointer, field,
// reason); a syntax error names the file and the byte offset.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "gpubill/base/time.hpp"
#include "gpubill/catalog/catalog.hpp"

namespace gpubill {

struct PriceListContext {
  const Catalog* catalog = nullptr;  // what rows map to
  std::string region;                // only this region (empty = every region in the file)
  bool gpu_only = false;             // only GPU instance types, GPU SKUs
  Instant fetched_at{};              // effective_from of every row; its day is as_of
  std::string source;                // written on every row
};

// What the converters made, accumulated over the pages of one fetch.
struct PriceListRows {
  std::vector<PriceRow> prices;
  std::vector<std::string> places;             // "<file> <JSON pointer>" of each price row
  std::vector<Region> regions;                 // regions named by rows, with their display names
  std::size_t read = 0;                        // products / items / SKUs read
  std::map<std::string, std::size_t> unknown;  // type or GPU the catalog lacks → rows
  std::vector<std::string> notes;
  // (subject, region, mode) → index in `prices`: a key seen twice keeps its first row.
  std::unordered_map<std::string, std::size_t> keys;
};

// AWS offer file at `file`. Returns its publicationDate ("" when absent).
// `file` is read; `name` is what errors and places call it (the URL of a download).
std::string convert_aws_offer_file(const std::string& file, const std::string& name,
                                   const PriceListContext& context, PriceListRows& out);
// One Azure Retail Prices page. Returns its NextPageLink ("" when null or absent).
std::string convert_azure_page(const std::string& file, const std::string& name,
                               const PriceListContext& context, PriceListRows& out);
// One page of Cloud Billing Catalog SKUs. Returns its nextPageToken ("" at the end).
std::string convert_google_page(const std::string& file, const std::string& name,
                                const PriceListContext& context, PriceListRows& out);

// A JSON number's text ("3.06", "1.5E-05", "0") as an exact decimal string; throws ParseError
// for anything else or more than 12 decimal places.
std::string json_number_decimal(std::string_view number);

}  // namespace gpubill

namespace gpubill {

// The link to the next page, read before any conversion (a fetch downloads every page first):
// Azure's NextPageLink, Google's nextPageToken; "" on the last page. Throws InputError as the
// converters do.
std::string azure_next_page_link(const std::string& file, const std::string& name);
std::string google_next_page_token(const std::string& file, const std::string& name);

}  // namespace gpubill
