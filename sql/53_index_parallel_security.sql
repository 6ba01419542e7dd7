-- Parallel index builds run user code as the serial build does: the
-- workers evaluate expressions and predicates as the table's owner (the
-- parallel context restores the leader's user and security context, as
-- for PostgreSQL's parallel build).  The workers alone scan here, so a
-- worker that ran as anyone else would fail the ASSERT.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS srmsort;
RESET client_min_messages;
SET maintenance_work_mem = '96MB';
SET max_parallel_maintenance_workers = 2;
SET min_parallel_table_scan_size = 0;
SET parallel_leader_participation = off;
SET srmsort.min_input_size = 0;
SET srmsort.tablespaces = 'srm_d0, srm_d1, srm_d2, srm_d3';

CREATE ROLE regress_srm_powner;
CREATE FUNCTION srm_pfun(int) RETURNS int AS $$
BEGIN
	ASSERT current_user = 'regress_srm_powner',
		format('srm_pfun(%s) called by %s', $1, current_user);
	RETURN $1;
END;
$$ LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE;
CREATE TABLE ppriv AS SELECT g AS a FROM generate_series(1, 100000) g;
ALTER TABLE ppriv OWNER TO regress_srm_powner;
VACUUM ANALYZE ppriv;
SELECT * FROM srm_index_check('CREATE INDEX %I ON ppriv ((srm_pfun(a) + srm_pfun(0))) WHERE srm_pfun(a + 10) > srm_pfun(10)');
SELECT * FROM srm_index_check('CREATE UNIQUE INDEX %I ON ppriv (srm_pfun(a))');
-- an error in the owner's code fails the build as PostgreSQL's does
CREATE FUNCTION srm_pfun_other(int) RETURNS int AS $$
BEGIN
	ASSERT current_user = 'postgres_nobody', 'not the owner';
	RETURN $1;
END;
$$ LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE;
\set SHOW_CONTEXT never
SET srmsort.create_index = off;
CREATE INDEX ppriv_bad ON ppriv (srm_pfun_other(a));
SET srmsort.create_index = on;
CREATE INDEX ppriv_bad ON ppriv (srm_pfun_other(a));
DROP TABLE ppriv;
DROP FUNCTION srm_pfun(int), srm_pfun_other(int);
DROP ROLE regress_srm_powner;
