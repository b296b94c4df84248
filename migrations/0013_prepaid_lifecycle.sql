-- Prepaid lifecycle rules (issue 27, part A): when a term ends, what an ordinary return and a
-- downgrade refund. One JSON object per policy row (PrepaidLifecycle, policy.hpp; the catalog
-- JSON's "prepaid_lifecycle"); NULL = the defaults.
ALTER TABLE policy ADD COLUMN prepaid_lifecycle TEXT;
