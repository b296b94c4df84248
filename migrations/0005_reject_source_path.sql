-- The file a reject came from as one canonical absolute path, so that the same malformed line
-- reached as x.jsonl, ./x.jsonl or /abs/x.jsonl is quarantined once (source_file keeps the name
-- as the user gave it). NULL on rows written before this migration.
ALTER TABLE reject ADD COLUMN source_path TEXT;
CREATE INDEX reject_source ON reject(kind, source_path, source_line);
