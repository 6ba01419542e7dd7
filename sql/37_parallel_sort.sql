--
-- One ORDER BY on every core (src/query/psort.c): a sort of a whole table that
-- PostgreSQL would scan in parallel, but sorts in one process, forms its
-- runs in the workers and the leader, and the leader merges them once.
-- Differential: every query also runs through PostgreSQL's own sort.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS srmsort;
DROP SCHEMA IF EXISTS srm_psort CASCADE;
CREATE SCHEMA srm_psort;
SET search_path = srm_psort, public;
SET srmsort.tablespaces = 'srm_d0, srm_d1, srm_d2, srm_d3';
SET jit = off;

CREATE TABLE ps AS
  SELECT i AS id,
         (hashint4(i) % 5000)::int8 AS k,
         md5(i::text) AS t,
         CASE WHEN i % 7 = 0 THEN NULL ELSE hashint4(i * 3)::float8 / 7 END AS f,
         CASE WHEN i % 11 = 0 THEN NULL ELSE (i % 97)::numeric / 3 END AS n
    FROM generate_series(1, 60000) i;
ANALYZE ps;

-- PostgreSQL would scan the table in parallel: every participant forms runs
SET max_parallel_workers_per_gather = 2;
SET min_parallel_table_scan_size = 0;
SET work_mem = '1MB';
EXPLAIN (COSTS OFF) SELECT * FROM ps ORDER BY k;
EXPLAIN (COSTS OFF) SELECT * FROM ps WHERE id <= 50000 ORDER BY t DESC LIMIT ALL;
-- (which participant sorts how much varies: compare rows only)
SELECT same, nrows FROM srm_diff('SELECT * FROM ps ORDER BY k, id', 'k', 'id');
SELECT same, nrows FROM srm_diff('SELECT * FROM ps ORDER BY t COLLATE "C" DESC', 't');
SELECT same, nrows FROM srm_diff('SELECT * FROM ps ORDER BY f NULLS FIRST, id', 'f', 'id');
SELECT same, nrows FROM srm_diff('SELECT * FROM ps ORDER BY n DESC NULLS LAST, k, id', 'n', 'k', 'id');
SELECT same, nrows FROM srm_diff('SELECT k, id FROM ps WHERE id % 3 = 0 ORDER BY k DESC, id', 'k', 'id');
SELECT same, nrows FROM srm_diff('SELECT * FROM ps WHERE false ORDER BY k', 'k');
-- a share that fits in each participant's memory
SET work_mem = '64MB';
SELECT same, nrows FROM srm_diff('SELECT * FROM ps ORDER BY t', 't');
SET work_mem = '1MB';
-- the leader only merges; no worker to be had (the leader forms all runs)
SET parallel_leader_participation = off;
SELECT same, nrows FROM srm_diff('SELECT * FROM ps ORDER BY k, id', 'k', 'id');
RESET parallel_leader_participation;
SET max_parallel_workers = 0;
SELECT same, nrows FROM srm_diff('SELECT * FROM ps ORDER BY k, id', 'k', 'id');
RESET max_parallel_workers;
-- EXPLAIN ANALYZE: the merge above, the Gather's workers below it
SELECT j -> 0 -> 'Plan' ->> 'Sort Method' AS merge,
       (j -> 0 -> 'Plan' -> 'Plans' -> 0 ->> 'Workers Launched')::int > 0 AS workers_ran,
       j -> 0 -> 'Plan' -> 'Plans' -> 0 -> 'Plans' -> 0 ->> 'Parallel Aware' AS runs_parallel_aware
  FROM (SELECT srm_explain_json('SELECT * FROM ps ORDER BY k') AS j) e;
-- participants that got no rows finished their part with no runs: so
-- EXPLAIN ANALYZE says, not "still in progress"
SET srmsort.min_input_size = 0;
SELECT (j -> 0 -> 'Plan' -> 'Plans' -> 0 ->> 'Workers Launched')::int > 0 AS workers_ran,
       j::text NOT LIKE '%still in progress%' AS none_in_progress
  FROM (SELECT srm_explain_json('SELECT * FROM ps WHERE id < 0 ORDER BY k') AS j) e;
RESET srmsort.min_input_size;
-- a cached plan that meets srmsort disabled: PostgreSQL's sort, same rows
PREPARE q AS SELECT k, id FROM ps ORDER BY k, id;
EXPLAIN (COSTS OFF) EXECUTE q;
CREATE TEMP TABLE q_on AS EXECUTE q;
SET srmsort.enabled = off;
CREATE TEMP TABLE q_off AS EXECUTE q;
RESET srmsort.enabled;
SELECT (SELECT array_agg(k ORDER BY k, id) FROM q_on) = (SELECT array_agg(k ORDER BY k, id) FROM q_off) AS same_cached;
DEALLOCATE q;

-- srmsort.merge_strategy = dsm, the paper's baseline: one process, as the
-- parallel builds under dsm
SET srmsort.merge_strategy = dsm;
EXPLAIN (COSTS OFF) SELECT * FROM ps ORDER BY k;
SELECT same, nrows, method FROM srm_diff('SELECT * FROM ps ORDER BY k, id', 'k', 'id');
RESET srmsort.merge_strategy;
-- a cached split plan meeting dsm: the workers pass their rows up, the
-- merging node sorts them alone (the aggregate reads them in order)
PREPARE q AS SELECT md5(string_agg(k || ':' || id, ',')) AS h, count(*)
  FROM (SELECT k, id FROM ps ORDER BY k, id) s;
EXPLAIN (COSTS OFF) EXECUTE q;
SET srmsort.merge_strategy = dsm;
SELECT j -> 0 -> 'Plan' -> 'Plans' -> 0 ->> 'Sort Method' AS sort,
       (j -> 0 -> 'Plan' -> 'Plans' -> 0 -> 'Plans' -> 0 ->> 'Actual Rows')::numeric::int AS gathered,
       j -> 0 -> 'Plan' -> 'Plans' -> 0 -> 'Plans' -> 0 -> 'Plans' -> 0 ->> 'Sort Method' AS participants
  FROM (SELECT srm_explain_json('EXECUTE q') AS j) e;
CREATE TEMP TABLE q_dsm AS EXECUTE q;
RESET srmsort.merge_strategy;
SET srmsort.enabled = off;
SELECT (SELECT h FROM q_dsm) = md5(string_agg(k || ':' || id, ',')) AS same_cached_dsm,
       (SELECT count FROM q_dsm) AS nrows
  FROM (SELECT k, id FROM ps ORDER BY k, id) s;
RESET srmsort.enabled;
DEALLOCATE q;

-- where the sort stays in one process
SET srmsort.parallel_sort = off;
EXPLAIN (COSTS OFF) SELECT * FROM ps ORDER BY k;
RESET srmsort.parallel_sort;
EXPLAIN (COSTS OFF) SELECT * FROM ps ORDER BY k LIMIT 50000;	-- a bound
SET min_parallel_table_scan_size = '8MB';
EXPLAIN (COSTS OFF) SELECT * FROM ps ORDER BY k;	-- a small table
RESET min_parallel_table_scan_size;
-- a cursor: no parallel plans for cursors
BEGIN;
DECLARE c CURSOR FOR SELECT k FROM ps ORDER BY k;
FETCH 1 FROM c;
COMMIT;

-- nothing left on the disks
SELECT srm_temp_files() AS files_left;
RESET max_parallel_workers_per_gather;
RESET work_mem;
DROP SCHEMA srm_psort CASCADE;
RESET client_min_messages;
