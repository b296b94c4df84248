-- The catalog: providers, GPUs, instance types, effective-dated prices, discounts, policies and
-- FX rates. Amounts are exact decimal text ("13.86"); instants are UTC unix seconds;
-- effective periods are half-open [effective_from, effective_to), effective_to NULL = open.
-- Optional key parts are '' (not NULL) so that UNIQUE constraints see them.

CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

CREATE TABLE provider (
  id                TEXT PRIMARY KEY,
  name              TEXT NOT NULL,
  currency          TEXT NOT NULL,
  billing_time_zone TEXT NOT NULL
);

CREATE TABLE region (
  provider TEXT NOT NULL REFERENCES provider(id),
  id       TEXT NOT NULL,
  name     TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (provider, id)
);

CREATE TABLE gpu (
  id                         TEXT PRIMARY KEY,
  vendor                     TEXT NOT NULL DEFAULT '',
  architecture               TEXT NOT NULL DEFAULT '',
  fp64_tflops                TEXT,
  fp32_tflops                TEXT,
  fp16_tensor_tflops         TEXT,
  int8_tops                  TEXT,
  memory_gb                  TEXT,
  memory_bandwidth_gbs       TEXT,
  interconnect               TEXT NOT NULL DEFAULT '',
  interconnect_bandwidth_gbs TEXT,
  tdp_w                      INTEGER,
  launch_price               TEXT,
  launch_currency            TEXT,
  source                     TEXT NOT NULL DEFAULT ''
);

CREATE TABLE gpu_alias (
  alias TEXT PRIMARY KEY COLLATE NOCASE,
  gpu   TEXT NOT NULL REFERENCES gpu(id)
);

CREATE TABLE instance_type (
  provider        TEXT NOT NULL REFERENCES provider(id),
  id              TEXT NOT NULL,
  family          TEXT NOT NULL DEFAULT '',
  gpu             TEXT REFERENCES gpu(id),
  gpu_count       TEXT NOT NULL DEFAULT '0',
  vcpu            INTEGER,
  ram_gb          TEXT,
  local_disk_gb   INTEGER,
  local_disk_kind TEXT NOT NULL DEFAULT '',
  notes           TEXT NOT NULL DEFAULT '',
  source          TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (provider, id)
);

CREATE TABLE attachable_gpu (
  provider      TEXT NOT NULL,
  instance_type TEXT NOT NULL,
  gpu           TEXT NOT NULL REFERENCES gpu(id),
  count         INTEGER NOT NULL,
  PRIMARY KEY (provider, instance_type, gpu, count),
  FOREIGN KEY (provider, instance_type) REFERENCES instance_type(provider, id)
);

CREATE TABLE price (
  id             INTEGER PRIMARY KEY,
  provider       TEXT NOT NULL REFERENCES provider(id),
  subject_kind   TEXT NOT NULL CHECK (subject_kind IN ('instance', 'gpu')),
  subject        TEXT NOT NULL,
  region         TEXT NOT NULL DEFAULT '',
  mode           TEXT NOT NULL CHECK (mode IN ('payg', 'prepaid', 'spot', 'reserved_1y', 'reserved_3y')),
  unit           TEXT NOT NULL CHECK (unit IN ('hour', 'month')),
  amount         TEXT NOT NULL,
  currency       TEXT NOT NULL,
  effective_from INTEGER NOT NULL,
  effective_to   INTEGER,
  source         TEXT NOT NULL,
  as_of          TEXT NOT NULL,
  UNIQUE (provider, subject_kind, subject, region, mode, effective_from)
);

CREATE TABLE discount (
  id             INTEGER PRIMARY KEY,
  provider       TEXT NOT NULL REFERENCES provider(id),
  family         TEXT NOT NULL DEFAULT '',
  mode           TEXT NOT NULL,
  min_months     INTEGER NOT NULL,
  max_months     INTEGER NOT NULL,
  factor         TEXT NOT NULL,
  effective_from INTEGER NOT NULL,
  effective_to   INTEGER,
  source         TEXT NOT NULL,
  as_of          TEXT NOT NULL,
  UNIQUE (provider, family, mode, min_months, effective_from)
);

CREATE TABLE disk_price (
  id             INTEGER PRIMARY KEY,
  provider       TEXT NOT NULL REFERENCES provider(id),
  kind           TEXT NOT NULL,
  mode           TEXT NOT NULL,
  unit           TEXT NOT NULL CHECK (unit IN ('gb_hour', 'gb_month')),
  amount         TEXT NOT NULL,
  currency       TEXT NOT NULL,
  effective_from INTEGER NOT NULL,
  effective_to   INTEGER,
  source         TEXT NOT NULL,
  as_of          TEXT NOT NULL,
  UNIQUE (provider, kind, mode, effective_from)
);

CREATE TABLE bandwidth_price (
  id             INTEGER PRIMARY KEY,
  provider       TEXT NOT NULL REFERENCES provider(id),
  kind           TEXT NOT NULL,
  mode           TEXT NOT NULL,
  unit           TEXT NOT NULL CHECK (unit IN ('mbps_hour', 'mbps_month', 'gb')),
  amount         TEXT NOT NULL,
  currency       TEXT NOT NULL,
  effective_from INTEGER NOT NULL,
  effective_to   INTEGER,
  source         TEXT NOT NULL,
  as_of          TEXT NOT NULL,
  UNIQUE (provider, kind, mode, effective_from)
);

CREATE TABLE fx_rate (
  id        INTEGER PRIMARY KEY,
  day       TEXT NOT NULL,
  from_ccy  TEXT NOT NULL,
  to_ccy    TEXT NOT NULL,
  rate      TEXT NOT NULL,
  source    TEXT NOT NULL,
  as_of     TEXT NOT NULL,
  UNIQUE (day, from_ccy, to_ccy)
);

CREATE TABLE policy (
  id                            INTEGER PRIMARY KEY,
  provider                      TEXT NOT NULL REFERENCES provider(id),
  effective_from                INTEGER NOT NULL,
  effective_to                  INTEGER,
  metering_granularity_seconds  INTEGER NOT NULL,
  settlement_period             TEXT NOT NULL,
  settlement_rounding           TEXT NOT NULL,
  settlement_decimals           INTEGER NOT NULL,
  min_charge_seconds_per_run    INTEGER NOT NULL,
  min_charge_per_lifetime       TEXT,
  arrears_grace_hours           INTEGER NOT NULL,
  arrears_retention_hours       INTEGER NOT NULL,
  recycle_bin_days              INTEGER NOT NULL,
  auto_renew_days_before        INTEGER NOT NULL,
  auto_renew_local_time         TEXT,
  auto_renew_months             INTEGER NOT NULL,
  prepaid_destroy_before_expiry INTEGER NOT NULL,
  full_refund_days              INTEGER NOT NULL,
  stopped_payg_compute_charged  INTEGER NOT NULL,
  payg_available                INTEGER NOT NULL,
  source                        TEXT NOT NULL,
  as_of                         TEXT NOT NULL,
  UNIQUE (provider, effective_from)
);

CREATE INDEX price_lookup ON price (provider, subject_kind, subject, mode, region, effective_from);
