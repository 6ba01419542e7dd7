-- CREATE INDEX and REINDEX through srmsort, differential: every index is
-- built once by PostgreSQL (srmsort.create_index = off) and once by srmsort
-- (external sort at maintenance_work_mem = 1MB on four disks), then
--   via_srmsort: srmsort's workfile disks were written during the build,
--   amcheck:     bt_index_parent_check(heapallindexed, rootdescend) passes
--                (an error would show here),
--   identical:   every page holds the same items as PostgreSQL's index
--                (keys, heap TIDs, posting lists, high keys, pivots) and
--                the sizes match,
--   answers:     the given index scans return the same rows in the same
--                order with only the srmsort-built index present.
CREATE EXTENSION IF NOT EXISTS srmsort;
SET client_min_messages = warning;
SET maintenance_work_mem = '1MB';
SET srmsort.min_input_size = 0;
SET srmsort.tablespaces = 'srm_d0, srm_d1, srm_d2, srm_d3';
SET srmsort.random_seed = 1;
SET max_parallel_maintenance_workers = 0;
SET extra_float_digits = 3;

SELECT setseed(0.5);
CREATE TABLE ix AS
SELECT i,
       (random() * 1e9)::int8 AS a,
       (i % 1000)::int4 AS dup,
       CASE WHEN i % 23 = 0 THEN NULL ELSE (random() * 1e5)::int4 END AS n,
       (ARRAY['apple', 'Apple', 'äpple', 'banana', 'résumé', 'resume', 'Zebra', '', 'a b'])[1 + i % 9]
           || md5((i % 5000)::text) AS t,
       md5(i::text)::uuid AS u,
       (random() * 1000)::numeric(10, 2) AS num,
       repeat('x', i % 50) AS pad
  FROM generate_series(1, 100000) i;
VACUUM ANALYZE ix;

-- plain, duplicates (posting lists), NULLs, DESC / NULLS FIRST
SELECT * FROM srm_index_check('CREATE INDEX %I ON ix (a)',
  ARRAY['SELECT a FROM ix WHERE a BETWEEN 1e8 AND 2e8 ORDER BY a',
        'SELECT i, a FROM ix WHERE a = (SELECT a FROM ix WHERE i = 777)',
        'SELECT a FROM ix ORDER BY a DESC LIMIT 500']);
SELECT * FROM srm_index_check('CREATE INDEX %I ON ix (dup)',
  ARRAY['SELECT dup, i FROM ix WHERE dup = 42 ORDER BY dup',
        'SELECT dup FROM ix WHERE dup < 10 ORDER BY dup']);
SELECT * FROM srm_index_check('CREATE INDEX %I ON ix (n DESC NULLS FIRST)',
  ARRAY['SELECT n FROM ix ORDER BY n DESC NULLS FIRST LIMIT 5000',
        'SELECT n, i FROM ix WHERE n IS NULL']);
SELECT * FROM srm_index_check('CREATE INDEX %I ON ix (dup) WITH (deduplicate_items = off)',
  ARRAY['SELECT dup, i FROM ix WHERE dup = 7']);
SELECT * FROM srm_index_check('CREATE INDEX %I ON ix (a) WITH (fillfactor = 60)');
-- multi-column, INCLUDE, text under several collations and opclasses
SELECT * FROM srm_index_check('CREATE INDEX %I ON ix (dup, a DESC)',
  ARRAY['SELECT dup, a FROM ix WHERE dup BETWEEN 5 AND 9 ORDER BY dup, a DESC']);
-- keys of fixed length with padding between them, posting lists, NULLs
SELECT * FROM srm_index_check('CREATE INDEX %I ON ix (((dup %% 50)::int2), ((n %% 3)::int8))',
  ARRAY['SELECT dup, n FROM ix WHERE (dup % 50)::int2 = 7 ORDER BY (dup % 50)::int2, (n % 3)::int8, i']);
