-- Offer lifecycle (issue 28): the first day an instance type could be rented and the day its
-- provider retired it (from the provider's deprecation notice), as seconds since the epoch (UTC); NULL =
-- unknown / not retired. A quote at or after retired_on does not rank the type.
ALTER TABLE instance_type ADD COLUMN available_from INTEGER;
ALTER TABLE instance_type ADD COLUMN retired_on INTEGER;
-- A GPU a host takes (Google's per-GPU offers) retires on its own (Google's K80, 2024-05-01).
ALTER TABLE attachable_gpu ADD COLUMN retired_on INTEGER;
