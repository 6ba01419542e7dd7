-- The SRM merge behaves as the model says: with uniform random keys, four
-- disks and enough memory for a merge order of at least 16, the I/O
-- overhead nu = parallel reads / (blocks read / D) stays at most 1.10 (the
-- paper measured 1.00-1.04).
CREATE EXTENSION IF NOT EXISTS srmsort;
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;
SET work_mem = '4MB';
SET srmsort.tablespaces = 'srm_d0, srm_d1, srm_d2, srm_d3';
SET srmsort.random_seed = 11;
SELECT setseed(0.5);
CREATE TABLE model AS
SELECT (random() * 9e18)::int8 AS k, i::int8 AS v FROM generate_series(1, 3000000) i;
ANALYZE model;

WITH f AS (SELECT srm_explain_json('SELECT * FROM model ORDER BY k OFFSET 1e12') -> 0 -> 'Plan' -> 'Plans' -> 0 AS j)
SELECT j ->> 'Custom Plan Provider' AS node,
       j ->> 'Sort Method' AS method,
       (j ->> 'Disks')::int AS disks,
       (j ->> 'Merge Order')::int >= 16 AS merge_order_at_least_16,
       (j ->> 'Passes')::int AS passes,
       (j ->> 'Nu')::float8 <= 1.10 AS nu_at_most_1_10,
       (j ->> 'Nu')::float8 >= 1.0 AS nu_at_least_1,
       (j ->> 'Stalls')::int AS stalls,
       (j ->> 'Memory Peak')::int <= 4096 AS within_budget
  FROM f;

-- the DSM baseline on the same data: striped reads, a lower merge order,
-- so a second pass where SRM needs one
SET srmsort.merge_strategy = dsm;
WITH f AS (SELECT srm_explain_json('SELECT * FROM model ORDER BY k OFFSET 1e12') -> 0 -> 'Plan' -> 'Plans' -> 0 AS j)
SELECT j ->> 'Sort Method' AS method,
       (j ->> 'Merge Order')::int < 16 AS lower_merge_order,
       (j ->> 'Passes')::int AS passes,
       (j ->> 'Nu')::float8 <= 1.10 AS nu_at_most_1_10
  FROM f;
RESET srmsort.merge_strategy;
DROP TABLE model;
SELECT srm_temp_files();