-- two keys of 32 bits or fewer, whole in the normalized key: (int4, int4)
-- and (int4, date) with NULLs and the extreme values their NULLs share the
-- key with, ASC and DESC, NULLS FIRST and LAST, ties on both keys
CREATE TABLE ipair AS
SELECT CASE WHEN i % 31 = 0 THEN NULL ELSE i % 7 END::int4 AS a,
       CASE i % 17 WHEN 0 THEN NULL WHEN 1 THEN -2147483648 WHEN 2 THEN 2147483647
            ELSE (i * 7919 % 3000) - 1500 END::int4 AS b,
       CASE i % 19 WHEN 0 THEN NULL WHEN 1 THEN '-infinity'::date WHEN 2 THEN 'infinity'::date
            ELSE DATE '2020-01-01' + i % 400 END AS d,
       i
  FROM generate_series(1, 30000) i;
SELECT * FROM srm_index_check('CREATE INDEX %I ON ipair (a, b)',
  ARRAY['SELECT a, b, i FROM ipair WHERE a = 3 ORDER BY a, b',
        'SELECT a, b FROM ipair WHERE a IS NULL ORDER BY a, b']);
SELECT * FROM srm_index_check('CREATE INDEX %I ON ipair (a DESC, b NULLS FIRST)');
SELECT * FROM srm_index_check('CREATE INDEX %I ON ipair (a NULLS FIRST, b DESC NULLS LAST)');
SELECT * FROM srm_index_check('CREATE INDEX %I ON ipair (a, d)',
  ARRAY['SELECT a, d FROM ipair WHERE a = 2 AND d > ''2020-06-01'' ORDER BY a, d']);
SELECT * FROM srm_index_check('CREATE INDEX %I ON ipair (a, d DESC)');
SELECT * FROM srm_index_check('CREATE UNIQUE INDEX %I ON ipair (b, i)');
SELECT * FROM srm_index_check('CREATE INDEX %I ON ix (dup, n)',
  ARRAY['SELECT dup, n FROM ix WHERE dup = 5 ORDER BY dup, n']);
DROP TABLE ipair;
SELECT * FROM srm_index_check('CREATE INDEX %I ON ix (dup) INCLUDE (pad, i)',
  ARRAY['SELECT dup, pad, i FROM ix WHERE dup = 3']);
SELECT * FROM srm_index_check('CREATE INDEX %I ON ix (t COLLATE "C")',
  ARRAY['SELECT t FROM ix WHERE t > ''b'' COLLATE "C" ORDER BY t COLLATE "C" LIMIT 1000']);
SELECT * FROM srm_index_check('CREATE INDEX %I ON ix (t COLLATE "en-x-icu")',
  ARRAY['SELECT t FROM ix ORDER BY t COLLATE "en-x-icu" LIMIT 2000']);
SELECT * FROM srm_index_check('CREATE INDEX %I ON ix (t COLLATE "sv-x-icu" DESC)');
SELECT * FROM srm_index_check('CREATE INDEX %I ON ix (t COLLATE "C.utf8")');
SELECT * FROM srm_index_check('CREATE INDEX %I ON ix (t text_pattern_ops)',
  ARRAY['SELECT t FROM ix WHERE t LIKE ''résumé1%'' ORDER BY t']);
SELECT * FROM srm_index_check('CREATE INDEX %I ON ix (u)',
  ARRAY['SELECT u FROM ix WHERE u < ''10000000-0000-0000-0000-000000000000'' ORDER BY u']);
SELECT * FROM srm_index_check('CREATE INDEX %I ON ix (num)',
  ARRAY['SELECT num FROM ix WHERE num BETWEEN 100 AND 101 ORDER BY num']);
