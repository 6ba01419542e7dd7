-- The external sort under every configuration: one and four disks, io_uring
-- and synchronous I/O, SRM and the DSM baseline, many merge passes, tuples
-- larger than a block (in-line and TOASTed), and errors that must leave no
-- workfile behind.
CREATE EXTENSION IF NOT EXISTS srmsort;
SET client_min_messages = warning;
SET work_mem = '64kB';
SET srmsort.random_seed = 7;
SET max_parallel_workers_per_gather = 0;

SELECT setseed(0.5);
CREATE TABLE ext AS
SELECT i, (random() * 1e6)::int AS k, md5(i::text) AS t
  FROM generate_series(1, 20000) i;
ANALYZE ext;

-- four disks, then one (temp_tablespaces), then the default tablespace
SET srmsort.tablespaces = 'srm_d0, srm_d1, srm_d2, srm_d3';
SELECT * FROM srm_diff('SELECT * FROM ext ORDER BY k, t', 'k', 't');
SET srmsort.tablespaces = '';
SET temp_tablespaces = 'srm_d2';
SELECT * FROM srm_diff('SELECT * FROM ext ORDER BY k DESC', 'k');
RESET temp_tablespaces;
SELECT * FROM srm_diff('SELECT * FROM ext ORDER BY t', 't');

-- I/O methods and merge strategies on four disks
SET srmsort.tablespaces = 'srm_d0, srm_d1, srm_d2, srm_d3';
SET srmsort.io_method = sync;
SELECT * FROM srm_diff('SELECT * FROM ext ORDER BY k', 'k');
SET srmsort.merge_strategy = dsm;
SELECT * FROM srm_diff('SELECT * FROM ext ORDER BY k', 'k');
RESET srmsort.io_method;
SELECT * FROM srm_diff('SELECT * FROM ext ORDER BY t DESC', 't');
RESET srmsort.merge_strategy;
-- O_DIRECT workfiles (aligned buffers, offsets and lengths)
SET srmsort.direct_io = on;
SELECT * FROM srm_diff('SELECT * FROM ext ORDER BY t', 't');
SET srmsort.io_method = sync;
SELECT * FROM srm_diff('SELECT * FROM ext ORDER BY k DESC, i', 'k', 'i');
RESET srmsort.io_method;
RESET srmsort.direct_io;
-- blocks are reused: over many merge passes the workfiles stay close to
-- the data's size while several times as much is written
SET work_mem = '1MB';
SET srmsort.max_merge_order = 2;
SELECT (j ->> 'Passes')::int >= 5 AS many_passes,
       (j ->> 'Peak Temp Ratio')::float8 <= 2.0 AS peak_within_2x_input,
       (j ->> 'Temp Written')::float8 >= 3 * (j ->> 'Peak Temp')::float8 AS written_3x_peak
  FROM (SELECT srm_explain_json('SELECT * FROM ext e CROSS JOIN generate_series(1, 10) g ORDER BY e.t, g OFFSET 1e12')
               -> 0 -> 'Plan' -> 'Plans' -> 0 AS j) p;
RESET srmsort.max_merge_order;
SET work_mem = '64kB';

-- a larger budget: fewer runs, one merge pass, bigger blocks
SET work_mem = '1MB';
SELECT * FROM srm_diff('SELECT * FROM ext e1 CROSS JOIN generate_series(1, 10) g ORDER BY e1.t, g',
                       't', 'g');
SET work_mem = '64kB';

-- input already in order: a load that starts at or after the last tuple of
-- the run before is written as more of that run, so in-order input makes
-- one run -- two in this small budget, where the first run's bookkeeping
-- passes its share and the rest goes to a paged run; a break in the order
-- adds one or two; reverse order makes a run per load.  The same rows as
-- PostgreSQL's for radix-sorted, C-collated text and abbreviated (numeric)
-- keys, equal keys across loads, DSM, O_DIRECT
CREATE TABLE ord AS
SELECT i, lpad(i::text, 8, '0') AS p, md5(i::text) AS t FROM generate_series(1, 20000) i;
ANALYZE ord;
CREATE FUNCTION srm_runs(q text) RETURNS int LANGUAGE sql AS $$
  SELECT (srm_explain_json(q || ' OFFSET 1e12') -> 0 -> 'Plan' -> 'Plans' -> 0 ->> 'Runs')::int
