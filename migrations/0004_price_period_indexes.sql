-- Reading prices around one instant (a quote) walks every key's rows in effective_from order
-- and needs only their periods: this index covers that walk, so the table rows (with their
-- source text) are read only for the rows kept. The second index finds the latest
-- effective_from (a quote's default date) without a scan.
CREATE INDEX price_key_period ON price(provider, subject_kind, subject, region, mode,
                                       effective_from, effective_to);
CREATE INDEX price_effective_from ON price(effective_from);