-- numeric keys (normalized: sign, weight, leading digits): NaN, the
-- infinities, zeros and equal values of several scales, weights past the
-- key's ranges, long headers, values compressed in the index tuple, NULLs;
-- alone and (date, numeric, numeric), the first numeric in the low half
CREATE TABLE inum AS
SELECT i, DATE '2020-01-01' + i % 40 AS d,
       CASE i % 23 WHEN 0 THEN NULL WHEN 1 THEN 'NaN' WHEN 2 THEN 'Infinity'
            WHEN 3 THEN '-Infinity' WHEN 4 THEN 0.00 WHEN 5 THEN 0 WHEN 6 THEN 2.50 WHEN 7 THEN 2.5
            WHEN 8 THEN (ARRAY[1e1025, -1e1025, 1e-1030, -1e-1030, 1e33, -1e-33])[1 + i % 6]
            WHEN 9 THEN round(random()::numeric, 70)
            WHEN 10 THEN (repeat('9876', 600) || (i % 5))::numeric
            ELSE round(((random() - 0.5) * 2e4)::numeric, i % 3) END AS n,
       CASE WHEN i % 17 = 0 THEN NULL ELSE round((random() * 100)::numeric, 2) END AS n2
  FROM generate_series(1, 30000) i;
VACUUM ANALYZE inum;
SELECT * FROM srm_index_check('CREATE INDEX %I ON inum (n)',
  ARRAY['SELECT n FROM inum WHERE n > 9000 ORDER BY n',
        'SELECT n FROM inum WHERE n < -9000 ORDER BY n DESC']);
SELECT * FROM srm_index_check('CREATE INDEX %I ON inum (n DESC NULLS LAST)');
SELECT * FROM srm_index_check('CREATE INDEX %I ON inum (d, n, n2)',
  ARRAY['SELECT d, n, n2 FROM inum WHERE d = ''2020-01-05'' ORDER BY d, n, n2']);
SELECT * FROM srm_index_check('CREATE INDEX %I ON inum (d DESC, n NULLS FIRST, n2 DESC)');
SELECT * FROM srm_index_check('CREATE INDEX %I ON inum (d, n2, n)',
  ARRAY['SELECT d, n2 FROM inum WHERE d = ''2020-01-07'' AND n2 < 10 ORDER BY d, n2']);
DROP TABLE inum;
-- expressions and partial indexes
SELECT * FROM srm_index_check('CREATE INDEX %I ON ix (lower(t), (a %% 1000))',
  ARRAY['SELECT lower(t), a % 1000 FROM ix WHERE lower(t) LIKE ''apple%'' ORDER BY lower(t), a % 1000 LIMIT 300']);
SELECT * FROM srm_index_check('CREATE INDEX %I ON ix (a) WHERE dup < 500',
  ARRAY['SELECT a FROM ix WHERE dup < 500 AND a < 1e8 ORDER BY a']);
-- unique indexes, NULLS NOT DISTINCT
SELECT * FROM srm_index_check('CREATE UNIQUE INDEX %I ON ix (i)',
  ARRAY['SELECT i FROM ix WHERE i BETWEEN 500 AND 700 ORDER BY i']);
SELECT * FROM srm_index_check('CREATE UNIQUE INDEX %I ON ix (dup, i DESC) INCLUDE (a)');
SELECT * FROM srm_index_check('CREATE UNIQUE INDEX %I ON ix (u)');
-- keys in the heap's order make one run (see 20_external), in reverse order
-- a run per load
SELECT * FROM srm_index_check('CREATE INDEX %I ON ix ((i / 100))',
  ARRAY['SELECT i / 100 FROM ix WHERE i / 100 = 42']);
SELECT * FROM srm_index_check('CREATE INDEX %I ON ix (i DESC)');