$$;
SELECT * FROM srm_diff('SELECT * FROM ord ORDER BY i', 'i');
SELECT srm_runs('SELECT * FROM ord ORDER BY i') <= 2 AS in_order;
SELECT * FROM srm_diff('SELECT * FROM ord ORDER BY i % 12345, i', 'i % 12345', 'i');
SELECT srm_runs('SELECT * FROM ord ORDER BY i % 12345') - srm_runs('SELECT * FROM ord ORDER BY i')
       BETWEEN 1 AND 2 AS one_break;
SELECT * FROM srm_diff('SELECT * FROM ord ORDER BY i DESC', 'i');
SELECT srm_runs('SELECT * FROM ord ORDER BY i DESC') > 5 AS reverse_many;
SELECT * FROM srm_diff('SELECT * FROM ord ORDER BY i / 3000, t', 'i / 3000', 't');
SELECT * FROM srm_diff('SELECT * FROM ord ORDER BY i / 3000', 'i / 3000');
SELECT srm_runs('SELECT * FROM ord ORDER BY i / 3000') <= 2 AS equal_keys_across_loads;
SELECT * FROM srm_diff('SELECT * FROM ord ORDER BY p COLLATE "C"', 'p');
SELECT srm_runs('SELECT * FROM ord ORDER BY p COLLATE "C"') <= 2 AS text_in_order;
SELECT * FROM srm_diff('SELECT * FROM ord ORDER BY i::numeric', 'i::numeric');
SELECT srm_runs('SELECT * FROM ord ORDER BY i::numeric') <= 2 AS numeric_in_order;
SET srmsort.merge_strategy = dsm;
SELECT * FROM srm_diff('SELECT * FROM ord ORDER BY i', 'i');
SELECT srm_runs('SELECT * FROM ord ORDER BY i') <= 2 AS dsm_in_order;
RESET srmsort.merge_strategy;
-- O_DIRECT: the first run ends before the write-behind buffers replace the
-- writer's, one more run at most
SET srmsort.direct_io = on;
SELECT * FROM srm_diff('SELECT * FROM ord ORDER BY i', 'i');
SELECT srm_runs('SELECT * FROM ord ORDER BY i') <= 3 AS direct_in_order;
RESET srmsort.direct_io;
SELECT srm_cursor_diff('SELECT i, t FROM ord ORDER BY i');
-- a load is sorted and written in parts once it is much larger than the
-- caches (16MB; here 256kB): a run per part, the same rows, and input in
-- order still makes one run
SET work_mem = '4MB';
SET srmsort.debug_load_part = '256kB';
CREATE TABLE prt AS
SELECT i, CASE WHEN i % 50 = 0 THEN NULL ELSE (random() * 1e6)::int8 END AS k,
       md5(i::text) AS t
  FROM generate_series(1, 100000) i;
ANALYZE prt;
SELECT * FROM srm_diff('SELECT * FROM prt ORDER BY k, i', 'k', 'i');
SELECT * FROM srm_diff('SELECT * FROM prt ORDER BY k DESC NULLS LAST, i', 'k', 'i');
SELECT * FROM srm_diff('SELECT * FROM prt ORDER BY t COLLATE "C"', 't');
SELECT * FROM srm_diff('SELECT * FROM prt ORDER BY k::numeric, i', 'k::numeric', 'i');
SELECT srm_runs('SELECT * FROM prt ORDER BY k') AS parted \gset
RESET srmsort.debug_load_part;
SELECT srm_runs('SELECT * FROM prt ORDER BY k') AS whole \gset
SELECT :parted >= 8 * :whole AS a_run_per_part;
SET srmsort.debug_load_part = '256kB';
SELECT * FROM srm_diff('SELECT * FROM prt ORDER BY i', 'i');
SELECT srm_runs('SELECT * FROM prt ORDER BY i') <= 2 AS parts_in_order;
SELECT srm_cursor_diff('SELECT i, k FROM prt ORDER BY k, i');
RESET srmsort.debug_load_part;
DROP TABLE prt;
-- a large budget and a sort the planner expects at twice the budget or
-- more: its loads stop at a cap (128MB; here 1MB, with a 4MB budget), so
-- more runs, the same rows; an estimate under twice the budget (a default
-- selectivity of a third, on an input that is all the rows) keeps whole
-- loads
CREATE TABLE cap AS
SELECT i, (random() * 1e6)::int8 AS k, md5(i::text) AS t
  FROM generate_series(1, 200000) i;
