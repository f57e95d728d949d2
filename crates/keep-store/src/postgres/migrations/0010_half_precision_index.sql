-- The HNSW indexes hold half-precision copies of the vectors, which keep
-- their full precision in their tables: at 100,000 notes the index of
-- notes took 112 MB instead of 195, and a search ranks what it finds by
-- the exact distances. Indexes made before are made again this way, with
-- the memory their vectors need (as `build_sized_indexes` asks).

DO $$
DECLARE
    dims integer;
    vec text;
    vectors bigint;
BEGIN
    SELECT value::integer INTO dims FROM meta WHERE key = 'vector_dims';
    FOREACH vec IN ARRAY ARRAY['vec_notes', 'vec_versions', 'vec_parts'] LOOP
        CONTINUE WHEN dims IS NULL OR to_regclass(vec || '_hnsw') IS NULL;
        EXECUTE format('SELECT count(*) FROM %I', vec) INTO vectors;
        PERFORM set_config('maintenance_work_mem',
            greatest(64, least(4096, vectors * (dims * 2 + 1024) / 1000000)) || 'MB', true);
        EXECUTE format('DROP INDEX %I', vec || '_hnsw');
        EXECUTE format(
            'CREATE INDEX %I ON %I USING hnsw ((embedding::halfvec(%s)) halfvec_cosine_ops)',
            vec || '_hnsw', vec, dims);
    END LOOP;
END $$;
