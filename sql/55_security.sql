-- Index builds through srmsort run user code exactly as PostgreSQL's own:
-- index expressions, predicates and operator-class comparators run as the
-- table's owner inside a security-restricted operation, setting changes they
-- make are rolled back, and every error comes in PostgreSQL's order.  Each
-- case runs with srmsort.create_index off (PostgreSQL's build) and on; the
-- output of the two must be the same, and via_srmsort shows that srmsort's
-- disks were written by the build that should be srmsort's.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS srmsort;
CREATE EXTENSION IF NOT EXISTS amcheck;
RESET client_min_messages;
SET maintenance_work_mem = '1MB';
SET srmsort.min_input_size = 0;
SET srmsort.tablespaces = 'srm_d0, srm_d1, srm_d2, srm_d3';
SET max_parallel_maintenance_workers = 0;

CREATE ROLE regress_srm_owner;
CREATE ROLE regress_srm_other;
CREATE ROLE regress_srm_evil;
GRANT CREATE ON SCHEMA public TO regress_srm_evil;

-- bytes written to srmsort's disks so far
CREATE FUNCTION srm_written() RETURNS bigint LANGUAGE sql
AS $$ SELECT coalesce(sum(bytes_written), 0)::bigint FROM srmsort_disks $$;

-- an index function that checks who calls it (PostgreSQL's privileges test)
CREATE FUNCTION sro_ifun(int) RETURNS int AS $$
BEGIN
	ASSERT current_user = 'regress_srm_owner',
		format('sro_ifun(%s) called by %s', $1, current_user);
	RETURN $1;
END;
$$ LANGUAGE plpgsql IMMUTABLE;
CREATE TABLE sro_tab (a int);
ALTER TABLE sro_tab OWNER TO regress_srm_owner;
INSERT INTO sro_tab SELECT g FROM generate_series(1, 60000) g;
ANALYZE sro_tab;

-- expression index with a predicate: built as the owner
SET srmsort.create_index = off;
CREATE INDEX sro_idx ON sro_tab ((sro_ifun(a) + sro_ifun(0)))
	WHERE sro_ifun(a + 10) > sro_ifun(10);
REINDEX TABLE sro_tab;
REINDEX INDEX sro_idx;
DROP INDEX sro_idx;
SET srmsort.create_index = on;
SELECT srm_written() AS w0 \gset
CREATE INDEX sro_idx ON sro_tab ((sro_ifun(a) + sro_ifun(0)))
	WHERE sro_ifun(a + 10) > sro_ifun(10);
SELECT srm_written() > :w0 AS via_srmsort;
SELECT srm_written() AS w0 \gset
REINDEX TABLE sro_tab;
SELECT srm_written() > :w0 AS via_srmsort;
SELECT srm_written() AS w0 \gset
REINDEX INDEX sro_idx;
SELECT srm_written() > :w0 AS via_srmsort;
SELECT bt_index_parent_check('sro_idx', true, true);
DROP INDEX sro_idx;

-- a materialized view's index, the same way
CREATE MATERIALIZED VIEW sro_mv AS SELECT a FROM sro_tab;
ALTER MATERIALIZED VIEW sro_mv OWNER TO regress_srm_owner;
SELECT srm_written() AS w0 \gset
CREATE INDEX sro_mv_idx ON sro_mv ((sro_ifun(a) + sro_ifun(0)));
SELECT srm_written() > :w0 AS via_srmsort;
SELECT bt_index_parent_check('sro_mv_idx', true, true);
DROP MATERIALIZED VIEW sro_mv;

-- a security-restricted operation: an index function may not change the
-- role, and a setting it changes does not outlive the build
CREATE FUNCTION sro_role(int) RETURNS int AS $$
BEGIN
	IF $1 = 59999 THEN
		PERFORM set_config('role', 'regress_srm_other', false);
	END IF;
	RETURN $1;
END;
$$ LANGUAGE plpgsql IMMUTABLE;
CREATE FUNCTION sro_guc(int) RETURNS int AS $$
BEGIN
	PERFORM set_config('work_mem', '77MB', false);
	RETURN $1;
END;
$$ LANGUAGE plpgsql IMMUTABLE;
SET srmsort.create_index = off;
CREATE INDEX sro_role_idx ON sro_tab (sro_role(a));
SET srmsort.create_index = on;
CREATE INDEX sro_role_idx ON sro_tab (sro_role(a));
SET work_mem = '4MB';
SET srmsort.create_index = off;
CREATE INDEX sro_guc_idx ON sro_tab (sro_guc(a));
SHOW work_mem;
DROP INDEX sro_guc_idx;
SET srmsort.create_index = on;
SELECT srm_written() AS w0 \gset
CREATE INDEX sro_guc_idx ON sro_tab (sro_guc(a));
SELECT srm_written() > :w0 AS via_srmsort;
SHOW work_mem;
SELECT srm_written() AS w0 \gset
REINDEX INDEX sro_guc_idx;
SELECT srm_written() > :w0 AS via_srmsort;
SHOW work_mem;
DROP INDEX sro_guc_idx;
RESET work_mem;

-- an operator class whose comparison function checks who calls it
CREATE FUNCTION sro_cmp(int, int) RETURNS int AS $$
BEGIN
	ASSERT current_user = 'regress_srm_owner',
		format('sro_cmp called by %s', current_user);
	RETURN btint4cmp($1, $2);
END;
$$ LANGUAGE plpgsql IMMUTABLE;
CREATE OPERATOR CLASS sro_int_ops FOR TYPE int USING btree AS
  OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
  FUNCTION 1 sro_cmp(int, int);
SET srmsort.create_index = off;
CREATE INDEX sro_cmp_idx ON sro_tab (a sro_int_ops);
DROP INDEX sro_cmp_idx;
SET srmsort.create_index = on;
SELECT srm_written() AS w0 \gset
CREATE INDEX sro_cmp_idx ON sro_tab (a sro_int_ops);
SELECT srm_written() > :w0 AS via_srmsort;
SELECT srm_written() AS w0 \gset
REINDEX TABLE sro_tab;
SELECT srm_written() > :w0 AS via_srmsort;
DROP INDEX sro_cmp_idx;

-- a table owner's index function that would make its owner a superuser
-- when a superuser builds the index: it never runs as the superuser
CREATE FUNCTION evil_ifun(int) RETURNS int AS $$
BEGIN
	IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
		EXECUTE 'ALTER ROLE regress_srm_evil SUPERUSER';
	END IF;
	RETURN $1;
END;
$$ LANGUAGE plpgsql IMMUTABLE;
ALTER FUNCTION evil_ifun(int) OWNER TO regress_srm_evil;
CREATE TABLE evil_tab (a int);
INSERT INTO evil_tab SELECT g FROM generate_series(1, 60000) g;
ALTER TABLE evil_tab OWNER TO regress_srm_evil;
SET ROLE regress_srm_evil;
CREATE INDEX evil_idx ON evil_tab (evil_ifun(a));
RESET ROLE;
SELECT srm_written() AS w0 \gset
REINDEX TABLE evil_tab;
SELECT srm_written() > :w0 AS via_srmsort;
CREATE INDEX evil_idx2 ON evil_tab (evil_ifun(a)) WHERE evil_ifun(a) > 0;
SELECT rolsuper FROM pg_roles WHERE rolname = 'regress_srm_evil';
DROP TABLE evil_tab;

-- REINDEX and CREATE INDEX by a role that is not the owner: core's errors
-- (REINDEX's wording changed with 17's MAINTAIN privilege: SQLSTATE only)
SET ROLE regress_srm_other;
SET srmsort.create_index = off;
\set VERBOSITY sqlstate
REINDEX TABLE sro_tab;
\set VERBOSITY default
REINDEX INDEX sro_tab_missing;
CREATE INDEX sro_other_idx ON sro_tab (a);
SET srmsort.create_index = on;
\set VERBOSITY sqlstate
REINDEX TABLE sro_tab;
\set VERBOSITY default
REINDEX INDEX sro_tab_missing;
CREATE INDEX sro_other_idx ON sro_tab (a);
RESET ROLE;

-- 17 and later: a role with MAINTAIN on the table may REINDEX it, and the
-- index functions still run as the owner; their search_path is restricted
-- to pg_catalog, pg_temp, so an index function that names a table of
-- public unqualified fails there, with and without srmsort.  Outcomes are
-- compared as text (SQLSTATE and message), the same on every version.
CREATE TABLE sro_lookup (v int);
INSERT INTO sro_lookup VALUES (1);
ALTER TABLE sro_lookup OWNER TO regress_srm_owner;
CREATE FUNCTION sro_path(int) RETURNS int AS $$
BEGIN
	RETURN $1 + (SELECT v FROM sro_lookup);
END;
$$ LANGUAGE plpgsql IMMUTABLE;
CREATE FUNCTION srm_outcome(stmt text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE stmt;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ': ' || SQLERRM;
END
$$;
SET srmsort.create_index = off;
SELECT srm_outcome('CREATE INDEX sro_path_n ON sro_tab (sro_path(a))') AS native \gset
SET srmsort.create_index = on;
SELECT srm_outcome('CREATE INDEX sro_path_s ON sro_tab (sro_path(a))') AS srm \gset
SELECT :'native' = :'srm' AS same_outcome,
       (:'native' = 'ok') = (current_setting('server_version_num')::int < 170000)
         AS path_restricted_from_17;
DO $$
BEGIN
	IF current_setting('server_version_num')::int >= 170000 THEN
		EXECUTE 'GRANT MAINTAIN ON sro_tab TO regress_srm_other';
		EXECUTE 'CREATE INDEX sro_main_idx ON sro_tab ((sro_ifun(a) + sro_ifun(0)))';
	END IF;
END
$$;
SELECT srm_written() AS w0 \gset
DO $$
BEGIN
	IF current_setting('server_version_num')::int >= 170000 THEN
		EXECUTE 'SET ROLE regress_srm_other';
		EXECUTE 'REINDEX TABLE sro_tab';
		EXECUTE 'REINDEX INDEX sro_main_idx';
		EXECUTE 'RESET ROLE';
		EXECUTE 'REVOKE MAINTAIN ON sro_tab FROM regress_srm_other';
		EXECUTE 'DROP INDEX sro_main_idx';
	END IF;
END
$$;
SELECT srm_written() > :w0 OR current_setting('server_version_num')::int < 170000
  AS maintain_reindex_via_srmsort;
SET client_min_messages = warning;
DROP INDEX IF EXISTS sro_path_n, sro_path_s;
RESET client_min_messages;
DROP TABLE sro_lookup;
DROP FUNCTION sro_path(int), srm_outcome(text);

-- PostgreSQL's order of checks: the tablespace permission before the name
CREATE SCHEMA srm_acl;
GRANT USAGE ON SCHEMA srm_acl TO regress_srm_other;
CREATE TABLE srm_acl.t (c int);
ALTER TABLE srm_acl.t OWNER TO regress_srm_other;
SET ROLE regress_srm_other;
SET srmsort.create_index = off;
REINDEX (TABLESPACE srm_d3) TABLE no_such_table;
REINDEX (TABLESPACE srm_d3) TABLE srm_acl.t;
REINDEX (TABLESPACE srm_d3, CONCURRENTLY) TABLE no_such_table;
REINDEX (TABLESPACE no_such_tablespace) INDEX no_such_index;
REINDEX (NO_SUCH_OPTION) TABLE srm_acl.t;
CREATE INDEX ON no_such_table (a);
CREATE INDEX ON srm_acl.t (c) TABLESPACE srm_d3;
SET srmsort.create_index = on;
REINDEX (TABLESPACE srm_d3) TABLE no_such_table;
REINDEX (TABLESPACE srm_d3) TABLE srm_acl.t;
REINDEX (TABLESPACE srm_d3, CONCURRENTLY) TABLE no_such_table;
REINDEX (TABLESPACE no_such_tablespace) INDEX no_such_index;
REINDEX (NO_SUCH_OPTION) TABLE srm_acl.t;
CREATE INDEX ON no_such_table (a);
CREATE INDEX ON srm_acl.t (c) TABLESPACE srm_d3;
RESET ROLE;
DROP SCHEMA srm_acl CASCADE;

-- event triggers fire before a missing table is reported, as in core
CREATE FUNCTION srm_sec_evt() RETURNS event_trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE NOTICE 'event % for %', tg_event, tg_tag;
END $$;
CREATE EVENT TRIGGER srm_sec_evt_start ON ddl_command_start EXECUTE FUNCTION srm_sec_evt();
SET srmsort.create_index = off;
CREATE INDEX ON no_such_table (a);
SET srmsort.create_index = on;
CREATE INDEX ON no_such_table (a);
DROP EVENT TRIGGER srm_sec_evt_start;

-- REINDEX (TABLESPACE) moves the rebuilt index, VERBOSE says the same
CREATE TABLE mv_tab AS SELECT g AS a, (g::int8 * 7919) % 60000 AS t FROM generate_series(1, 60000) g;
CREATE INDEX mv_a ON mv_tab (a);
CREATE INDEX mv_t ON mv_tab (t);
SELECT srm_written() AS w0 \gset
REINDEX (TABLESPACE srm_d2) TABLE mv_tab;
SELECT srm_written() > :w0 AS via_srmsort;
SELECT c.relname, t.spcname FROM pg_class c JOIN pg_tablespace t ON t.oid = c.reltablespace
 WHERE c.relname IN ('mv_a', 'mv_t') ORDER BY 1;
SELECT bt_index_parent_check('mv_a', true, true), bt_index_parent_check('mv_t', true, true);
SELECT srm_written() AS w0 \gset
CREATE INDEX mv_at ON mv_tab (a, t) TABLESPACE srm_d1;
SELECT srm_written() > :w0 AS via_srmsort;
SELECT t.spcname FROM pg_class c JOIN pg_tablespace t ON t.oid = c.reltablespace
 WHERE c.relname = 'mv_at';
SELECT bt_index_parent_check('mv_at', true, true);
DROP INDEX mv_at;
SELECT srm_written() AS w0 \gset
REINDEX (TABLESPACE pg_default) INDEX mv_t;
SELECT srm_written() > :w0 AS via_srmsort;
SELECT c.relname, c.reltablespace FROM pg_class c WHERE c.relname = 'mv_t';
SELECT bt_index_parent_check('mv_t', true, true);
\set VERBOSITY terse
SET srmsort.create_index = off;
REINDEX (VERBOSE) TABLE mv_tab;
SET srmsort.create_index = on;
REINDEX (VERBOSE) TABLE mv_tab;
REINDEX (VERBOSE, TABLESPACE srm_d1) INDEX mv_a;
\set VERBOSITY default
SELECT count(*) FROM mv_tab WHERE a BETWEEN 100 AND 199;
DROP TABLE mv_tab;

DROP TABLE sro_tab;
DROP OPERATOR FAMILY sro_int_ops USING btree;
DROP FUNCTION sro_ifun(int), sro_role(int), sro_guc(int), sro_cmp(int, int),
  evil_ifun(int), srm_written(), srm_sec_evt();
REVOKE CREATE ON SCHEMA public FROM regress_srm_evil;
DROP ROLE regress_srm_owner, regress_srm_other, regress_srm_evil;