ANALYZE cap;
SET srmsort.debug_load_cap = '1MB';
SELECT * FROM srm_diff('SELECT * FROM cap ORDER BY k, i', 'k', 'i');
SELECT * FROM srm_diff('SELECT * FROM cap ORDER BY t COLLATE "C" DESC', 't');
SELECT srm_runs('SELECT * FROM cap ORDER BY k') AS capped,
       srm_runs('SELECT * FROM cap WHERE i % 50 >= 0 ORDER BY k') AS low_estimate \gset
RESET srmsort.debug_load_cap;
SELECT srm_runs('SELECT * FROM cap ORDER BY k') AS uncapped,
       srm_runs('SELECT * FROM cap WHERE i % 50 >= 0 ORDER BY k') AS low_uncapped \gset
SELECT :capped >= 2 * :uncapped AS capped_loads,
       :low_estimate = :low_uncapped AS low_estimate_whole;
DROP TABLE cap;
SET work_mem = '64kB';
-- a budget whose bookkeeping share holds the whole run: one run of five
-- loads
SET work_mem = '4MB';
CREATE TABLE ord2 AS SELECT i, md5(i::text) AS t FROM generate_series(1, 300000) i;
ANALYZE ord2;
SELECT * FROM srm_diff('SELECT * FROM ord2 ORDER BY i', 'i');
SELECT srm_runs('SELECT * FROM ord2 ORDER BY i') AS runs_in_order,
       srm_runs('SELECT * FROM ord2 ORDER BY i DESC') > 3 AS reverse_several;
SET work_mem = '64kB';
DROP FUNCTION srm_runs(text);
DROP TABLE ord, ord2;

-- a sort whose run bookkeeping (a slot and a forecast key per block) would
-- pass a sixteenth of the budget pages it through a metadata workfile (paper
-- §4.1.2).  On one disk at 256kB (where the bookkeeping held in memory put
-- the peak at 297kB) the peak stays within the budget + 10%, over several
-- merge passes of paged runs; same rows with an int key, a text key under
-- "C", a descending key under DSM, a scroll cursor, and on four disks
SET work_mem = '256kB';
SET srmsort.tablespaces = 'srm_d0';
CREATE TABLE pgd AS SELECT e.*, g FROM ext e CROSS JOIN generate_series(1, 20) g;
ANALYZE pgd;
SELECT * FROM srm_diff('SELECT * FROM pgd ORDER BY k, i, g', 'k', 'i', 'g');
SELECT (j ->> 'Paged Bookkeeping')::int > 0 AS paged,
       (j ->> 'Memory Peak')::int <= 1.1 * 256 AS within_budget,
       (j ->> 'Passes')::int > 2 AS intermediate_merges
  FROM (SELECT srm_explain_json('SELECT * FROM pgd ORDER BY k, i, g OFFSET 1e12')
               -> 0 -> 'Plan' -> 'Plans' -> 0 AS j) p;
SELECT * FROM srm_diff('SELECT * FROM pgd ORDER BY t COLLATE "C", g', 't', 'g');
SET srmsort.merge_strategy = dsm;
SELECT * FROM srm_diff('SELECT * FROM pgd ORDER BY k DESC, i, g', 'k', 'i', 'g');
RESET srmsort.merge_strategy;
SELECT srm_cursor_diff('SELECT i, g, t FROM pgd ORDER BY i, g');
-- by-reference keys without a normalized form (arrays, jsonb): their
-- forecast keys go to a keys file, read back as the merge needs them
SELECT * FROM srm_diff('SELECT * FROM pgd ORDER BY ARRAY[k, g], i', 'ARRAY[k, g]', 'i');
SELECT (j ->> 'Paged Bookkeeping')::int > 0 AS paged,
       (j ->> 'Memory Peak')::int <= 1.1 * 256 AS within_budget
  FROM (SELECT srm_explain_json('SELECT * FROM pgd ORDER BY ARRAY[k, g], i OFFSET 1e12')
               -> 0 -> 'Plan' -> 'Plans' -> 0 AS j) p;
SELECT * FROM srm_diff('SELECT * FROM pgd ORDER BY jsonb_build_object(''t'', t), g DESC',
                       'jsonb_build_object(''t'', t)', 'g');
