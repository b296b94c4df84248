-- Kinds of return (issue 11): how many no-reason (full) returns an account has, per calendar
-- year ('year') or over its life ('account'); 0 = no limit.
ALTER TABLE policy ADD COLUMN no_reason_return_limit INTEGER NOT NULL DEFAULT 0;
ALTER TABLE policy ADD COLUMN no_reason_return_limit_per TEXT NOT NULL DEFAULT 'year';
