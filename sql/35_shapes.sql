--
-- SRMSort plan shapes: which Sort nodes the planner hook replaces, and how
-- the replacement reads in EXPLAIN.  No ANALYZE numbers here: only the
-- presence of the facts is checked (the engine decides their values).
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS srmsort;
DROP SCHEMA IF EXISTS srm_plan CASCADE;
CREATE SCHEMA srm_plan;
RESET client_min_messages;
SET search_path = srm_plan, public;

-- 20000 rows: ANALYZE reads all of them, so estimates (and plans) are stable
CREATE TABLE big AS
  SELECT i AS id, (i * 7919) % 20011 AS k, i % 100 AS g,
         CASE WHEN i % 10 = 0 THEN NULL ELSE i % 1000 END AS n,
         md5(i::text) AS s
  FROM generate_series(1, 20000) i;
CREATE TABLE small AS SELECT * FROM big WHERE id <= 100;
ANALYZE big;
ANALYZE small;

SET work_mem = '64kB';
-- the engine may say (NOTICE) that 64kB is tight for the disks it has
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;
SET jit = off;
SHOW srmsort.min_input_size;

-- ORDER BY on a large input becomes SRMSort, with Sort's "Sort Key"
EXPLAIN (COSTS OFF) SELECT * FROM big ORDER BY k;
EXPLAIN (COSTS OFF) SELECT * FROM big ORDER BY k DESC;
EXPLAIN (COSTS OFF) SELECT * FROM big ORDER BY n NULLS FIRST, g DESC NULLS LAST;
EXPLAIN (COSTS OFF) SELECT * FROM big ORDER BY s COLLATE "C", k DESC;
EXPLAIN (COSTS OFF) SELECT * FROM big ORDER BY k USING >, g USING <;
EXPLAIN (COSTS OFF) SELECT id, s FROM big ORDER BY k % 7, lower(s), id;
EXPLAIN (COSTS OFF) SELECT * FROM big ORDER BY s USING ~>~, s COLLATE "POSIX" DESC;
EXPLAIN (COSTS OFF) SELECT g, k FROM big ORDER BY 1, 2;

-- sorts a LIMIT bound can reach stay native (top-N heapsort)
EXPLAIN (COSTS OFF) SELECT * FROM big ORDER BY k LIMIT 10;
EXPLAIN (COSTS OFF) SELECT * FROM big ORDER BY k LIMIT 10 OFFSET 100;
EXPLAIN (COSTS OFF) SELECT * FROM (SELECT * FROM big ORDER BY k OFFSET 0) x LIMIT 3;
EXPLAIN (COSTS OFF)
  (SELECT k FROM big ORDER BY k) UNION ALL (SELECT k FROM big ORDER BY k) LIMIT 5;
-- ... but not with OFFSET alone or WITH TIES (no bound is pushed down)
EXPLAIN (COSTS OFF) SELECT * FROM big ORDER BY k OFFSET 100;
EXPLAIN (COSTS OFF) SELECT * FROM big ORDER BY g FETCH FIRST 5 ROWS WITH TIES;
-- a LIMIT above a node that stops the bound (Unique) does not protect the sort
SET enable_hashagg = off;
EXPLAIN (COSTS OFF) SELECT DISTINCT g FROM big LIMIT 3;
RESET enable_hashagg;

-- small inputs stay native; srmsort.min_input_size moves the threshold
EXPLAIN (COSTS OFF) SELECT * FROM small ORDER BY k;
SET srmsort.min_input_size = 0;
EXPLAIN (COSTS OFF) SELECT * FROM small ORDER BY k;
SET srmsort.min_input_size = '1GB';
EXPLAIN (COSTS OFF) SELECT * FROM big ORDER BY k;
RESET srmsort.min_input_size;
-- by default (64kB) srmsort also takes sorts that fit in work_mem ...
SET work_mem = '1GB';
EXPLAIN (COSTS OFF) SELECT * FROM big ORDER BY k;
-- ... and -1 follows work_mem: only sorts PostgreSQL would spill
SET srmsort.min_input_size = -1;
EXPLAIN (COSTS OFF) SELECT * FROM big ORDER BY k;
SET work_mem = '64kB';
EXPLAIN (COSTS OFF) SELECT * FROM big ORDER BY k;
RESET srmsort.min_input_size;

