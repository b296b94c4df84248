-- A GPU's aliases in the order the catalog lists them (`catalog gpus` prints them so). SQLite
-- kept that order in its rowids, which PostgreSQL does not have (docs/postgresql.md): a column
-- now, filled from the rowids here. An import writes each GPU's aliases with their positions.
ALTER TABLE gpu_alias ADD COLUMN position INTEGER NOT NULL DEFAULT 0;
UPDATE gpu_alias SET position = rowid;