-- every type of the ORDER BY tests
CREATE TYPE srm_ipair AS (a int, b text);
CREATE TABLE ityp AS
SELECT i,
       nullif((random() * 65535 - 32768)::int2, 0) AS c_int2,
       (CASE i % 50 WHEN 0 THEN 'NaN' WHEN 1 THEN '-0' WHEN 2 THEN 'Infinity'
                    WHEN 3 THEN '-Infinity' WHEN 4 THEN '0'
                    ELSE ((random() - 0.5) * 1e6)::text END)::float4 AS c_float4,
       (CASE i % 50 WHEN 5 THEN 'NaN' WHEN 6 THEN '-0' WHEN 7 THEN 'Infinity'
                    WHEN 8 THEN '-Infinity' WHEN 9 THEN '0' WHEN 10 THEN NULL
                    ELSE ((random() - 0.5) * 1e12)::text END)::float8 AS c_float8,
       CASE i % 7 WHEN 0 THEN 1.0 WHEN 1 THEN 1.00 ELSE round((random() * 1e6)::numeric, (i % 5)) END AS c_numeric,
       substr(md5((i * 7)::text), 1, 1 + i % 20)::varchar(20) AS c_varchar,
       decode(md5((i % 997)::text), 'hex') AS c_bytea,
       DATE '2000-01-01' + (random() * 20000)::int AS c_date,
       TIMESTAMP '2000-01-01' + random() * INTERVAL '9000 days' AS c_timestamp,
       TIMESTAMPTZ '2000-01-01 00:00+02' + random() * INTERVAL '9000 days' AS c_timestamptz,
       random() * INTERVAL '3000 days' - INTERVAL '1500 days' + (i % 3) * INTERVAL '1 month' AS c_interval,
       CASE WHEN i % 11 = 0 THEN NULL ELSE random() < 0.5 END AS c_bool,
       ARRAY[(random() * 5)::int, (random() * 5)::int, i % 3] AS c_array,
       ROW((random() * 20)::int, md5((i % 13)::text))::srm_ipair AS c_comp,
       jsonb_build_object('a', (random() * 50)::int, 'b', md5((i % 17)::text)) AS c_jsonb,
       ('x' || (i % 3000))::name AS c_name
  FROM generate_series(1, 60000) i;
VACUUM ANALYZE ityp;
SELECT c, (srm_index_check(format('CREATE INDEX %%I ON ityp (%I)', c),
                           ARRAY[format('SELECT %I FROM ityp ORDER BY %I', c, c)])).*
  FROM unnest(ARRAY['c_int2', 'c_float4', 'c_float8', 'c_numeric', 'c_varchar',
                    'c_bytea', 'c_date', 'c_timestamp', 'c_timestamptz',
                    'c_interval', 'c_bool', 'c_array', 'c_comp', 'c_jsonb',
                    'c_name']) c;

-- several merge passes: merge order 3
SET srmsort.max_merge_order = 3;
SELECT * FROM srm_index_check('CREATE INDEX %I ON ix (t COLLATE "C", a)');
RESET srmsort.max_merge_order;

-- uniqueness: PostgreSQL's error, word for word, from both builds
CREATE TABLE uq AS SELECT i, i % 70000 AS k, NULL::int AS z FROM generate_series(1, 70001) i;
SET srmsort.create_index = off;
CREATE UNIQUE INDEX uq_k ON uq (k);
SET srmsort.create_index = on;
CREATE UNIQUE INDEX uq_k ON uq (k);
-- NULLs are distinct by default, not with NULLS NOT DISTINCT
SELECT * FROM srm_index_check('CREATE UNIQUE INDEX %I ON uq (z, i)');
SET srmsort.create_index = off;
CREATE UNIQUE INDEX uq_z ON uq (z) NULLS NOT DISTINCT;
SET srmsort.create_index = on;
CREATE UNIQUE INDEX uq_z ON uq (z) NULLS NOT DISTINCT;
DELETE FROM uq WHERE i = 70001;
SELECT * FROM srm_index_check('CREATE UNIQUE INDEX %I ON uq (k) NULLS NOT DISTINCT');
-- numeric 1.0 and 1.00 are equal keys though their bytes differ
CREATE TABLE uqn AS SELECT i::numeric AS v FROM generate_series(1, 70000) i;
INSERT INTO uqn VALUES (5.00);
-- the key named is the first of the pair in heap order, as in PostgreSQL
SET srmsort.create_index = off;
CREATE UNIQUE INDEX uqn_v ON uqn (v);
SET srmsort.create_index = on;
CREATE UNIQUE INDEX uqn_v ON uqn (v);