-- the kill switch
SET srmsort.enabled = off;
EXPLAIN (COSTS OFF) SELECT * FROM big ORDER BY k;
RESET srmsort.enabled;

-- every other kind of Sort node
SET enable_hashagg = off;
SET enable_hashjoin = off;
EXPLAIN (COSTS OFF) SELECT g, count(*) FROM big GROUP BY g;
EXPLAIN (COSTS OFF) SELECT DISTINCT n FROM big;
EXPLAIN (COSTS OFF) SELECT k, rank() OVER (PARTITION BY g ORDER BY k) FROM big;
EXPLAIN (COSTS OFF) SELECT k FROM big UNION SELECT id FROM big;
EXPLAIN (COSTS OFF) SELECT k FROM big INTERSECT SELECT id FROM big;
EXPLAIN (COSTS OFF) SELECT count(*) FROM big a JOIN big b ON a.k = b.id;
-- grouping sets: the Sorts in the Agg chain are never touched
EXPLAIN (COSTS OFF) SELECT g, n, count(*) FROM big GROUP BY GROUPING SETS ((g), (n));
-- subplans, initplans and CTEs
EXPLAIN (COSTS OFF)
  SELECT id FROM small WHERE k IN (SELECT n FROM big ORDER BY n);
EXPLAIN (COSTS OFF)
  SELECT (SELECT string_agg(s, ',') FROM (SELECT s FROM big ORDER BY s) x);
EXPLAIN (COSTS OFF)
  WITH c AS MATERIALIZED (SELECT * FROM big ORDER BY s) SELECT count(*) FROM c;
RESET enable_hashagg;
RESET enable_hashjoin;

-- row locking above the sort
EXPLAIN (COSTS OFF) SELECT * FROM big ORDER BY k FOR UPDATE;

-- incremental sorts stay native
CREATE INDEX big_g ON big (g);
EXPLAIN (COSTS OFF) SELECT * FROM big ORDER BY g, k;
DROP INDEX big_g;

-- EXPLAIN VERBOSE resolves every Var (no "bogus varno")
EXPLAIN (VERBOSE, COSTS OFF) SELECT k + 1 AS k1, s FROM big ORDER BY k + 1, n;
EXPLAIN (VERBOSE, COSTS OFF) SELECT 1 AS one, k FROM big ORDER BY k;
SET enable_hashjoin = off;
EXPLAIN (VERBOSE, COSTS OFF)
  SELECT a.s, b.g FROM big a JOIN big b ON a.k = b.id ORDER BY a.s;
RESET enable_hashjoin;

-- structured formats without ANALYZE: the key only
EXPLAIN (COSTS OFF, FORMAT JSON) SELECT k FROM big ORDER BY k DESC;

-- Gather Merge over a parallel SRMSort
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET parallel_leader_participation = on;
EXPLAIN (COSTS OFF) SELECT id, k FROM big ORDER BY k;
SELECT count(*) AS n, bool_and(ok) AS in_order
FROM (SELECT k >= lag(k, 1, -1) OVER (ORDER BY ord) AS ok
      FROM (SELECT k, row_number() OVER () AS ord
            FROM (SELECT id, k FROM big ORDER BY k) s) t) u;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET parallel_leader_participation;
SET max_parallel_workers_per_gather = 0;

