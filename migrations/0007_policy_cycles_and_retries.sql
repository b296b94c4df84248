-- Settlement cycles per resource kind and auto-renewal retries (issue 11).
--
-- settlement_period (already there) is the cycle of compute and the default of the others; it
-- may now be 'hour', 'day' or 'month'. NULL in the new columns = as settlement_period.
ALTER TABLE policy ADD COLUMN disk_settlement_period TEXT;
ALTER TABLE policy ADD COLUMN bandwidth_settlement_period TEXT;
-- 1 = a failed auto-renewal is tried again every day until the expiry.
ALTER TABLE policy ADD COLUMN auto_renew_retry_daily INTEGER NOT NULL DEFAULT 0;