SET srmsort.tablespaces = 'srm_d0, srm_d1, srm_d2, srm_d3';
SET work_mem = '1MB';
SELECT * FROM srm_diff('SELECT * FROM pgd ORDER BY k, i, g', 'k', 'i', 'g');
SELECT (j ->> 'Paged Bookkeeping')::int > 0 AS paged
  FROM (SELECT srm_explain_json('SELECT * FROM pgd ORDER BY k, i, g OFFSET 1e12')
               -> 0 -> 'Plan' -> 'Plans' -> 0 AS j) p;
DROP TABLE pgd;
-- about a thousand runs in a small budget (rows of up to 22kB at 256kB, one
-- disk): the runs' headers alone, 144 bytes each, passed the share
-- of the budget their bookkeeping may take (peak 331kB).  The smallest runs
-- are merged early, and the peak stays within the budget + 10%
SET srmsort.tablespaces = 'srm_d0';
SET work_mem = '256kB';
SET srmsort.min_input_size = 0;
SELECT * FROM srm_diff('SELECT g, md5(v) AS h, length(v) AS l FROM (SELECT g, v FROM (SELECT g, repeat(md5(g::text), (g * 7919) % 700) AS v FROM generate_series(1, 9000) g) w ORDER BY md5(v), g) o',
                       'h', 'g');
SELECT (j ->> 'Runs')::int > 600 AS many_runs,
       (j ->> 'Memory Peak')::int <= 1.1 * 256 AS within_budget,
       (j ->> 'Passes')::int > 3 AS passes
  FROM (SELECT srm_explain_json('SELECT g, v FROM (SELECT g, repeat(md5(g::text), (g * 7919) % 700) AS v FROM generate_series(1, 9000) g) w ORDER BY md5(v), g')
               -> 0 -> 'Plan' AS j) p;
RESET srmsort.min_input_size;
SET srmsort.tablespaces = 'srm_d0, srm_d1, srm_d2, srm_d3';
SELECT srm_temp_files();
SET work_mem = '64kB';

-- tuples larger than a block: computed in-line (5 MB each) ...
-- (the planner cannot see their size, so take every sort)
SET srmsort.min_input_size = 0;
SELECT * FROM srm_diff(
  'SELECT g, md5(g::text) AS h, repeat(md5(g::text), 160000 + g) AS v FROM generate_series(1, 6) g ORDER BY md5(g::text)',
  'md5(g::text)');
SELECT * FROM srm_diff(
  'SELECT g, repeat(chr(65 + g % 26), 40000 * (g % 3)) AS v FROM generate_series(1, 300) g ORDER BY v DESC, g',
  'length(v)', 'g');
SET srmsort.merge_strategy = dsm;
SELECT * FROM srm_diff(
  'SELECT g, repeat(chr(65 + g % 26), 40000 * (g % 3)) AS v FROM generate_series(1, 300) g ORDER BY v, g',
  'length(v)', 'g');
RESET srmsort.merge_strategy;
-- ... and stored TOASTed
CREATE TABLE big (g int, v text);
ALTER TABLE big ALTER v SET STORAGE EXTERNAL;
INSERT INTO big SELECT g, repeat(md5(g::text), 100 + g % 50) FROM generate_series(1, 2000) g;
ANALYZE big;
SELECT * FROM srm_diff('SELECT g, v FROM big ORDER BY v', 'v');
SELECT * FROM srm_diff('SELECT g, md5(v) FROM big ORDER BY md5(v) DESC', 'md5');
-- ... and compressed in line (text and bytea keys; short headers are read
-- in place, compressed ones decompressed for the normalized key)
CREATE TABLE cmpr (g int, v text, b bytea);
INSERT INTO cmpr SELECT g, repeat(chr(65 + g % 26), 2400 + g % 7) || g,
       convert_to(repeat(chr(97 + g % 5), 2400) || g, 'UTF8')
  FROM generate_series(1, 2000) g;
SELECT count(*) FILTER (WHERE pg_column_compression(v) IS NOT NULL) AS v_compressed,
       count(*) FILTER (WHERE pg_column_compression(b) IS NOT NULL) AS b_compressed
  FROM cmpr;
SELECT * FROM srm_diff('SELECT g, v FROM cmpr ORDER BY v COLLATE "C", g', 'v', 'g');
SELECT * FROM srm_diff('SELECT g, b FROM cmpr ORDER BY b DESC, g', 'b', 'g');
RESET srmsort.min_input_size;

