-- What a rebuild needs to recompute accounts exactly as their replays did.
--
-- Each replay run: the last event stored when it ended and its --until (NULL when none). A
-- rebuild settles the accounts at the same points: the clock a run ended at is the latest of
-- its --until, the times of the (not void) events stored up to last_seq, and the run before.
CREATE TABLE replay_run (
  id       INTEGER PRIMARY KEY,
  last_seq INTEGER NOT NULL,
  until    INTEGER
);

-- Events declared void (`gpubill void`): kept, but a rebuild applies them no more.
CREATE TABLE event_void (
  seq    INTEGER PRIMARY KEY REFERENCES event(seq),
  reason TEXT NOT NULL
);
