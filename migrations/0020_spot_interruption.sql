-- A spot instance the provider interrupts early is not charged (issue 27): AWS charges nothing
-- for a Spot Instance that Amazon EC2 interrupts in its first hour. Seconds from the instance's
-- launch within which a provider interruption makes its compute usage free; 0 = never.
ALTER TABLE policy ADD COLUMN spot_interrupted_free_seconds INTEGER NOT NULL DEFAULT 0
  CHECK (spot_interrupted_free_seconds BETWEEN 0 AND 86400);
