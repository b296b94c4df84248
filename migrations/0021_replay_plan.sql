-- The numbers a replay with workers gives the rows it writes (engine/replay/replay_plan.hpp):
-- one worker's, taken before the workers start, one block per table, and kept here until the
-- replay's end, so that a replay stopped half-way and run again with the same log (log_hash)
-- gives each row the number it had. At most one row: the plan of the last replay not finished.
CREATE TABLE replay_plan (
  one             INTEGER PRIMARY KEY CHECK (one = 1),
  log_hash        TEXT NOT NULL,
  event_first     INTEGER NOT NULL,
  event_count     INTEGER NOT NULL,
  charge_first    INTEGER NOT NULL,
  charge_count    INTEGER NOT NULL,
  movement_first  INTEGER NOT NULL,
  movement_count  INTEGER NOT NULL,
  state_first     INTEGER NOT NULL,
  state_count     INTEGER NOT NULL,
  reject_first    INTEGER NOT NULL,
  reject_count    INTEGER NOT NULL
);
