-- Helpers for the tests after this one (the regression database is shared
-- by all pg_regress tests of a run).
CREATE EXTENSION IF NOT EXISTS srmsort;
-- Shared by the differential tests: compare a query run by PostgreSQL's own
-- sort (srmsort.enabled = off) with the same query run by srmsort.
--
-- srm_diff(q, key1 [, key2 ...]) returns
--   same:   the ordered list of keys (the key expressions evaluated on q's
--           rows, compared with each key type's own equality, so that equal
--           keys such as 0 and -0 may come in either order) and the multiset
--           of whole rows are identical;
--   nrows:  rows returned;
--   method: the distinct sort methods EXPLAIN ANALYZE reports for the srmsort
--           run ("not srmsort" if the plan has no SRMSort node).
CREATE OR REPLACE FUNCTION srm_diff(q text, VARIADIC keyexprs text[],
                                    OUT same boolean, OUT nrows bigint,
                                    OUT method text)
LANGUAGE plpgsql AS $fn$
DECLARE
    keycols text := '';
    keycmp text := '';
    body text;
    plan json;
    diffs bigint;
BEGIN
    FOR j IN 1 .. array_length(keyexprs, 1) LOOP
        keycols := keycols || format(', (%s) AS k%s', keyexprs[j], j);
        keycmp := keycmp || format('%s n.k%s IS DISTINCT FROM s.k%s',
                                   CASE WHEN j > 1 THEN ' OR' ELSE '' END, j, j);
    END LOOP;
    body := format('SELECT row_number() OVER () AS i%s, t::text AS r FROM (%s) t',
                   keycols, q);
    DROP TABLE IF EXISTS srm_n, srm_s;
    PERFORM set_config('srmsort.enabled', 'off', true);
    EXECUTE 'CREATE TEMP TABLE srm_n AS ' || body;
    PERFORM set_config('srmsort.enabled', 'on', true);
    EXECUTE 'CREATE TEMP TABLE srm_s AS ' || body;
    EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, FORMAT JSON) ' || body
        INTO plan;
    PERFORM set_config('srmsort.enabled', 'off', true);

    EXECUTE format('SELECT count(*) FROM srm_n n FULL JOIN srm_s s USING (i)
                     WHERE %s OR n.i IS NULL OR s.i IS NULL', keycmp)
       INTO diffs;
    SELECT diffs + count(*) INTO diffs
      FROM ((SELECT r FROM srm_n EXCEPT ALL SELECT r FROM srm_s)
            UNION ALL
            (SELECT r FROM srm_s EXCEPT ALL SELECT r FROM srm_n)) d;
    same := diffs = 0;
    SELECT count(*) INTO nrows FROM srm_s;
    IF plan::text NOT LIKE '%SRMSort%' THEN
        method := 'not srmsort';
    ELSE
        SELECT string_agg(DISTINCT m[1], ', ') INTO method
          FROM regexp_matches(plan::text, '"Sort Method": "([^"]*)"', 'g') AS m;
    END IF;
    DROP TABLE srm_n, srm_s;
    PERFORM set_config('srmsort.enabled', 'on', true);
END
$fn$;

-- Files left in the temporary directories of every tablespace.
CREATE OR REPLACE FUNCTION srm_temp_files() RETURNS bigint
LANGUAGE sql AS $fn$
    SELECT count(*) FROM pg_tablespace t, LATERAL pg_ls_tmpdir(t.oid)
     WHERE t.spcname <> 'pg_global';
$fn$;
