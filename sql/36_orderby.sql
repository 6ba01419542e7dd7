--
-- Differential correctness of SRMSort: every query runs through SRMSort
-- (checked on its plan) and through PostgreSQL's own sort
-- (srmsort.enabled = off), and the two results must be identical, in order.
-- Queries are written so that the order is total over what they output
-- (ties are broken by id, or only the keys are output), so that any valid
-- sort gives the same text.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS srmsort;
DROP SCHEMA IF EXISTS srm_orderby CASCADE;
CREATE SCHEMA srm_orderby;
RESET client_min_messages;
SET search_path = srm_orderby, public;

CREATE TABLE d AS
  SELECT i AS id,
         ((i * 7919) % 20011) - 10000 AS i4,
         CASE WHEN i % 13 = 0 THEN NULL
              ELSE ((i::bigint * 104729) % 1000003) * 4294967296 END AS i8,
         CASE WHEN i % 17 = 0 THEN NULL
              WHEN i % 101 = 0 THEN 'NaN'::float8
              WHEN i % 103 = 0 THEN '-Infinity'::float8
              ELSE ((i * 37) % 1009) / 7.0::float8 END AS f8,
         round(((i * 31) % 997) / 3.0, 5) AS num,
         CASE WHEN i % 19 = 0 THEN NULL
              WHEN i % 23 = 0 THEN ''
              ELSE repeat(chr(97 + (i * 7) % 26), 1 + i % 5) || md5(i::text) ||
                   CASE WHEN i % 7 = 0 THEN 'é' ELSE 'Z' END END AS t,
         date '2000-01-01' + (i * 13) % 4000 AS dt,
         timestamptz '2020-01-01 00:00:00+00' + ((i * 7) % 86400) * interval '1 minute' AS ts,
         i % 3 = 0 AS b,
         md5((i % 5000)::text)::uuid AS u,
         decode(md5((i % 3000)::text), 'hex') AS by
  FROM generate_series(1, 20000) i;
CREATE TABLE small AS SELECT * FROM d WHERE id <= 100;
ANALYZE d;
ANALYZE small;

SET work_mem = '64kB';
-- the engine may say (NOTICE) that 64kB is tight for the disks it has
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;
SET jit = off;

-- run q's rows, in order, into one md5; with srmsort and without it
CREATE FUNCTION srm_compare(q text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	wrapped text := format('SELECT md5(string_agg(x::text, %L)) FROM (%s) x',
						   E'\n', q);
	plan		text := '';
	l			text;
	h_on		text;
	h_off		text;
	was			text := current_setting('srmsort.enabled');
BEGIN
	FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) ' || wrapped LOOP
		plan := plan || l || E'\n';
	END LOOP;
	IF plan NOT LIKE '%Custom Scan (SRMSort)%' THEN
		RETURN 'no SRMSort in plan:' || E'\n' || plan;
	END IF;
	EXECUTE wrapped INTO h_on;
	PERFORM set_config('srmsort.enabled', 'off', true);
	EXECUTE wrapped INTO h_off;
	PERFORM set_config('srmsort.enabled', was, true);
	IF h_on IS DISTINCT FROM h_off THEN
		RETURN 'MISMATCH';
	END IF;
	RETURN 'same';
END
$$;