-- a plan cached while srmsort was on runs through tuplesort once it is off
PREPARE p(int) AS SELECT k FROM big WHERE id > $1 ORDER BY k DESC OFFSET 19990;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE p(0);
EXECUTE p(0);
SET srmsort.enabled = off;
EXPLAIN (COSTS OFF) EXECUTE p(0);
EXECUTE p(0);
RESET srmsort.enabled;
RESET plan_cache_mode;
DEALLOCATE p;

--
-- EXPLAIN ANALYZE: the facts are there, in every format
--
CREATE FUNCTION explain_analyze_text(q text) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
	l text;
BEGIN
	FOR l IN EXECUTE
		'EXPLAIN (ANALYZE, BUFFERS OFF, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q
	LOOP
		-- keep labels; values of the sort facts belong to the engine
		IF l ~ '(Sort Method|SRM|Parallel Reads|Temp|Disk Names):' THEN
			l := regexp_replace(l, ':.*$', ': ...');
		END IF;
		-- 18 shows fractional row counts
		RETURN NEXT regexp_replace(l, '\d+(\.\d+)?', 'N', 'g');
	END LOOP;
END
$$;

CREATE FUNCTION explain_analyze_keys(q text, fmt text DEFAULT 'json')
RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
	j jsonb;
BEGIN
	EXECUTE format('EXPLAIN (ANALYZE, BUFFERS OFF, COSTS OFF, TIMING OFF, SUMMARY OFF, FORMAT %s) %s',
				   fmt, q) INTO j;
	RETURN QUERY
		SELECT DISTINCT key
		FROM jsonb_path_query(j, 'lax $.** ? (@."Custom Plan Provider" == "SRMSort")') node,
			 jsonb_object_keys(node) key
		WHERE key <> 'Disabled'		-- every node's, from 18 on
		ORDER BY 1;
END
$$;

SELECT explain_analyze_text('SELECT * FROM big ORDER BY k OFFSET 19999');
SELECT explain_analyze_keys('SELECT * FROM big ORDER BY k OFFSET 19999');

-- XML and YAML work too
DO $$
DECLARE
	x text;
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, FORMAT XML) '
		'SELECT * FROM big ORDER BY k OFFSET 19999' INTO x;
	IF x NOT LIKE '<explain %</explain>' OR x NOT LIKE '%<Merge-Order>%' THEN
		RAISE EXCEPTION 'bad XML: %', x;
	END IF;
	EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, FORMAT YAML) '
		'SELECT * FROM big ORDER BY k OFFSET 19999' INTO x;
	IF x NOT LIKE '%Parallel Reads: %' OR x NOT LIKE '%Nu: %' THEN
		RAISE EXCEPTION 'bad YAML: %', x;
	END IF;
END
$$;

-- delegated sorts say why, in tuplesort's words
PREPARE r AS SELECT * FROM big ORDER BY k OFFSET 19999;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE r;
SET srmsort.enabled = off;
SELECT explain_analyze_text('EXECUTE r');
SELECT explain_analyze_keys('EXECUTE r');
RESET srmsort.enabled;
-- the same cached plan with a budget below srmsort.min_work_mem
SET srmsort.min_work_mem = '1MB';
SELECT explain_analyze_text('EXECUTE r');
RESET srmsort.min_work_mem;
RESET plan_cache_mode;
-- a merge join's inner sort needs mark/restore
SET enable_hashjoin = off;
SET enable_material = off;
SELECT explain_analyze_text('SELECT count(*) FROM big a JOIN big b ON a.n = b.n WHERE a.id < 300');
RESET enable_hashjoin;
RESET enable_material;
DEALLOCATE r;
-- a sort that never ran shows no facts
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SELECT explain_analyze_text('SELECT * FROM small a JOIN (SELECT k FROM big ORDER BY k OFFSET 0) b ON a.k = b.k WHERE a.id < 0');
RESET enable_hashjoin;
RESET enable_mergejoin;

SET client_min_messages = warning;
DROP SCHEMA srm_plan CASCADE;
