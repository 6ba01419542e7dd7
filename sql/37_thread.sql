-- The sort thread (srmsort.sort_thread): from the second run on, a memory
-- load is radix sorted in segments by a second thread while the input is
-- read, the rest is split between the threads at the end, and the run is
-- written by merging the segments; ties of the normalized key are ordered
-- by the main thread.  Segments are cut only in loads of more than 16384
-- tuples: hence 4MB of work_mem and 300000 rows.  Every result is compared
-- with PostgreSQL's sort (srm_diff).
CREATE EXTENSION IF NOT EXISTS srmsort;
CREATE EXTENSION IF NOT EXISTS amcheck;
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;
SET srmsort.tablespaces = 'srm_d0, srm_d1, srm_d2, srm_d3';
SET srmsort.random_seed = 3;
SET srmsort.sort_thread = on;
SET work_mem = '4MB';
SET extra_float_digits = 3;

CREATE FUNCTION srm_explain_text(q text) RETURNS SETOF text
LANGUAGE plpgsql AS $fn$
BEGIN
    RETURN QUERY EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q;
END
$fn$;

SELECT setseed(0.25);
CREATE TABLE thr AS
SELECT i,
       CASE WHEN i % 97 = 0 THEN NULL ELSE (random() * 1e12)::int8 END AS k,
       (random() * 50)::int AS small,
       -- the first 8 bytes (the normalized key) are the same in every row
       'common prefix ' || (random() * 5000)::int AS t,
       md5(i::text)::uuid AS u,
       CASE WHEN i % 1000 = 0 THEN 'NaN'::float8
            WHEN i % 1001 = 0 THEN '-0'::float8
            ELSE random() - 0.5 END AS f
  FROM generate_series(1, 300000) i;
ANALYZE thr;

-- the thread sorted most tuples, in several segments per run
SELECT (j ->> 'Sort Thread Tuples')::bigint > 150000 AS thread_sorted_most,
       (j ->> 'Sort Thread Segments')::bigint > 2 * (j ->> 'Runs')::bigint AS segments,
       (j ->> 'Runs')::int > 4 AS several_runs
  FROM (SELECT srm_explain_json('SELECT * FROM thr ORDER BY k OFFSET 1e12')
               -> 0 -> 'Plan' -> 'Plans' -> 0 AS j) p;

-- NULLs first and last, DESC, ties on the first key broken by the second,
-- normalized keys that never decide (text prefixes), uuid, float8 with
-- NaN and -0, text under ICU (abbreviated keys)
SELECT * FROM srm_diff('SELECT * FROM thr ORDER BY k', 'k');
SELECT * FROM srm_diff('SELECT * FROM thr ORDER BY k DESC NULLS LAST, i', 'k', 'i');
SELECT * FROM srm_diff('SELECT * FROM thr ORDER BY k NULLS FIRST', 'k');
SELECT * FROM srm_diff('SELECT * FROM thr ORDER BY small, i DESC', 'small', 'i');
SELECT * FROM srm_diff('SELECT * FROM thr ORDER BY t COLLATE "C", i', 't', 'i');
SELECT * FROM srm_diff('SELECT * FROM thr ORDER BY u', 'u');
SELECT * FROM srm_diff('SELECT * FROM thr ORDER BY f, i', 'f', 'i');
SELECT * FROM srm_diff('SELECT * FROM thr ORDER BY t COLLATE "en-x-icu" DESC, i', 't', 'i');
-- DISTINCT and GROUP BY through the same sort
SET enable_hashagg = off;
SELECT * FROM srm_diff('SELECT DISTINCT small, k FROM thr', 'small', 'k');
SELECT * FROM srm_diff('SELECT k, count(*) FROM thr GROUP BY k', 'k');
RESET enable_hashagg;

-- off: the backend sorts every run itself, with the same result
SET srmsort.sort_thread = off;
SELECT (j ->> 'Sort Thread Tuples')::bigint AS thread_tuples
  FROM (SELECT srm_explain_json('SELECT * FROM thr ORDER BY k OFFSET 1e12')
               -> 0 -> 'Plan' -> 'Plans' -> 0 AS j) p;
SELECT * FROM srm_diff('SELECT * FROM thr ORDER BY t COLLATE "C", i', 't', 'i');
SET srmsort.sort_thread = on;

-- the text form of EXPLAIN ANALYZE names it
SELECT count(*) AS sort_thread_lines
  FROM srm_explain_text('SELECT * FROM thr ORDER BY k OFFSET 1e12') l
 WHERE l ~ '^ *Sort Thread: tuples=[0-9]+ segments=[0-9]+$';

-- a cancel while the thread sorts leaves no workfile, and the next sort
-- is right
SET statement_timeout = '500ms';
SELECT count(*) FROM (SELECT * FROM thr CROSS JOIN generate_series(1, 20) g
                       ORDER BY k, g OFFSET 0) s;
RESET statement_timeout;
SELECT srm_temp_files() AS temp_files_left;
SELECT * FROM srm_diff('SELECT * FROM thr ORDER BY k, i', 'k', 'i');

-- CREATE INDEX through the thread: amcheck with heapallindexed
SET maintenance_work_mem = '4MB';
SET srmsort.min_input_size = 0;
CREATE INDEX thr_k ON thr (k);
CREATE INDEX thr_t ON thr (t COLLATE "C", small DESC);
SELECT bt_index_parent_check('thr_k', true, true);
SELECT bt_index_parent_check('thr_t', true, true);

DROP TABLE thr;
DROP FUNCTION srm_explain_text(text);
DROP EXTENSION amcheck;