CREATE TABLE queries (n serial, q text);
INSERT INTO queries (q) VALUES
-- one key, each type and direction
($$SELECT i4 FROM d ORDER BY i4$$),
($$SELECT i4, id FROM d ORDER BY i4 DESC, id$$),
($$SELECT i8 FROM d ORDER BY i8 NULLS FIRST$$),
($$SELECT i8 FROM d ORDER BY i8 DESC NULLS LAST$$),
($$SELECT f8, id FROM d ORDER BY f8, id$$),
($$SELECT f8, id FROM d ORDER BY f8 DESC, id DESC$$),
($$SELECT num FROM d ORDER BY num$$),
($$SELECT t FROM d ORDER BY t$$),
($$SELECT t FROM d ORDER BY t DESC NULLS LAST$$),
($$SELECT t FROM d ORDER BY t COLLATE "C"$$),
($$SELECT t FROM d ORDER BY t COLLATE "C" DESC$$),
($$SELECT dt, id FROM d ORDER BY dt, id$$),
($$SELECT ts, id FROM d ORDER BY ts DESC, id$$),
($$SELECT u FROM d ORDER BY u$$),
($$SELECT by FROM d ORDER BY by DESC$$),
($$SELECT id FROM d ORDER BY id$$),
($$SELECT id FROM d ORDER BY id DESC$$),
($$SELECT id * 0 AS z FROM d ORDER BY 1$$),
($$SELECT i4 FROM d ORDER BY i4 USING >$$),
($$SELECT t FROM d ORDER BY t USING ~<~ NULLS FIRST$$),
-- several keys, expressions, whole rows
($$SELECT b, dt, t, id FROM d ORDER BY b, dt DESC, t COLLATE "C" NULLS FIRST, id$$),
($$SELECT lower(t), length(t), id FROM d ORDER BY lower(t), length(t) DESC, id$$),
($$SELECT i4 % 10 AS m, f8, id FROM d ORDER BY i4 % 10, f8 NULLS FIRST, id$$),
($$SELECT * FROM d ORDER BY u, id$$),
($$SELECT id, repeat(coalesce(t, '-'), 40) AS w FROM d WHERE id <= 5000 ORDER BY t, id$$),
-- sorts inside other plans
($$SELECT i4 % 100 AS g, count(*), sum(i8) FROM d GROUP BY i4 % 100 ORDER BY 1$$),
($$SELECT DISTINCT t FROM d$$),
($$SELECT id, row_number() OVER (PARTITION BY i4 % 10 ORDER BY id) FROM d ORDER BY id$$),
($$SELECT a.id, b.id AS bid FROM d a JOIN d b ON a.i4 = b.id ORDER BY a.id$$),
($$SELECT i4 FROM d UNION SELECT id FROM d$$),
($$SELECT i4 FROM d EXCEPT SELECT id FROM d$$),
($$WITH c AS MATERIALIZED (SELECT * FROM d ORDER BY t, id) SELECT id, t FROM c$$);

SET enable_hashagg = off;
SET enable_hashjoin = off;
SELECT n, q, srm_compare(q) FROM queries ORDER BY n;

-- merge join whose inner sort must mark and restore (delegated to tuplesort)
SET enable_material = off;
SELECT srm_compare($$SELECT a.id, b.id AS bid FROM d a JOIN d b ON a.i4 % 500 = b.i4 % 500 WHERE a.id < 200 ORDER BY 1, 2$$);
-- nested loop rescanning its inner sort (REWIND: replayed, not re-sorted)
SET enable_mergejoin = off;
SET srmsort.min_input_size = 0;
SELECT srm_compare($$SELECT count(*), sum(b.i4) FROM d a, (SELECT i4 FROM small ORDER BY i4 OFFSET 0) b WHERE b.i4 < a.i4 AND a.id <= 2000$$);
RESET srmsort.min_input_size;
RESET enable_mergejoin;
RESET enable_material;

-- a Seq Scan that only repeats or relabels every column of its table
-- returns the table's tuples and SRMSort rebuilds the Sort's columns
-- (plan.c, raw_scan_input): NULLs, compressed keys, a column added with a
-- default that older tuples lack, in memory and external
CREATE TABLE e AS
  SELECT i AS n,
         CASE WHEN i % 11 = 0 THEN NULL
              WHEN i % 97 = 0 THEN repeat(md5(i::text), 200)
              ELSE substr(md5(i::text), 1, 3 + i % 20) END AS t
  FROM generate_series(1, 20000) i;