-- equal under a nondeterministic collation though spelt differently
CREATE COLLATION srm_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE TABLE uqci (x text COLLATE srm_ci);
INSERT INTO uqci VALUES ('abc'), ('ghi'), ('ABC'), ('def');
SET srmsort.create_index = off;
CREATE UNIQUE INDEX uqci_x ON uqci (x);
SET srmsort.create_index = on;
CREATE UNIQUE INDEX uqci_x ON uqci (x);
DROP TABLE uqci;
DROP COLLATION srm_ci;
-- dead duplicates (deleted and re-inserted in this transaction) go into the
-- index but not into the uniqueness check; live ones still fail
BEGIN;
DELETE FROM uq WHERE k % 10 = 0;
INSERT INTO uq SELECT i, i % 70000, NULL FROM generate_series(1, 69999) i WHERE i % 10 = 0;
SELECT * FROM srm_index_check('CREATE UNIQUE INDEX %I ON uq (k)',
  ARRAY['SELECT k FROM uq WHERE k BETWEEN 100 AND 300 ORDER BY k']);
SAVEPOINT s;
INSERT INTO uq VALUES (0, 20, NULL);
CREATE UNIQUE INDEX uq_k2 ON uq (k);
ROLLBACK TO s;
COMMIT;

-- an index row too large: PostgreSQL's error
CREATE TABLE ixbig (i int, t text);
ALTER TABLE ixbig ALTER t SET STORAGE plain;
INSERT INTO ixbig
SELECT i, CASE WHEN i = 1 THEN (SELECT string_agg(md5(random()::text), '') FROM generate_series(1, 200))
               ELSE md5(i::text) END
  FROM generate_series(1, 70000) i;
SET srmsort.create_index = off;
CREATE INDEX ixbig_t ON ixbig (t);
SET srmsort.create_index = on;
CREATE INDEX ixbig_t ON ixbig (t);
-- index rows srmsort forms itself (no column past TOAST_INDEX_TARGET):
-- past the largest index tuple, past a btree page's third, and just within
-- it; the same errors, and no workfile left behind
CREATE TABLE ixwide (i int, t text);
ALTER TABLE ixwide ALTER t SET STORAGE plain;
INSERT INTO ixwide
SELECT i, CASE WHEN i = 5000 THEN left((SELECT string_agg(md5(g::text), '') FROM generate_series(1, 16) g), 500)
               ELSE md5(i::text) END
  FROM generate_series(1, 20000) i;
SET srmsort.create_index = off;
CREATE INDEX ixwide_17 ON ixwide (t, (t || 'a'), (t || 'b'), (t || 'c'), (t || 'd'), (t || 'e'), (t || 'f'), (t || 'g'), (t || 'h'), (t || 'i'), (t || 'j'), (t || 'k'), (t || 'l'), (t || 'm'), (t || 'n'), (t || 'o'), (t || 'p'));
SET srmsort.create_index = on;
CREATE INDEX ixwide_17 ON ixwide (t, (t || 'a'), (t || 'b'), (t || 'c'), (t || 'd'), (t || 'e'), (t || 'f'), (t || 'g'), (t || 'h'), (t || 'i'), (t || 'j'), (t || 'k'), (t || 'l'), (t || 'm'), (t || 'n'), (t || 'o'), (t || 'p'));
SELECT srm_temp_files();
SET srmsort.create_index = off;
CREATE INDEX ixwide_6 ON ixwide (t, (t || 'a'), (t || 'b'), (t || 'c'), (t || 'd'), (t || 'e'));
SET srmsort.create_index = on;
CREATE INDEX ixwide_6 ON ixwide (t, (t || 'a'), (t || 'b'), (t || 'c'), (t || 'd'), (t || 'e'));
SELECT srm_temp_files();
SELECT * FROM srm_index_check($q$CREATE INDEX %I ON ixwide (t, (t || 'a'), (t || 'b'), (t || 'c'), (t || 'd'))$q$);
-- the errcodes, also when the error aborts a subtransaction
CREATE FUNCTION pg_temp.srm_err(q text, srm text) RETURNS text LANGUAGE plpgsql AS $fn$
BEGIN
    PERFORM set_config('srmsort.create_index', srm, true);
    EXECUTE q;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ' ' || SQLERRM;
