-- The offer summary a quote reads instead of every offer's rows (issue 32; engine/quote/
-- offer_summary.cpp): per provider, region, family and GPU, how many offers there are and the
-- first of them, and the regions each provider's prices name. It is built from the catalog
-- (after an import, or by a quote that finds it stale) and valid only for the catalog it was
-- built from: a change to any table it depends on marks it stale (catalog_stamp.dirty = 1, by
-- the triggers below; the first change of a clean catalog also bumps the version), and a stale
-- summary is never read.
CREATE TABLE catalog_stamp (
  one     INTEGER PRIMARY KEY CHECK (one = 1),
  version INTEGER NOT NULL,
  dirty   INTEGER NOT NULL CHECK (dirty IN (0, 1))
);
INSERT INTO catalog_stamp (one, version, dirty) VALUES (1, 1, 1);

CREATE TABLE quote_offer_summary (
  one     INTEGER PRIMARY KEY CHECK (one = 1),
  version INTEGER NOT NULL,  -- catalog_stamp.version it was built at
  body    BLOB NOT NULL      -- offer_summary.cpp: encode_summary
);

-- Instance types by GPU: a quote that names GPU models reads only the types that carry them.
CREATE INDEX instance_type_gpu ON instance_type(gpu);
CREATE INDEX attachable_gpu_gpu ON attachable_gpu(gpu);

CREATE TRIGGER provider_insert_stamp AFTER INSERT ON provider
WHEN (SELECT dirty FROM catalog_stamp WHERE one = 1) = 0
BEGIN UPDATE catalog_stamp SET version = version + 1, dirty = 1 WHERE one = 1; END;
CREATE TRIGGER provider_update_stamp AFTER UPDATE ON provider
WHEN (SELECT dirty FROM catalog_stamp WHERE one = 1) = 0
BEGIN UPDATE catalog_stamp SET version = version + 1, dirty = 1 WHERE one = 1; END;
CREATE TRIGGER provider_delete_stamp AFTER DELETE ON provider
WHEN (SELECT dirty FROM catalog_stamp WHERE one = 1) = 0
BEGIN UPDATE catalog_stamp SET version = version + 1, dirty = 1 WHERE one = 1; END;
CREATE TRIGGER gpu_insert_stamp AFTER INSERT ON gpu
WHEN (SELECT dirty FROM catalog_stamp WHERE one = 1) = 0
BEGIN UPDATE catalog_stamp SET version = version + 1, dirty = 1 WHERE one = 1; END;
CREATE TRIGGER gpu_update_stamp AFTER UPDATE ON gpu
WHEN (SELECT dirty FROM catalog_stamp WHERE one = 1) = 0
BEGIN UPDATE catalog_stamp SET version = version + 1, dirty = 1 WHERE one = 1; END;
CREATE TRIGGER gpu_delete_stamp AFTER DELETE ON gpu
WHEN (SELECT dirty FROM catalog_stamp WHERE one = 1) = 0
BEGIN UPDATE catalog_stamp SET version = version + 1, dirty = 1 WHERE one = 1; END;
CREATE TRIGGER gpu_alias_insert_stamp AFTER INSERT ON gpu_alias
WHEN (SELECT dirty FROM catalog_stamp WHERE one = 1) = 0
BEGIN UPDATE catalog_stamp SET version = version + 1, dirty = 1 WHERE one = 1; END;
CREATE TRIGGER gpu_alias_update_stamp AFTER UPDATE ON gpu_alias
WHEN (SELECT dirty FROM catalog_stamp WHERE one = 1) = 0
BEGIN UPDATE catalog_stamp SET version = version + 1, dirty = 1 WHERE one = 1; END;
CREATE TRIGGER gpu_alias_delete_stamp AFTER DELETE ON gpu_alias
WHEN (SELECT dirty FROM catalog_stamp WHERE one = 1) = 0
BEGIN UPDATE catalog_stamp SET version = version + 1, dirty = 1 WHERE one = 1; END;
CREATE TRIGGER instance_type_insert_stamp AFTER INSERT ON instance_type
WHEN (SELECT dirty FROM catalog_stamp WHERE one = 1) = 0
BEGIN UPDATE catalog_stamp SET version = version + 1, dirty = 1 WHERE one = 1; END;
CREATE TRIGGER instance_type_update_stamp AFTER UPDATE ON instance_type
WHEN (SELECT dirty FROM catalog_stamp WHERE one = 1) = 0
BEGIN UPDATE catalog_stamp SET version = version + 1, dirty = 1 WHERE one = 1; END;
CREATE TRIGGER instance_type_delete_stamp AFTER DELETE ON instance_type
WHEN (SELECT dirty FROM catalog_stamp WHERE one = 1) = 0
BEGIN UPDATE catalog_stamp SET version = version + 1, dirty = 1 WHERE one = 1; END;
CREATE TRIGGER attachable_gpu_insert_stamp AFTER INSERT ON attachable_gpu
WHEN (SELECT dirty FROM catalog_stamp WHERE one = 1) = 0
BEGIN UPDATE catalog_stamp SET version = version + 1, dirty = 1 WHERE one = 1; END;
CREATE TRIGGER attachable_gpu_update_stamp AFTER UPDATE ON attachable_gpu
WHEN (SELECT dirty FROM catalog_stamp WHERE one = 1) = 0
BEGIN UPDATE catalog_stamp SET version = version + 1, dirty = 1 WHERE one = 1; END;
CREATE TRIGGER attachable_gpu_delete_stamp AFTER DELETE ON attachable_gpu
WHEN (SELECT dirty FROM catalog_stamp WHERE one = 1) = 0
BEGIN UPDATE catalog_stamp SET version = version + 1, dirty = 1 WHERE one = 1; END;
CREATE TRIGGER price_insert_stamp AFTER INSERT ON price
WHEN (SELECT dirty FROM catalog_stamp WHERE one = 1) = 0
BEGIN UPDATE catalog_stamp SET version = version + 1, dirty = 1 WHERE one = 1; END;
CREATE TRIGGER price_update_stamp AFTER UPDATE ON price
WHEN (SELECT dirty FROM catalog_stamp WHERE one = 1) = 0
BEGIN UPDATE catalog_stamp SET version = version + 1, dirty = 1 WHERE one = 1; END;
CREATE TRIGGER price_delete_stamp AFTER DELETE ON price
WHEN (SELECT dirty FROM catalog_stamp WHERE one = 1) = 0
BEGIN UPDATE catalog_stamp SET version = version + 1, dirty = 1 WHERE one = 1; END;
