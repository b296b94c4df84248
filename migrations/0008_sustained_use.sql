-- Sustained use discounts (issue 11): the tiers, as decimal text separated by commas
-- ("1,0.8,0.6,0.4"), and the instance families they apply to ("n1"); empty = none.
ALTER TABLE policy ADD COLUMN sustained_use_tiers TEXT NOT NULL DEFAULT '';
ALTER TABLE policy ADD COLUMN sustained_use_families TEXT NOT NULL DEFAULT '';