ALTER TABLE e ADD COLUMN z int DEFAULT 7;
INSERT INTO e SELECT i, md5(i::text), i % 5 FROM generate_series(20001, 21000) i;
CREATE TABLE e1 AS SELECT t FROM e;
ANALYZE e, e1;
EXPLAIN (VERBOSE, COSTS OFF) SELECT * FROM e ORDER BY t COLLATE "C", n;
SELECT srm_compare($$SELECT * FROM e ORDER BY t COLLATE "C", n$$);
SELECT srm_compare($$SELECT z, t, n FROM e ORDER BY t COLLATE "C" DESC NULLS LAST, n$$);
SELECT srm_compare($$SELECT t, n, z FROM e ORDER BY z DESC, t COLLATE "C", n$$);
SELECT srm_compare($$SELECT DISTINCT t COLLATE "C" AS x FROM e1$$);
SELECT srm_compare($$SELECT t, n, row_number() OVER (ORDER BY t COLLATE "C", n) AS r FROM e$$);
SELECT srm_compare($$SELECT a.n, b.n AS bn FROM e a JOIN e b ON a.t COLLATE "C" = b.t COLLATE "C" ORDER BY 1, 2$$);
SET work_mem = '64MB';
SELECT srm_compare($$SELECT * FROM e ORDER BY t COLLATE "C", n$$);
SELECT srm_compare($$SELECT t, n, z FROM e ORDER BY t COLLATE "C" DESC, n$$);
SET work_mem = '64kB';

-- rescans with changed parameters: every outer row sorts again
SET srmsort.min_input_size = 0;
SELECT srm_compare($$SELECT g, (SELECT string_agg(id::text, ',') FROM (SELECT id FROM d WHERE i4 % 50 = g ORDER BY t, id) z) FROM generate_series(0, 5) g$$);
-- empty and one-row inputs
SELECT srm_compare($$SELECT * FROM d WHERE id < 0 ORDER BY t$$);
SELECT srm_compare($$SELECT * FROM d WHERE id = 77 ORDER BY t$$);
RESET srmsort.min_input_size;

-- scroll cursors go through tuplesort; plain cursors can still go back
BEGIN;
DECLARE c SCROLL CURSOR FOR SELECT id, i4 FROM d ORDER BY i4;
FETCH 3 FROM c;
FETCH BACKWARD 2 FROM c;
FETCH LAST FROM c;
FETCH ABSOLUTE 10000 FROM c;
FETCH RELATIVE -3 FROM c;
COMMIT;
BEGIN;
DECLARE c CURSOR FOR SELECT id, i4 FROM d ORDER BY i4 DESC;
FETCH 2 FROM c;
FETCH BACKWARD 1 FROM c;
MOVE FORWARD ALL IN c;
FETCH BACKWARD 2 FROM c;
COMMIT;

-- a holdable cursor is rewound and read again at commit (re-sorted)
BEGIN;
DECLARE h NO SCROLL CURSOR WITH HOLD FOR SELECT id, i4 FROM d ORDER BY i4, id;
FETCH 2 FROM h;
COMMIT;
FETCH 2 FROM h;
MOVE FORWARD 19994 IN h;
FETCH 5 FROM h;
CLOSE h;

-- parallel workers sort too, under Gather Merge
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT srm_compare($$SELECT t, id FROM d ORDER BY t, id$$);
SELECT srm_compare($$SELECT i4, id FROM d ORDER BY i4 DESC, id$$);
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;

-- cached plan executed after srmsort is switched off
PREPARE p AS SELECT md5(string_agg(x::text, ',')) FROM (SELECT t, id FROM d ORDER BY t DESC, id) x;
SET plan_cache_mode = force_generic_plan;
EXECUTE p \gset on_
SET srmsort.enabled = off;
EXECUTE p \gset off_
RESET srmsort.enabled;
RESET plan_cache_mode;
SELECT :'on_md5' = :'off_md5' AS same;
DEALLOCATE p;

SET client_min_messages = warning;
DROP SCHEMA srm_orderby CASCADE;