END
$fn$;
SELECT s AS create_index, pg_temp.srm_err(format(q, 'ixwide_e'), s) AS error
  FROM (VALUES ($q$CREATE INDEX %I ON ixwide (t, (t || 'a'), (t || 'b'), (t || 'c'), (t || 'd'), (t || 'e'), (t || 'f'), (t || 'g'), (t || 'h'), (t || 'i'), (t || 'j'), (t || 'k'), (t || 'l'), (t || 'm'), (t || 'n'), (t || 'o'), (t || 'p'))$q$),
               ($q$CREATE INDEX %I ON ixwide (t, (t || 'a'), (t || 'b'), (t || 'c'), (t || 'd'), (t || 'e'))$q$)) v(q),
       unnest(ARRAY['off', 'on']) s
 ORDER BY q, s;
SELECT srm_temp_files();
DROP TABLE ixwide;

-- REINDEX INDEX and REINDEX TABLE rebuild through srmsort
CREATE INDEX ix_a ON ix (a);
CREATE UNIQUE INDEX ix_i ON ix (i);
CREATE INDEX ix_hash ON ix USING hash (dup);
SELECT coalesce(sum(bytes_written), 0) AS w0 FROM srmsort_disks \gset
REINDEX INDEX ix_a;
SELECT sum(bytes_written) > :w0 AS via_srmsort FROM srmsort_disks;
SELECT bt_index_parent_check('ix_a', true, true);
SELECT coalesce(sum(bytes_written), 0) AS w0 FROM srmsort_disks \gset
REINDEX TABLE ix;
SELECT sum(bytes_written) > :w0 AS via_srmsort FROM srmsort_disks;
SELECT bt_index_parent_check('ix_a', true, true), bt_index_parent_check('ix_i', true, true);
SELECT count(*) FROM ix WHERE dup = 5;
-- REINDEX CONCURRENTLY and CREATE INDEX CONCURRENTLY (see 56_rebuilds)
REINDEX INDEX CONCURRENTLY ix_a;
SELECT bt_index_parent_check('ix_a', true, true);
CREATE INDEX CONCURRENTLY ix_dup ON ix (dup);
SELECT bt_index_parent_check('ix_dup', true, true);
DROP INDEX ix_a, ix_i, ix_hash, ix_dup;

-- unlogged and temporary tables, materialized views
CREATE UNLOGGED TABLE ul AS SELECT * FROM ix;
SELECT * FROM srm_index_check('CREATE INDEX %I ON ul (a)');
CREATE INDEX ul_a ON ul (a);
SELECT (pg_stat_file(pg_relation_filepath('ul_a') || '_init')).size > 0 AS has_init_fork;
CREATE TEMP TABLE tt AS SELECT * FROM ix;
SELECT * FROM srm_index_check('CREATE INDEX %I ON tt (t COLLATE "C")');
CREATE MATERIALIZED VIEW mv AS SELECT a, dup FROM ix;
SELECT * FROM srm_index_check('CREATE INDEX %I ON mv (dup, a)');

-- IF NOT EXISTS, an empty table, small tables left to PostgreSQL
CREATE INDEX IF NOT EXISTS ul_a ON ul (a);
CREATE TABLE empty (a int);
SELECT * FROM srm_index_check('CREATE INDEX %I ON empty (a)');
RESET srmsort.min_input_size;
SET maintenance_work_mem = '64MB';
SELECT * FROM srm_index_check('CREATE INDEX %I ON ityp (c_int2)');
SET maintenance_work_mem = '1MB';

