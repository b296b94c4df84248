// Private to the fetch area: what every converter does with a row it read.
#pragma once

#include <string>
#include <string_view>

#include "gpubill/fetch/price_list.hpp"

namespace gpubill::fetch_rows {

// Adds a price row (USD-style per-hour price of `subject` in `region`, effective from the fetch
// time) unless its key is already there: the same amount is kept once; another amount is noted
// and the first kept. `amount` is an exact decimal's text.
void add_price(PriceListRows& out, const PriceListContext& context, std::string_view provider,
               SubjectKind kind, std::string_view subject, std::string_view region,
               BillingMode mode, std::string_view amount, std::string_view currency,
               std::string place);

// Adds a region the rows name, once, with its display name.
void add_region(PriceListRows& out, std::string_view provider, std::string_view id,
                std::string_view name);

// A type or GPU the catalog does not know: counted under `name`.
void unknown(PriceListRows& out, std::string name);

// Whether the catalog's instance type carries GPUs (built in or attachable).
bool has_gpu(const InstanceType& type);

// A URL as errors and sources show it: a Google API key (key=…) is never printed.
std::string shown_url(const std::string& url);

}  // namespace gpubill::fetch_rows
