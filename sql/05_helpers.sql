-- Helpers for the tests after this one (the regression database is shared
-- by all pg_regress tests of a run).
CREATE EXTENSION IF NOT EXISTS srmsort;
CREATE EXTENSION IF NOT EXISTS amcheck;
CREATE EXTENSION IF NOT EXISTS pageinspect;
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
    SELECT CASE WHEN bool_or(node = 'SRMSort') THEN string_agg(DISTINCT m, ', ')
                ELSE 'not srmsort' END
      INTO method
      FROM srm_sort_nodes(body) AS n(node, m);
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

-- srm_cursor_diff(q): a fixed script of scroll-cursor moves over q, run with
-- PostgreSQL's sort and with srmsort; true if every fetch returned the same
-- row (q must order on a unique key).
CREATE OR REPLACE FUNCTION srm_cursor_script(q text) RETURNS text[]
LANGUAGE plpgsql AS $fn$
DECLARE
    c refcursor;
    r record;
    out text[] := '{}';
BEGIN
    OPEN c SCROLL FOR EXECUTE q;
    FOR j IN 1 .. 5 LOOP FETCH NEXT FROM c INTO r; out := out || r::text; END LOOP;
    FOR j IN 1 .. 3 LOOP FETCH PRIOR FROM c INTO r; out := out || r::text; END LOOP;
    FETCH ABSOLUTE 1000 FROM c INTO r; out := out || r::text;
    FETCH RELATIVE -10 FROM c INTO r; out := out || r::text;
    FETCH LAST FROM c INTO r; out := out || r::text;
    FETCH NEXT FROM c INTO r; out := out || coalesce(r::text, 'none');
    FETCH PRIOR FROM c INTO r; out := out || r::text;
    FETCH PRIOR FROM c INTO r; out := out || r::text;
    MOVE ABSOLUTE 0 FROM c;
    FETCH NEXT FROM c INTO r; out := out || r::text;
    FETCH ABSOLUTE -1 FROM c INTO r; out := out || r::text;
    FETCH FIRST FROM c INTO r; out := out || r::text;
    MOVE FORWARD 5000 IN c;
    FETCH PRIOR FROM c INTO r; out := out || r::text;
    CLOSE c;
    RETURN out;
END
$fn$;

CREATE OR REPLACE FUNCTION srm_cursor_diff(q text) RETURNS boolean
LANGUAGE plpgsql AS $fn$
DECLARE
    native text[];
    srm text[];
BEGIN
    PERFORM set_config('srmsort.enabled', 'off', true);
    native := srm_cursor_script(q);
    PERFORM set_config('srmsort.enabled', 'on', true);
    srm := srm_cursor_script(q);
    RETURN native = srm AND array_length(srm, 1) = 18;
END
$fn$;

-- EXPLAIN (ANALYZE, FORMAT JSON) of a query.
CREATE OR REPLACE FUNCTION srm_explain_json(q text) RETURNS json
LANGUAGE plpgsql AS $fn$
DECLARE
    plan json;
BEGIN
    EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, FORMAT JSON) ' || q
        INTO plan;
    RETURN plan;
END
$fn$;

-- The sort nodes of a query's plan, by EXPLAIN ANALYZE: node type and method.
CREATE OR REPLACE FUNCTION srm_sort_nodes(q text)
RETURNS TABLE (node text, method text)
LANGUAGE plpgsql AS $fn$
BEGIN
    RETURN QUERY
    WITH RECURSIVE n(p) AS (
        SELECT srm_explain_json(q) -> 0 -> 'Plan'
        UNION ALL
        SELECT json_array_elements(p -> 'Plans') FROM n WHERE p -> 'Plans' IS NOT NULL)
    SELECT coalesce(p ->> 'Custom Plan Provider', p ->> 'Node Type'), p ->> 'Sort Method'
      FROM n
     WHERE p ->> 'Node Type' IN ('Sort', 'Custom Scan');
END
$fn$;

-- Index builds, differential (50_index, 58_gist and later):
-- srm_index_check(stmt, queries) builds the index once by PostgreSQL and
-- once by srmsort; see 50_index (btree) and 58_gist (GiST) for what its
-- columns mean.
-- items of every btree page but the metapage that one index has and the
-- other has not, plus the difference in size
CREATE OR REPLACE FUNCTION srm_index_pages_diff(a regclass, b regclass) RETURNS bigint
LANGUAGE sql AS $fn$
  WITH pa AS (SELECT blkno, s.* FROM generate_series(1, pg_relation_size(a) / 8192 - 1) blkno,
                                     bt_page_items(a::text, blkno::int) s),
       pb AS (SELECT blkno, s.* FROM generate_series(1, pg_relation_size(b) / 8192 - 1) blkno,
                                     bt_page_items(b::text, blkno::int) s),
       d AS ((SELECT blkno, itemoffset, ctid, itemlen, data, dead, htid, tids FROM pa
              EXCEPT ALL
              SELECT blkno, itemoffset, ctid, itemlen, data, dead, htid, tids FROM pb)
             UNION ALL
             (SELECT blkno, itemoffset, ctid, itemlen, data, dead, htid, tids FROM pb
              EXCEPT ALL
              SELECT blkno, itemoffset, ctid, itemlen, data, dead, htid, tids FROM pa))
  SELECT (SELECT count(*) FROM d) + abs(pg_relation_size(a) - pg_relation_size(b)) / 8192
       + (SELECT count(*) FROM bt_metap(a::text) m1, bt_metap(b::text) m2
           WHERE (m1.level, m1.allequalimage) IS DISTINCT FROM (m2.level, m2.allequalimage))