-- partitioned tables are PostgreSQL's; their partitions may be ours
SET srmsort.min_input_size = 0;
CREATE TABLE pt (a int8, b int) PARTITION BY RANGE (b);
CREATE TABLE pt1 PARTITION OF pt FOR VALUES FROM (0) TO (500);
CREATE TABLE pt2 PARTITION OF pt FOR VALUES FROM (500) TO (1000);
INSERT INTO pt SELECT a, dup FROM ix;
CREATE INDEX pt_a ON pt (a);
SELECT bt_index_parent_check('pt1_a_idx', true, true), bt_index_parent_check('pt2_a_idx', true, true);
CREATE INDEX pt_b ON ONLY pt (b);
SELECT * FROM srm_index_check('CREATE INDEX %I ON pt1 (b)');

-- event triggers see the command as usual
CREATE FUNCTION srm_evt() RETURNS event_trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE WARNING 'event % for %', tg_event, tg_tag;
END $$;
CREATE EVENT TRIGGER srm_evt_start ON ddl_command_start EXECUTE FUNCTION srm_evt();
CREATE EVENT TRIGGER srm_evt_end ON ddl_command_end EXECUTE FUNCTION srm_evt();
CREATE INDEX ix_evt ON ix (a);
DROP EVENT TRIGGER srm_evt_start;
DROP EVENT TRIGGER srm_evt_end;
SELECT bt_index_parent_check('ix_evt', true, true);

-- srmsort's build allocates nothing in the index's relcache entry: its
-- memory is that of an entry PostgreSQL built (one routine with srmsort's
-- ambuild per backend, not a copy per entry), also after a REINDEX
BEGIN;
SET LOCAL srmsort.enabled = off;
CREATE INDEX ix_mem_n ON ix (a);
SET LOCAL srmsort.enabled = on;
CREATE INDEX ix_mem_s ON ix (a);
CREATE INDEX ix_mem_s2 ON ix (a);
REINDEX INDEX ix_mem_s;
SELECT count(*) AS entries, count(DISTINCT used_bytes) AS sizes
  FROM pg_backend_memory_contexts
 WHERE name = 'index info' AND ident IN ('ix_mem_n', 'ix_mem_s', 'ix_mem_s2');
ROLLBACK;

-- a key too large for a btree page (an incompressible ~3.2 kB text among
-- short ones, enough of them for an external sort): srmsort's loader
-- raises PostgreSQL's error, code, message, detail and hint alike, and the
-- failed build leaves no workfile (checked below)
CREATE TABLE toobig (t text);
INSERT INTO toobig SELECT md5(i::text) FROM generate_series(1, 30000) i;
INSERT INTO toobig SELECT string_agg(md5(i::text), '') FROM generate_series(1, 100) i;
CREATE FUNCTION srm_build_error(stmt text, OUT state text, OUT msg text,
                                OUT detail text, OUT hint text)
LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE stmt;
  state := 'no error';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, msg = MESSAGE_TEXT,
    detail = PG_EXCEPTION_DETAIL, hint = PG_EXCEPTION_HINT;
END $$;
SET srmsort.enabled = off;
CREATE TEMP TABLE toobig_err AS
SELECT 'postgres' AS sorter, * FROM srm_build_error('CREATE INDEX toobig_t ON toobig (t)');
SET srmsort.enabled = on;
SELECT coalesce(sum(bytes_written), 0) AS toobig_w0 FROM srmsort_disks \gset
INSERT INTO toobig_err
SELECT 'srmsort', * FROM srm_build_error('CREATE INDEX toobig_t ON toobig (t)');
SELECT sum(bytes_written) > :toobig_w0 AS via_srmsort FROM srmsort_disks;
SELECT string_agg(sorter, ', ' ORDER BY sorter) AS sorters, state, msg, detail, hint
  FROM toobig_err GROUP BY state, msg, detail, hint;

-- no workfile left behind
SELECT srm_temp_files();
DROP TABLE ix, ityp, uq, uqn, ixbig, ul, tt, empty, pt, toobig CASCADE;
DROP FUNCTION srm_build_error(text);
DROP TYPE srm_ipair;