SELECT srm_temp_files();

-- an error raised by the child at the first, a middle and the last input tuple
SET srmsort.enabled = on;
SELECT count(*) FROM (SELECT * FROM ext ORDER BY (CASE WHEN i = 1 THEN 1 / 0 ELSE k END)) s;
SELECT srm_temp_files();
SELECT count(*) FROM (SELECT * FROM ext ORDER BY (CASE WHEN i = 15000 THEN 1 / 0 ELSE k END)) s;
SELECT srm_temp_files();
SELECT count(*) FROM (SELECT * FROM ext ORDER BY (CASE WHEN i = 20000 THEN 1 / 0 ELSE k END)) s;
SELECT srm_temp_files();

-- temp_file_limit: PostgreSQL's own error, nothing left behind
SET temp_file_limit = '512kB';
\set VERBOSITY sqlstate
SELECT count(*) FROM (SELECT * FROM ext ORDER BY t) s;
\set VERBOSITY default
RESET temp_file_limit;
SELECT srm_temp_files();

-- a statement timeout during the sort
CREATE FUNCTION slow_cmp(int, int) RETURNS int LANGUAGE plpgsql IMMUTABLE AS
$$ BEGIN PERFORM pg_sleep(0.0001); RETURN btint4cmp($1, $2); END $$;
CREATE FUNCTION slow_lt(int, int) RETURNS bool LANGUAGE sql IMMUTABLE AS 'SELECT $1 < $2';
CREATE FUNCTION slow_le(int, int) RETURNS bool LANGUAGE sql IMMUTABLE AS 'SELECT $1 <= $2';
CREATE FUNCTION slow_eq(int, int) RETURNS bool LANGUAGE sql IMMUTABLE AS 'SELECT $1 = $2';
CREATE FUNCTION slow_ge(int, int) RETURNS bool LANGUAGE sql IMMUTABLE AS 'SELECT $1 >= $2';
CREATE FUNCTION slow_gt(int, int) RETURNS bool LANGUAGE sql IMMUTABLE AS 'SELECT $1 > $2';
CREATE OPERATOR <<< (LEFTARG = int, RIGHTARG = int, FUNCTION = slow_lt);
CREATE OPERATOR <<<= (LEFTARG = int, RIGHTARG = int, FUNCTION = slow_le);
CREATE OPERATOR === (LEFTARG = int, RIGHTARG = int, FUNCTION = slow_eq);
CREATE OPERATOR >>>= (LEFTARG = int, RIGHTARG = int, FUNCTION = slow_ge);
CREATE OPERATOR >>> (LEFTARG = int, RIGHTARG = int, FUNCTION = slow_gt);
CREATE OPERATOR CLASS slow_int_ops FOR TYPE int USING btree AS
  OPERATOR 1 <<<, OPERATOR 2 <<<=, OPERATOR 3 ===, OPERATOR 4 >>>=, OPERATOR 5 >>>,
  FUNCTION 1 slow_cmp(int, int);
SET statement_timeout = '1500ms';
\set VERBOSITY terse
SELECT count(*) FROM (SELECT * FROM ext ORDER BY k USING <<<) s;
\set VERBOSITY default
RESET statement_timeout;
SELECT srm_temp_files();

-- a comparison function that raises an error during the merge
CREATE FUNCTION bad_cmp(int, int) RETURNS int LANGUAGE plpgsql IMMUTABLE AS
$$ BEGIN IF $1 = 777777 OR $2 = 777777 THEN RAISE EXCEPTION 'bad comparison'; END IF;
   RETURN btint4cmp($1, $2); END $$;
CREATE OPERATOR <<<< (LEFTARG = int, RIGHTARG = int, FUNCTION = slow_lt);
CREATE OPERATOR CLASS bad_int_ops FOR TYPE int USING btree AS
  OPERATOR 1 <<<<, OPERATOR 2 <<<=, OPERATOR 3 ===, OPERATOR 4 >>>=, OPERATOR 5 >>>,
  FUNCTION 1 bad_cmp(int, int);
SELECT count(*) FROM (SELECT * FROM (SELECT CASE WHEN i = 19000 THEN 777777 ELSE k END AS k FROM ext) e
                      ORDER BY k USING <<<<) s;
