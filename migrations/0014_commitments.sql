-- Commitment offers (issue 29): reserved instances, savings plans and committed-use discounts,
-- one row per subject (instance type or per-GPU), region, program, class, term and payment
-- option, effective-dated with its source like a price row (CommitmentRow, commitment.hpp; the
-- catalog JSON's "commitments"). upfront is paid once per term, hourly for every hour of it.
CREATE TABLE commitment_price (
  id             INTEGER PRIMARY KEY,
  provider       TEXT NOT NULL REFERENCES provider(id),
  subject_kind   TEXT NOT NULL CHECK (subject_kind IN ('instance', 'gpu')),
  subject        TEXT NOT NULL,
  region         TEXT NOT NULL DEFAULT '',
  program        TEXT NOT NULL
                 CHECK (program IN ('reserved_instance', 'savings_plan', 'committed_use')),
  offering_class TEXT NOT NULL DEFAULT '',
  term_months    INTEGER NOT NULL CHECK (term_months IN (12, 36)),
  payment        TEXT NOT NULL
                 CHECK (payment IN ('no_upfront', 'partial_upfront', 'all_upfront')),
  upfront        TEXT NOT NULL,
  hourly         TEXT NOT NULL,
  currency       TEXT NOT NULL,
  effective_from INTEGER NOT NULL,
  effective_to   INTEGER,
  source         TEXT NOT NULL,
  as_of          TEXT NOT NULL,
  UNIQUE (provider, subject_kind, subject, region, program, offering_class, term_months, payment,
          effective_from)
);
