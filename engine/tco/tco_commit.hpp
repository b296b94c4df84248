// Private to the engine: the parts of lease versus buy's rent side shared by tco_rent.cpp and
// tco_commit.cpp.
#pragma once

#include "gpubill/quote/quote.hpp"
#include "gpubill/tco/tco.hpp"

namespace gpubill::tco_detail {

// What an option rents: the offer, how many instances, its list price. Costs are left to fill.
RentOption describe_rent(const QuoteLine& line, int instances, BillingMode mode, PriceUnit unit);

// Fills an option's costs from what it pays in each month 0..horizon (`paid`, horizon + 1
// entries) summing to `total`: cumulative and present-value series, totals, per month and per
// GPU-hour, flat in the utilisation (total_line = {total, 0}).
void fill_from_payments(RentOption& o, const std::vector<Money>& paid, const Money& total,
                        const LeaseVsBuyInputs& in, const Discounter& discount);

// A commitment rent option (mode reserved_1y / reserved_3y) from a quote's commitment line
// (QuoteLine::commitment) of a workload holding the instance for the whole horizon: each term's
// upfront paid at its start, the hourly fee for 730 h at the end of each month, whatever the
// utilisation; fees of committed months after the horizon are counted at its end. Flat in the
// utilisation (total_line = {total, 0}).
// The first day (YYYY-MM-DD) a commitment offer for the rent GPUs (an instance type carrying
// them, or the GPUs themselves) takes effect in the catalog, of the allowed providers; nullopt
// when there is none.
std::optional<std::string> first_commitment_date(const Catalog& catalog,
                                                 const LeaseVsBuyInputs& in);

RentOption commitment_option(const QuoteLine& line, int instances, const LeaseVsBuyInputs& in,
                             const Discounter& discount);

}  // namespace gpubill::tco_detail