SELECT srm_temp_files();

-- the backend is still fine
SELECT * FROM srm_diff('SELECT * FROM ext ORDER BY k', 'k');
SELECT srm_temp_files();

-- Radix-sorted runs of tens of thousands of tuples each (300000 rows at
-- 4MB: several levels of radix digits per run, and groups of equal
-- normalized keys ordered by the full comparison): NULLs first and last,
-- DESC, ties on the first key broken by the second, normalized keys that
-- never decide (text prefixes), uuid, float8 with NaN and -0, text under
-- ICU (abbreviated keys), and DISTINCT and GROUP BY through the same sort.
SET srmsort.tablespaces = 'srm_d0, srm_d1, srm_d2, srm_d3';
SET srmsort.random_seed = 3;
SET work_mem = '4MB';
SET extra_float_digits = 3;
SELECT setseed(0.25);
CREATE TABLE rdx AS
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
ANALYZE rdx;
SELECT (j ->> 'Runs')::int > 4 AS several_runs
  FROM (SELECT srm_explain_json('SELECT * FROM rdx ORDER BY k OFFSET 1e12')
               -> 0 -> 'Plan' -> 'Plans' -> 0 AS j) p;
SELECT * FROM srm_diff('SELECT * FROM rdx ORDER BY k', 'k');
SELECT * FROM srm_diff('SELECT * FROM rdx ORDER BY k DESC NULLS LAST, i', 'k', 'i');
SELECT * FROM srm_diff('SELECT * FROM rdx ORDER BY k NULLS FIRST', 'k');
SELECT * FROM srm_diff('SELECT * FROM rdx ORDER BY small, i DESC', 'small', 'i');
SELECT * FROM srm_diff('SELECT * FROM rdx ORDER BY t COLLATE "C", i', 't', 'i');
SELECT * FROM srm_diff('SELECT * FROM rdx ORDER BY u', 'u');
SELECT * FROM srm_diff('SELECT * FROM rdx ORDER BY f, i', 'f', 'i');
SELECT * FROM srm_diff('SELECT * FROM rdx ORDER BY t COLLATE "en-x-icu" DESC, i', 't', 'i');
SET enable_hashagg = off;
SELECT * FROM srm_diff('SELECT DISTINCT small, k FROM rdx', 'small', 'k');
SELECT * FROM srm_diff('SELECT k, count(*) FROM rdx GROUP BY k', 'k');
RESET enable_hashagg;
-- The merge's loser tree compares order keys and leaves equal ones to the
-- exact comparison: a NULL sorting first has the order key of the least
-- int8, one sorting last and an exhausted run that of the greatest.  Many
-- of each, spread over every run, ascending and descending, NULLs first
-- and last, with and without a second key.
SET work_mem = '64kB';
CREATE TABLE edge AS
SELECT i, CASE i % 7 WHEN 0 THEN NULL
                     WHEN 1 THEN -9223372036854775808
                     WHEN 2 THEN 9223372036854775807
                     ELSE (random() * 1e6)::int8 - 500000 END AS k
  FROM generate_series(1, 20000) i;
ANALYZE edge;
SELECT * FROM srm_diff('SELECT * FROM edge ORDER BY k', 'k');
SELECT * FROM srm_diff('SELECT * FROM edge ORDER BY k NULLS FIRST', 'k');
SELECT * FROM srm_diff('SELECT * FROM edge ORDER BY k DESC', 'k');
SELECT * FROM srm_diff('SELECT * FROM edge ORDER BY k DESC NULLS LAST, i', 'k', 'i');
SELECT * FROM srm_diff('SELECT * FROM edge ORDER BY k NULLS FIRST, i DESC', 'k', 'i');
DROP TABLE edge;
SET work_mem = '4MB';
-- srmsort.huge_pages: an in-memory sort's arena in transparent huge pages
-- (budgets of 32MB and more) or in ordinary ones, the same rows
SET work_mem = '64MB';
SET srmsort.huge_pages = on;
SELECT * FROM srm_diff('SELECT * FROM rdx ORDER BY k, i', 'k', 'i');
SET srmsort.huge_pages = off;
SELECT * FROM srm_diff('SELECT * FROM rdx ORDER BY k, i', 'k', 'i');
RESET srmsort.huge_pages;
SET work_mem = '4MB';
DROP TABLE rdx;
SELECT srm_temp_files();
