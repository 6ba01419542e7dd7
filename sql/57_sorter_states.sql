-- The sorter's state machine is enforced (sorter.c): every entry point called
-- out of order raises the internal error "invalid sorter state", as
-- tuplesort's do, instead of crashing.  The developer option
-- srmsort.debug_sorter_misuse makes SRMSort make one such call: before the
-- input is in, or after the sort is performed in memory, by a final merge,
-- or into one run for random access.  After each error the session sorts on.
CREATE EXTENSION IF NOT EXISTS srmsort;
SET client_min_messages = warning;
SET srmsort.min_input_size = 0;
SET srmsort.random_seed = 3;
SET max_parallel_workers_per_gather = 0;
SET srmsort.tablespaces = 'srm_d0, srm_d1';

SELECT setseed(0.3);
CREATE TABLE st AS
SELECT i, (random() * 1e6)::int AS k FROM generate_series(1, 20000) i;
ANALYZE st;

EXPLAIN (COSTS OFF) SELECT k FROM st ORDER BY k;

-- srm_misuse(misuse, scroll): the error of the sort of st with that misuse,
-- read to its end through a cursor (scroll: a random-access sort), or the
-- sum of the keys if there was none
CREATE FUNCTION srm_misuse(misuse text, scroll boolean DEFAULT false)
RETURNS text LANGUAGE plpgsql AS $fn$
DECLARE
    c refcursor;
    k int;
    total bigint := 0;
BEGIN
    PERFORM set_config('srmsort.debug_sorter_misuse', misuse, true);
    IF scroll THEN
        OPEN c SCROLL FOR SELECT st.k FROM st ORDER BY st.k;
    ELSE
        OPEN c NO SCROLL FOR SELECT st.k FROM st ORDER BY st.k;
    END IF;
    LOOP
        FETCH c INTO k;
        EXIT WHEN NOT FOUND;
        total := total + k;
    END LOOP;
    CLOSE c;
    RETURN total::text;
EXCEPTION WHEN internal_error THEN
    RETURN SQLERRM;
END
$fn$;

-- sorted in memory (rescan: the state allows it, the sort does not)
SET work_mem = '4MB';
SELECT m AS misuse, srm_misuse(m) AS result
  FROM unnest(ARRAY['get_before_perform', 'put_after_perform', 'perform_twice',
                    'finish_runs', 'export_runs', 'adopt_runs', 'rescan',
                    'off']) m;

-- streamed by the final merge
SET work_mem = '64kB';
SELECT m AS misuse, srm_misuse(m) AS result
  FROM unnest(ARRAY['get_before_perform', 'put_after_perform', 'adopt_runs',
                    'rescan', 'markpos', 'restorepos', 'off']) m;

-- merged into one run for random access
SELECT m AS misuse, srm_misuse(m, true) AS result
  FROM unnest(ARRAY['perform_twice', 'export_runs', 'finish_runs', 'off']) m;
SHOW srmsort.debug_sorter_misuse;

-- no workfile is left behind by the errors
SELECT srm_temp_files();

DROP FUNCTION srm_misuse(text, boolean);
DROP TABLE st;
