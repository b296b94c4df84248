-- How a pay-as-you-go usage record is rounded (issue 27): 'settlement' = with the policy's
-- settlement_rounding to settlement_decimals; 'down_carry' = rounded down to settlement_decimals,
-- the part below that carried into the meter's next record (Baidu: "an amount below 0.01 is not
-- cleared but accumulated into the next charge cycle"). Orders and refunds keep
-- settlement_rounding either way. The carry itself lives in the replay state of each meter.
ALTER TABLE policy ADD COLUMN usage_rounding TEXT NOT NULL DEFAULT 'settlement'
  CHECK (usage_rounding IN ('settlement', 'down_carry'));
