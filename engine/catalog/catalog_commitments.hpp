// Private to the engine: the commitment rows (gpubill/catalog/commitment.hpp) in the catalog
// JSON (section "commitments", docs/catalog-format.md) and in the database (table
// commitment_price, migrations/0014_commitments.sql).
#pragma once

#include "store/connection.hpp"

#include <set>
#include <string>

#include "base/json_fields.hpp"
#include "gpubill/catalog/catalog.hpp"

namespace gpubill {

// One row of the "commitments" section, checked: the term is 12 or 36 months, amounts are
// within the catalog bounds, no_upfront has no upfront and all_upfront no hourly fee, a
// partial_upfront row has both, an RI names its class ("standard" or "convertible") and no
// other program does. Throws InputError naming the field.
CommitmentRow read_commitment_json(const json_input::Fields& f, const Decimal& max_amount);

// Rows of one key (provider, subject, region, program, class, term, payment) must not overlap
// in time. Throws InputError naming the later row.
void check_commitment_periods(const std::vector<CommitmentRow>& rows, const std::string& file);

// Reads every commitment_price row into out.commitments (key order); writes (upserts) those of
// `data`. Throw store::SqlError (the callers wrap it).
// With `gpus`, only the rows a quote of those GPU ids can use: per-GPU rows of one of them
// and per-instance rows of an instance type already in `out`, each subject read by its range
// of the unique key (a V100 quote reads 1,302 of the bundled catalog's 1,865 rows). Without
// `with_source`, each row's `source` is left empty (Catalog::load_for_billing).
void read_commitments(store::Connection& db, CatalogData& out,
                      const std::set<std::string>* gpus = nullptr, bool with_source = true);
void write_commitments(store::Connection& db, const CatalogData& data);

}  // namespace gpubill
