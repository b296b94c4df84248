-- How many rentable GPU units one bought board holds: a Tesla K80 board carries two GK210
-- chips and clouds rent each chip as "1 K80" (likewise the Tesla M60's two GM204). The gpu
-- row's throughput, memory, bandwidth and TDP describe one rentable unit; launch_price is the
-- price of one board.
ALTER TABLE gpu ADD COLUMN units_per_board INTEGER NOT NULL DEFAULT 1 CHECK (units_per_board >= 1);
