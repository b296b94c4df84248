-- Commitments in replay (issue 29): a charge row's amortised cost when it differs from what it
-- bills. A commitment's covered and unused rows carry their share of the commitment's hour (the
-- upfront spread over the term's hours plus the hourly fee) as effective_amount, per settlement;
-- the FOCUS export's EffectiveCost. NULL = the billed amount (every other row).
ALTER TABLE charge ADD COLUMN effective_amount TEXT;
