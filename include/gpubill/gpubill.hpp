// gpubill: the whole library in one include. Each header below documents one concept; they
// are grouped by area from the ground up (docs/architecture.md). Including only what you use
// compiles faster.
#pragma once

// base: money, time, errors, input files, CSV, progress
#include "gpubill/base/csv.hpp"
#include "gpubill/base/decimal.hpp"
#include "gpubill/base/errors.hpp"
#include "gpubill/base/input_file.hpp"
#include "gpubill/base/money.hpp"
#include "gpubill/base/percent.hpp"
#include "gpubill/base/progress.hpp"
#include "gpubill/base/time.hpp"

// store: the database
#include "gpubill/store/db.hpp"
#include "gpubill/store/target.hpp"

// catalog: the effective-dated catalog of offers, its imports and diffs
#include "gpubill/catalog/catalog.hpp"
#include "gpubill/catalog/catalog_coverage.hpp"
#include "gpubill/catalog/catalog_diff.hpp"
#include "gpubill/catalog/catalog_import.hpp"
#include "gpubill/catalog/catalog_offers.hpp"
#include "gpubill/catalog/commitment.hpp"
#include "gpubill/catalog/offer_summary.hpp"
#include "gpubill/catalog/policy.hpp"
#include "gpubill/catalog/provenance.hpp"

// fetch: providers' public price lists fetched into the catalog
#include "gpubill/fetch/fetch.hpp"
#include "gpubill/fetch/price_list.hpp"
#include "gpubill/fetch/transport.hpp"

// rules: providers' billing rules (pure)
#include "gpubill/rules/commitment_rules.hpp"
#include "gpubill/rules/rules.hpp"
#include "gpubill/rules/spot_model.hpp"
#include "gpubill/rules/spot_pricing.hpp"

// replay: usage logs replayed into bills
#include "gpubill/replay/events.hpp"
#include "gpubill/replay/replay.hpp"

// ledger: charges, statements, explanations, FOCUS
#include "gpubill/ledger/focus.hpp"
#include "gpubill/ledger/ledger.hpp"

// quote: quotes, workloads and sizing advice
#include "gpubill/quote/quote.hpp"
#include "gpubill/quote/quote_compare.hpp"
#include "gpubill/quote/workload.hpp"

// tco: lease versus buy
#include "gpubill/tco/tco.hpp"

// report: HTML reports
#include "gpubill/report/report.hpp"

// reconcile: a provider's billing export held against the ledger's charges
#include "gpubill/reconcile/reconcile.hpp"
