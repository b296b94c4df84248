-- A disk's minimum billed life (issue 27): AWS bills an EBS volume "in per-second increments,
-- with a 60-second minimum". Seconds from the volume's creation to its release; 0 = none.
ALTER TABLE policy ADD COLUMN disk_min_charge_seconds INTEGER NOT NULL DEFAULT 0
  CHECK (disk_min_charge_seconds BETWEEN 0 AND 86400);
