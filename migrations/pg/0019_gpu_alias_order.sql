-- PostgreSQL version of migrations/0019_gpu_alias_order.sql: the same column; PostgreSQL has
-- no rowid to fill it from (a database made before this migration lists a GPU's aliases by
-- name until its catalog is imported again).
ALTER TABLE gpu_alias ADD COLUMN position BIGINT NOT NULL DEFAULT 0;