$fn$;

-- every page of a GiST index: its flags, right link and a hash of its
-- items (offsets, heap TIDs, lengths, keys as the opclass prints them)
CREATE OR REPLACE FUNCTION srm_gist_pages(a regclass)
RETURNS TABLE (blkno bigint, flags text[], rightlink bigint, items text)
LANGUAGE sql AS $fn$
  SELECT blkno, o.flags, o.rightlink::bigint,
         (SELECT md5(string_agg(concat_ws(' ', s.itemoffset, s.ctid, s.itemlen, s.dead, s.keys),
                                E'\n' ORDER BY s.itemoffset))
            FROM gist_page_items(r, a) s)
    FROM generate_series(0, pg_relation_size(a) / 8192 - 1) blkno,
         LATERAL get_raw_page(a::text, blkno::int) r,
         LATERAL gist_page_opaque_info(r) o
$fn$;

-- GiST pages (items, flags, right link) that differ between two indexes,
-- plus the difference in size
CREATE OR REPLACE FUNCTION srm_gist_pages_diff(a regclass, b regclass) RETURNS bigint
LANGUAGE sql AS $fn$
  SELECT count(*) FROM srm_gist_pages(a) pa FULL JOIN srm_gist_pages(b) pb USING (blkno)
   WHERE (pa.flags, pa.rightlink, pa.items) IS DISTINCT FROM (pb.flags, pb.rightlink, pb.items)
$fn$;

-- hashes of the rows (in order) of index scans, or (seqscan) of
-- sequential scans
CREATE OR REPLACE FUNCTION srm_index_answers(queries text[], seqscan boolean DEFAULT false)
RETURNS text[]
LANGUAGE plpgsql AS $fn$
DECLARE
    q text;
    h text;
    out text[] := '{}';
    off text[] := CASE WHEN seqscan
                       THEN '{enable_indexscan, enable_indexonlyscan, enable_bitmapscan}'
                       ELSE '{enable_seqscan, enable_bitmapscan, enable_sort}' END;
BEGIN
    FOR j IN 1 .. 3 LOOP PERFORM set_config(off[j], 'off', true); END LOOP;
    FOREACH q IN ARRAY queries LOOP
        EXECUTE format('SELECT count(*) || '':'' || md5(string_agg(t::text, E''\n'')) FROM (%s) t', q)
           INTO h;
        out := out || h;
    END LOOP;
    FOR j IN 1 .. 3 LOOP PERFORM set_config(off[j], 'on', true); END LOOP;
    RETURN out;
END
$fn$;

-- stmt is a CREATE INDEX statement with %I where the index name goes; the
-- index's access method picks the checks: btree indexes pass amcheck
-- (bt_index_parent_check, heapallindexed and rootdescend) and compare
-- with srm_index_pages_diff, GiST indexes with srm_gist_pages_diff.
--   via_srmsort: srmsort's workfile disks were written during the build;
--   identical:   PostgreSQL's and srmsort's indexes are page-identical;
--   answers:     the queries return the same rows in the same order
--                through either index alone (and, with seqscan, by a
--                sequential scan: for queries whose order is total).
CREATE OR REPLACE FUNCTION srm_index_check(stmt text, queries text[] DEFAULT '{}',
                                seqscan boolean DEFAULT false,
                                OUT via_srmsort boolean, OUT identical boolean,
                                OUT answers boolean)
LANGUAGE plpgsql AS $fn$
DECLARE
    w0 bigint;
    am name;
    native text[];
    srm text[];
    seq text[];
BEGIN
    IF seqscan THEN
        seq := srm_index_answers(queries, seqscan => true);
    END IF;
    PERFORM set_config('srmsort.create_index', 'off', true);
    EXECUTE format(stmt, 'srm_idx_native');
    native := srm_index_answers(queries);
    PERFORM set_config('srmsort.create_index', 'on', true);
    SELECT coalesce(sum(bytes_written), 0) INTO w0 FROM srmsort_disks;
    EXECUTE format(stmt, 'srm_idx_srm');
    SELECT sum(bytes_written) > w0 INTO via_srmsort FROM srmsort_disks;
    SELECT a.amname INTO am FROM pg_class c JOIN pg_am a ON a.oid = c.relam
     WHERE c.oid = 'srm_idx_srm'::regclass;
    IF am = 'btree' THEN
        PERFORM bt_index_parent_check('srm_idx_srm', true, true);
        identical := srm_index_pages_diff('srm_idx_native', 'srm_idx_srm') = 0;
    ELSIF am = 'gist' THEN
        identical := srm_gist_pages_diff('srm_idx_native', 'srm_idx_srm') = 0;
    ELSE
        RAISE EXCEPTION 'srm_index_check: no page comparison for access method %', am;
    END IF;
    DROP INDEX srm_idx_native;
    srm := srm_index_answers(queries);
    answers := native = srm AND (NOT seqscan OR seq = srm);
    DROP INDEX srm_idx_srm;
END
$fn$;
