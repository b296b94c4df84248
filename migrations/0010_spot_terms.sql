-- Spot terms (issue 11): preemptible instances stopped after N hours of running (Google: 24);
-- a protection period in which spot instances are not reclaimed (Alibaba: 1 h). 0 = none.
ALTER TABLE policy ADD COLUMN spot_max_run_hours INTEGER NOT NULL DEFAULT 0;
ALTER TABLE policy ADD COLUMN spot_protection_hours INTEGER NOT NULL DEFAULT 0;
