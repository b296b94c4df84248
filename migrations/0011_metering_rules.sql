-- Metering and pricing rules (issue 27, part B): the price a spot meter pays within an hour
-- ('hour_start': the price at the hour's first second of use; 'per_second': each second at the
-- price in force; 'deal_then_per_second': the deal price for the protection period, then per
-- second), and the hours in a month for quotes (AWS, Azure, Google: 730).
ALTER TABLE policy ADD COLUMN spot_price_basis TEXT NOT NULL DEFAULT 'hour_start'
  CHECK (spot_price_basis IN ('hour_start', 'per_second', 'deal_then_per_second'));
ALTER TABLE policy ADD COLUMN quote_month_hours INTEGER NOT NULL DEFAULT 720
  CHECK (quote_month_hours BETWEEN 672 AND 744);
