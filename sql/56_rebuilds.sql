-- The builds and sorts srmsort takes beyond CREATE INDEX and REINDEX
-- INDEX/TABLE: CREATE INDEX CONCURRENTLY, REINDEX CONCURRENTLY (INDEX,
-- TABLE, SCHEMA), REINDEX SCHEMA, the indexes rebuilt after ALTER TABLE
-- rewrites, CLUSTER (its heap sort too), VACUUM FULL and REFRESH
-- MATERIALIZED VIEW.  sql/include/rebuilds.sql runs every command twice,
-- with srmsort.create_index and srmsort.cluster off (PostgreSQL's builds
-- and sort) and on: the two halves of the output must be the same, word
-- for word.  At the end, rb_log shows which steps wrote srmsort's disks.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS srmsort;
CREATE EXTENSION IF NOT EXISTS amcheck;
SET maintenance_work_mem = '1MB';
SET srmsort.min_input_size = 0;
SET srmsort.tablespaces = 'srm_d0, srm_d1, srm_d2, srm_d3';
SET srmsort.random_seed = 1;
-- PostgreSQL plans no workers for these small tables, but asks the planner
SET max_parallel_maintenance_workers = 2;

CREATE ROLE regress_rb_owner;
CREATE ACCESS METHOD rb_heap2 TYPE TABLE HANDLER heap_tableam_handler;

-- bytes written to srmsort's disks so far
CREATE FUNCTION rb_written() RETURNS bigint LANGUAGE sql
AS $$ SELECT coalesce(sum(bytes_written), 0)::bigint FROM srmsort_disks $$;

-- an index expression that runs only as the table's owner
CREATE FUNCTION rb_owner_fn(int8) RETURNS int8 AS $$
BEGIN
	ASSERT current_user = 'regress_rb_owner',
		format('rb_owner_fn(%s) called by %s', $1, current_user);
	RETURN $1 % 1000;
END;
$$ LANGUAGE plpgsql IMMUTABLE;

CREATE TABLE rb_log (mode text, n serial, step text, srm boolean);
CREATE FUNCTION rb_step(mode text, step text, w0 bigint) RETURNS void
LANGUAGE sql AS $$
    INSERT INTO rb_log (mode, step, srm) VALUES (mode, step, rb_written() > w0)
$$;

-- every index of rbs.rb: flags, amcheck, pages, answers through it
CREATE FUNCTION rb_check(OUT index name, OUT valid boolean, OUT ready boolean,
                         OUT checked boolean, OUT pages bigint,
                         OUT answers text)
RETURNS SETOF record LANGUAGE plpgsql AS $fn$
DECLARE
    r record;
    q text;
BEGIN
    FOR r IN SELECT c.oid, c.relname, x.indisvalid, x.indisready
               FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid
              WHERE x.indrelid = 'rbs.rb'::regclass ORDER BY c.relname
    LOOP
        index := r.relname;
        valid := r.indisvalid;
        ready := r.indisready;
        PERFORM bt_index_parent_check(r.oid, true, true);
        checked := true;
        pages := pg_relation_size(r.oid) / 8192;
        q := CASE r.relname
            WHEN 'rb_a' THEN 'SELECT a FROM rbs.rb WHERE a < 3e9 ORDER BY a'
            WHEN 'rb_i' THEN 'SELECT i, t FROM rbs.rb WHERE i > 100 ORDER BY i'
            WHEN 'rb_expr' THEN 'SELECT lower(t) FROM rbs.rb WHERE lower(t) > ''8'' ORDER BY lower(t)'
            WHEN 'rb_part' THEN 'SELECT a FROM rbs.rb WHERE g < 100 ORDER BY a'
            WHEN 'rb_multi' THEN 'SELECT g, a FROM rbs.rb WHERE g > 400 ORDER BY g, a DESC'
            ELSE 'SELECT g, pad FROM rbs.rb WHERE g = 42 ORDER BY g, pad'
        END;
        answers := (srm_index_answers(ARRAY[q]))[1];
        RETURN NEXT;
    END LOOP;
END
$fn$;

-- the heap: its tuples in their places, and amcheck's verify_heapam
CREATE FUNCTION rb_heap(OUT tuples bigint, OUT placed text, OUT corrupt bigint)
LANGUAGE plpgsql AS $$
BEGIN
    SELECT count(*), md5(string_agg(ctid::text || ':' || r::text, ',' ORDER BY ctid))
      INTO tuples, placed FROM rbs.rb r;
    SELECT count(*) INTO corrupt FROM verify_heapam('rbs.rb');
END
$$;

-- event triggers see the commands as usual
CREATE TABLE rb_events (mode text, tag text);
CREATE FUNCTION rb_event() RETURNS event_trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO rb_events VALUES (current_setting('srmsort.create_index'), tg_tag);
END $$;
CREATE EVENT TRIGGER rb_event_end ON ddl_command_end EXECUTE FUNCTION rb_event();

\getenv abs_srcdir PG_ABS_SRCDIR

-- PostgreSQL's builds and sort
SET srmsort.create_index = off;
SET srmsort.cluster = off;
\set mode off
\i :abs_srcdir/sql/include/rebuilds.sql

-- srmsort's
SET srmsort.create_index = on;
SET srmsort.cluster = on;
\set mode on
\i :abs_srcdir/sql/include/rebuilds.sql

