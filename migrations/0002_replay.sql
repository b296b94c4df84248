-- Replay: usage events, rejects, the replay state of each account, instance state history,
-- charges and balance movements. Instants are UTC unix seconds; amounts exact decimal text.

-- Every input event applied or rejected, keyed by (account, id): an id seen before is not
-- applied again (idempotency). `payload` is the event as parsed, canonical JSON.
CREATE TABLE event (
  seq         INTEGER PRIMARY KEY,
  account     TEXT NOT NULL,
  id          TEXT NOT NULL,
  time        INTEGER NOT NULL,
  type        TEXT NOT NULL,
  instance    TEXT NOT NULL DEFAULT '',
  payload     TEXT NOT NULL,
  source_file TEXT NOT NULL,
  source_line INTEGER NOT NULL,
  status      TEXT NOT NULL CHECK (status IN ('applied', 'rejected')),
  UNIQUE (account, id)
);

-- Events the rules forbid ('rule') and, with --skip-invalid, malformed lines ('malformed').
CREATE TABLE reject (
  id          INTEGER PRIMARY KEY,
  kind        TEXT NOT NULL CHECK (kind IN ('rule', 'malformed', 'duplicate')),
  source_file TEXT NOT NULL,
  source_line INTEGER NOT NULL,
  account     TEXT NOT NULL DEFAULT '',
  event_id    TEXT NOT NULL DEFAULT '',
  time        INTEGER,
  field       TEXT NOT NULL DEFAULT '',
  reason      TEXT NOT NULL,
  raw         TEXT NOT NULL DEFAULT ''
);

-- The engine's state of each account between replays (instances, balances, open hours,
-- timers), so that replaying a log in parts equals replaying it whole.
CREATE TABLE account_state (
  account         TEXT PRIMARY KEY,
  clock           INTEGER NOT NULL,  -- the account's time: everything before it is applied
  state           TEXT NOT NULL      -- engine state, JSON
);

-- The replay clock: the latest instant any replayed event (or --until) reached.
CREATE TABLE replay_clock (
  one   INTEGER PRIMARY KEY CHECK (one = 1),
  clock INTEGER NOT NULL
);

CREATE TABLE instance_state (
  id        INTEGER PRIMARY KEY,
  account   TEXT NOT NULL,
  instance  TEXT NOT NULL,
  at        INTEGER NOT NULL,
  state     TEXT NOT NULL,   -- running, stopped, arrears_stopped, recycle_bin, destroyed
  reason    TEXT NOT NULL,   -- create, start, stop, expiry, arrears, auto_renew, reclaim, ...
  event_seq INTEGER          -- the input event, or NULL for an event time caused
);
CREATE INDEX instance_state_by_instance ON instance_state (account, instance, at);

-- One bill line. A settlement row may stand for `repeat` identical consecutive hourly
-- settlements (same seconds, price, policy and rounding): hour k (0-based) covers
-- [period_start + k·3600, period_start + (k+1)·3600) when quantity is a full hour; exports
-- expand it to hourly lines. total_* = per-settlement amount × repeat.
CREATE TABLE charge (
  id            INTEGER PRIMARY KEY,
  account       TEXT NOT NULL,
  instance      TEXT NOT NULL DEFAULT '',
  provider      TEXT NOT NULL DEFAULT '',
  region        TEXT NOT NULL DEFAULT '',
  instance_type TEXT NOT NULL DEFAULT '',
  component     TEXT NOT NULL,   -- compute, system_disk, data_disk, bandwidth
  kind          TEXT NOT NULL,   -- settlement, prepaid_order, renewal, auto_renewal, upgrade, refund, minimum_charge
  mode          TEXT NOT NULL DEFAULT '',
  period_start  INTEGER NOT NULL,
  period_end    INTEGER NOT NULL,
  repeat        INTEGER NOT NULL DEFAULT 1,
  quantity      TEXT NOT NULL,   -- per settlement (seconds) or per order (months)
  unit          TEXT NOT NULL,   -- second, month, gb_hour, ...
  unit_price    TEXT NOT NULL,
  price_unit    TEXT NOT NULL,   -- hour, month
  exact_amount  TEXT NOT NULL,   -- per settlement, 12 decimals
  billed_amount TEXT NOT NULL,   -- per settlement, after the policy's rounding
  rounding      TEXT NOT NULL,   -- billed − exact, per settlement
  total_exact   TEXT NOT NULL,
  total_billed  TEXT NOT NULL,
  currency      TEXT NOT NULL,
  price_id      INTEGER,
  policy_id     INTEGER,
  discount_id   INTEGER,
  event_seqs    TEXT NOT NULL DEFAULT '',  -- input events that produced it, comma-separated
  note          TEXT NOT NULL DEFAULT ''
);
CREATE INDEX charge_by_account ON charge (account, period_start);
CREATE INDEX charge_by_instance ON charge (account, instance, period_start);

-- Top-ups and refunds credited, charges debited. A settlement run is debited in segments: the
-- hours settled before a top-up, order or refund of its currency, then the rest at the hour
-- end of its last hour (docs/usage-log.md). balance_after is the engine's balance when the row
-- was written; readers show the running total of the amounts (docs/bills.md).
CREATE TABLE balance_movement (
  id            INTEGER PRIMARY KEY,
  account       TEXT NOT NULL,
  at            INTEGER NOT NULL,
  currency      TEXT NOT NULL,
  amount        TEXT NOT NULL,
  balance_after TEXT NOT NULL,
  kind          TEXT NOT NULL,   -- topup, charge, refund
  charge_id     INTEGER,
  event_seq     INTEGER
);
CREATE INDEX balance_by_account ON balance_movement (account, at);
