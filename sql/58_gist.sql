-- GiST sorted builds through srmsort, differential: every index is built
-- once by PostgreSQL (srmsort.create_index = off) and once by srmsort
-- (external sort at maintenance_work_mem = 1MB on four disks), then
--   via_srmsort: srmsort's workfile disks were written during the build
--                (false where PostgreSQL's build is not a sorted one);
--   identical:   every page holds the same items (keys, heap TIDs, item
--                lengths) under the same flags and right link, and the
--                sizes match (pageinspect's gist_page_items);
--   answers:     the given queries return the same rows in the same order
--                through PostgreSQL's index, through srmsort's, and by a
--                sequential scan.
CREATE EXTENSION IF NOT EXISTS srmsort;
SET client_min_messages = warning;
SET maintenance_work_mem = '1MB';
SET srmsort.min_input_size = 0;
SET srmsort.tablespaces = 'srm_d0, srm_d1, srm_d2, srm_d3';
SET srmsort.random_seed = 1;
SET extra_float_digits = 3;

SELECT setseed(0.25);
CREATE TABLE gp AS
SELECT i,
       point(random() * 1000, random() * 1000) AS p,
       CASE WHEN i % 17 = 0 THEN NULL
            ELSE point(random() * 100, random() * 100) END AS pn,
       point((i % 300) / 10, (i % 7)) AS pd,
       random() * 100 AS x, random() * 100 AS y,
       box(point(i % 100, i % 50), point(i % 100 + 3, i % 50 + 2)) AS b
  FROM generate_series(1, 50000) i;
VACUUM ANALYZE gp;

-- distinct points: containment, equality, nearest neighbours
SELECT * FROM srm_index_check('CREATE INDEX %I ON gp USING gist (p)',
  ARRAY['SELECT i, p FROM gp WHERE p <@ box ''((100,100),(140,130))'' ORDER BY i',
        'SELECT i FROM gp WHERE p ~= (SELECT p FROM gp WHERE i = 4242)',
        'SELECT i, p <-> point ''(500,500)'' FROM gp ORDER BY p <-> point ''(500,500)'' LIMIT 200',
        'SELECT count(*) FROM gp WHERE p <@ circle ''((300,300),50)'''], seqscan => true);
-- NULLs (indexed, found by IS NULL) and duplicates
SELECT * FROM srm_index_check('CREATE INDEX %I ON gp USING gist (pn)',
  ARRAY['SELECT i FROM gp WHERE pn IS NULL ORDER BY i',
        'SELECT i, pn FROM gp WHERE pn <@ box ''((10,10),(12,11))'' ORDER BY i'], seqscan => true);
SELECT * FROM srm_index_check('CREATE INDEX %I ON gp USING gist (pd)',
  ARRAY['SELECT i FROM gp WHERE pd ~= point ''(12,3)'' ORDER BY i',
        'SELECT count(*) FROM gp WHERE pd <@ box ''((0,0),(5,2))'''], seqscan => true);
-- several columns, INCLUDE, an expression, a partial index
SELECT * FROM srm_index_check('CREATE INDEX %I ON gp USING gist (pd, p)',
  ARRAY['SELECT i FROM gp WHERE pd ~= point ''(7,1)'' AND p <@ box ''((0,0),(500,500))'' ORDER BY i'], seqscan => true);
SELECT * FROM srm_index_check('CREATE INDEX %I ON gp USING gist (p) INCLUDE (i)',
  ARRAY['SELECT i FROM gp WHERE p <@ box ''((0,0),(30,30))'' ORDER BY i'], seqscan => true);
SELECT * FROM srm_index_check('CREATE INDEX %I ON gp USING gist (point(x, y))',
  ARRAY['SELECT i FROM gp WHERE point(x, y) <@ box ''((5,5),(6,7))'' ORDER BY i',
        'SELECT i FROM gp ORDER BY point(x, y) <-> point ''(50,50)'' LIMIT 100'], seqscan => true);
SELECT * FROM srm_index_check('CREATE INDEX %I ON gp USING gist (p) WHERE i %% 3 = 0',
  ARRAY['SELECT i FROM gp WHERE i % 3 = 0 AND p <@ box ''((0,0),(100,100))'' ORDER BY i'], seqscan => true);
-- a partial index of no rows: an empty leaf as the root (an empty sort
-- writes nothing to the disks)
SELECT * FROM srm_index_check('CREATE INDEX %I ON gp USING gist (p) WHERE i < 0');
-- the fillfactor does not apply to sorted builds; buffering = off sorts too
SELECT * FROM srm_index_check('CREATE INDEX %I ON gp USING gist (p) WITH (fillfactor = 50, buffering = off)');
-- PostgreSQL's own builds: buffering forced on, an opclass with no sortsupport
SELECT * FROM srm_index_check('CREATE INDEX %I ON gp USING gist (p) WITH (buffering = on)',
  ARRAY['SELECT i FROM gp WHERE p <@ box ''((1,1),(20,20))'' ORDER BY i'], seqscan => true);
SELECT * FROM srm_index_check('CREATE INDEX %I ON gp USING gist (b)',
  ARRAY['SELECT i FROM gp WHERE b && box ''((10,10),(11,11))'' ORDER BY i'], seqscan => true);

-- REINDEX and the rebuild after a rewrite: the same pages as PostgreSQL's
SET srmsort.create_index = off;
CREATE INDEX gp_p_native ON gp USING gist (p);
CREATE INDEX gp_p ON gp USING gist (p);
SET srmsort.create_index = on;
SELECT sum(bytes_written) AS w0 FROM srmsort_disks \gset
REINDEX INDEX gp_p;
SELECT sum(bytes_written) > :w0 AS via_srmsort, srm_gist_pages_diff('gp_p_native', 'gp_p') = 0 AS identical
  FROM srmsort_disks;
SELECT sum(bytes_written) AS w0 FROM srmsort_disks \gset
VACUUM FULL gp;
SELECT sum(bytes_written) > :w0 AS via_srmsort FROM srmsort_disks;
SET srmsort.create_index = off;
REINDEX INDEX gp_p_native;
SET srmsort.create_index = on;
SELECT srm_gist_pages_diff('gp_p_native', 'gp_p') = 0 AS identical;
DROP INDEX gp_p_native, gp_p;

-- a build that fails in an expression leaves no index and no workfiles
CREATE FUNCTION srm_gist_fail(p point, i int) RETURNS point
LANGUAGE plpgsql IMMUTABLE AS $fn$
BEGIN
    IF i = 49999 THEN
        RAISE EXCEPTION 'bad row %', i;
    END IF;
    RETURN p;
END
$fn$;
SELECT sum(bytes_written) AS w0 FROM srmsort_disks \gset
CREATE INDEX gp_fail ON gp USING gist (srm_gist_fail(p, i));
-- srmsort's sort had written its runs when the row failed
SELECT sum(bytes_written) > :w0 AS wrote_runs FROM srmsort_disks;
SELECT count(*) AS left_behind FROM pg_class WHERE relname = 'gp_fail';
SELECT srm_temp_files() AS temp_files;

-- CONCURRENTLY: CREATE INDEX and REINDEX, with and without maintenance
-- workers, write PostgreSQL's pages and answer like a sequential scan; a
-- failing one leaves the invalid index PostgreSQL's leaves, and no workfile
SET srmsort.create_index = off;
CREATE INDEX gp_p_native ON gp USING gist (p);
SET srmsort.create_index = on;
SELECT sum(bytes_written) AS w0 FROM srmsort_disks \gset
CREATE INDEX CONCURRENTLY gp_pc ON gp USING gist (p);
SELECT sum(bytes_written) > :w0 AS via_srmsort, srm_gist_pages_diff('gp_p_native', 'gp_pc') = 0 AS identical
  FROM srmsort_disks;
SET max_parallel_maintenance_workers = 0;
SELECT sum(bytes_written) AS w0 FROM srmsort_disks \gset
REINDEX INDEX CONCURRENTLY gp_pc;
SELECT sum(bytes_written) > :w0 AS via_srmsort, srm_gist_pages_diff('gp_p_native', 'gp_pc') = 0 AS identical
  FROM srmsort_disks;
RESET max_parallel_maintenance_workers;
DROP INDEX gp_p_native;
SELECT indisvalid, indisready FROM pg_index WHERE indexrelid = 'gp_pc'::regclass;
SELECT srm_index_answers(ARRAY['SELECT i, p FROM gp WHERE p <@ box ''((100,100),(140,130))'' ORDER BY i',
         'SELECT i, p <-> point ''(500,500)'' FROM gp ORDER BY p <-> point ''(500,500)'' LIMIT 200'])
     = srm_index_answers(ARRAY['SELECT i, p FROM gp WHERE p <@ box ''((100,100),(140,130))'' ORDER BY i',
         'SELECT i, p <-> point ''(500,500)'' FROM gp ORDER BY p <-> point ''(500,500)'' LIMIT 200'],
         seqscan => true) AS answers;
DROP INDEX gp_pc;
CREATE INDEX CONCURRENTLY gp_cfail ON gp USING gist (srm_gist_fail(p, i));
SELECT indisvalid, indisready FROM pg_index WHERE indexrelid = 'gp_cfail'::regclass;
SELECT srm_temp_files() AS temp_files;
DROP INDEX gp_cfail;
DROP FUNCTION srm_gist_fail;

-- srmsort.enabled = off: PostgreSQL builds
SET srmsort.enabled = off;
SELECT sum(bytes_written) AS w0 FROM srmsort_disks \gset
CREATE INDEX gp_off ON gp USING gist (p);
SELECT sum(bytes_written) > :w0 AS via_srmsort FROM srmsort_disks;
DROP INDEX gp_off;
RESET srmsort.enabled;

-- unlogged and temporary tables
CREATE UNLOGGED TABLE gpu AS SELECT i, p FROM gp;
SELECT * FROM srm_index_check('CREATE INDEX %I ON gpu USING gist (p)',
  ARRAY['SELECT i FROM gpu WHERE p <@ box ''((10,10),(30,40))'' ORDER BY i'], seqscan => true);
CREATE TEMP TABLE gpt AS SELECT i, p FROM gp;
SELECT * FROM srm_index_check('CREATE INDEX %I ON gpt USING gist (p)',
  ARRAY['SELECT i FROM gpt WHERE p <@ box ''((10,10),(30,40))'' ORDER BY i'], seqscan => true);
DROP TABLE gpu, gpt;

DROP TABLE gp;