-- which steps wrote srmsort's disks: none with it off; with it on, all but
-- the concurrent build that PostgreSQL does not let srmsort reach
SELECT step, bool_or(srm) FILTER (WHERE mode = 'off') AS off,
       bool_or(srm) FILTER (WHERE mode = 'on') AS on
  FROM rb_log GROUP BY step ORDER BY min(n);

-- CLUSTER's heap sort alone (srmsort.create_index off: the index rebuilds
-- are PostgreSQL's), on three copies of a table in random order: srmsort's
-- disks are written by the sort when srmsort.cluster is on and PostgreSQL
-- sorts; with enable_indexscan off PostgreSQL sorts without asking the
-- planner, and the sort stays PostgreSQL's
CREATE TABLE rbc0 AS SELECT (i::int8 * 2654435761) % 4294967291 AS a,
       md5(i::text) AS t FROM generate_series(1, 60000) i;
CREATE TABLE rbc1 AS SELECT * FROM rbc0;
CREATE TABLE rbc2 AS SELECT * FROM rbc0;
CREATE TABLE rbc3 AS SELECT * FROM rbc0;
CREATE INDEX rbc1_a ON rbc1 (a);
CREATE INDEX rbc2_a ON rbc2 (a);
CREATE INDEX rbc3_a ON rbc3 (a);
VACUUM ANALYZE rbc1, rbc2, rbc3;
SET srmsort.create_index = off;
SET random_page_cost = 100;
SELECT rb_written() AS w0 \gset
CLUSTER rbc1 USING rbc1_a;
SELECT rb_written() > :w0 AS sorted_by_srmsort;
SET srmsort.cluster = off;
SELECT rb_written() AS w0 \gset
CLUSTER rbc2 USING rbc2_a;
SELECT rb_written() > :w0 AS sorted_by_srmsort;
SET srmsort.cluster = on;
SET enable_indexscan = off;
SELECT rb_written() AS w0 \gset
CLUSTER rbc3 USING rbc3_a;
SELECT rb_written() > :w0 AS sorted_by_srmsort;
RESET enable_indexscan;
SELECT (SELECT md5(string_agg(ctid::text || r::text, ',' ORDER BY ctid)) FROM rbc1 r) =
       (SELECT md5(string_agg(ctid::text || r::text, ',' ORDER BY ctid)) FROM rbc2 r) AS same_heap;

-- a CLUSTER that fails in the middle of the sort fails as PostgreSQL's
-- (an index expression that errors), and leaves the table as it was
CREATE FUNCTION rb_fail(int8) RETURNS int8 LANGUAGE plpgsql IMMUTABLE COST 1 AS $$
BEGIN
	IF $1 = (12345::int8 * 2654435761) % 4294967291 AND
	   current_setting('rb.fail', true) = 'on' THEN
		RAISE EXCEPTION 'rb_fail at %', $1;
	END IF;
	RETURN -$1;
END $$;
CREATE INDEX rbc0_fail ON rbc0 (rb_fail(a));
VACUUM ANALYZE rbc0;
SET rb.fail = on;
SET srmsort.cluster = off;
CLUSTER rbc0 USING rbc0_fail;
SET srmsort.cluster = on;
CLUSTER rbc0 USING rbc0_fail;
RESET rb.fail;
SELECT srm_temp_files();
SELECT count(*), sum(a) FROM rbc0;
SELECT rb_written() AS w0 \gset
CLUSTER rbc0 USING rbc0_fail;
SELECT rb_written() > :w0 AS sorted_by_srmsort;
SELECT bool_and(a <= pa) AS in_order
  FROM (SELECT a, lag(a) OVER (ORDER BY ctid) AS pa FROM rbc0) s;
RESET random_page_cost;
SET srmsort.create_index = on;
DROP TABLE rbc0, rbc1, rbc2, rbc3;
DROP FUNCTION rb_fail;

-- a unique CONCURRENTLY build over duplicates fails with PostgreSQL's
-- error and leaves the same invalid index behind
CREATE TABLE rbu AS SELECT i, i % 59999 AS k FROM generate_series(1, 60000) i;
SET srmsort.create_index = off;
CREATE UNIQUE INDEX CONCURRENTLY rbu_k_core ON rbu (k);
SET srmsort.create_index = on;
CREATE UNIQUE INDEX CONCURRENTLY rbu_k_srm ON rbu (k);
SELECT c.relname, x.indisvalid, x.indisready, x.indislive,
       pg_relation_size(c.oid) AS bytes
  FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid
 WHERE x.indrelid = 'rbu'::regclass ORDER BY 1;
DROP TABLE rbu;

-- REINDEX fired the same event triggers (none before PostgreSQL 17)
SELECT count(*) FILTER (WHERE mode = 'off') = count(*) FILTER (WHERE mode = 'on')
       AS same_reindex_events
  FROM rb_events WHERE tag = 'REINDEX';

-- no workfile left behind
SELECT srm_temp_files();

DROP EVENT TRIGGER rb_event_end;
DROP TABLE rb_log, rb_events;
DROP FUNCTION rb_step, rb_check, rb_heap, rb_event, rb_owner_fn, rb_written;
DROP ACCESS METHOD rb_heap2;
DROP ROLE regress_rb_owner;
