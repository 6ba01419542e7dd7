# The split ORDER BY (psort.c) when no dynamic shared memory segment can
# be had: with every DSM slot in use, PostgreSQL runs the Gather's plan in
# private memory, without workers, and still calls the parallel-aware
# node's DSM initializer, with no segment.  The sort must then run in the
# leader alone, with PostgreSQL's rows.
#
# The slots are taken for real: another session runs a query whose
# scalar subqueries each hold a Gather's segment until the query ends,
# and waits, before it ends, on a lock this test holds.  Few backends make
# few slots (64 and 5 per backend).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SrmTest;

my $node = SrmTest::node('psortnoseg', extra_conf =>
	  "max_connections = 8\nmax_worker_processes = 4\nmax_parallel_workers = 4\n"
	  . "max_wal_senders = 0\nautovacuum = off\n"
	  . "srmsort.min_input_size = 0\nmin_parallel_table_scan_size = 0\n"
	  . "parallel_setup_cost = 1000000000\nwork_mem = '1MB'\n"
	  . "srmsort.tablespaces = 'srm_d0, srm_d1'\n");
$node->safe_psql('postgres', q{
SELECT setseed(0.5);
CREATE TABLE t AS SELECT (random() * 1e9)::int8 AS k, i::int4 AS i
  FROM generate_series(1, 30000) i;
ALTER TABLE t SET (parallel_workers = 2);
VACUUM ANALYZE t;
CREATE TABLE s (x int);
ALTER TABLE s SET (parallel_workers = 1);
CREATE TABLE gate (x int);
-- waits for the gate; restricted: runs in the leader
CREATE FUNCTION wait_gate() RETURNS int LANGUAGE plpgsql PARALLEL RESTRICTED
  AS $$ BEGIN PERFORM 1 FROM gate; RETURN 0; END $$;
});

my $set = 'SET max_parallel_workers_per_gather = 2;';
my $q = 'SELECT k, i FROM t ORDER BY k, i';
my $native = $node->safe_psql('postgres', "SET srmsort.enabled = off; $q");
my $explain = "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)";

# with segments to be had, the workers run
my (undef, $plan, undef) = $node->psql('postgres', "$set $explain $q");
like($plan,
	qr/->  Gather[^\n]*\n.*Workers Planned: 2\n.*Workers Launched: [12]\n.*->  Parallel Custom Scan \(SRMSort\)/s,
	'the split ORDER BY, with workers')
  or diag($plan);

# take every slot: 600 subqueries, each a Gather (which launches no
# worker here), their segments held until the query ends
my $gate = $node->background_psql('postgres');
$gate->query_safe('BEGIN; LOCK gate IN ACCESS EXCLUSIVE MODE;');
my $hog = $node->background_psql('postgres', on_error_stop => 0);
my $sum = join(' + ', ('(SELECT count(*) FROM s)') x 600);
$hog->query_until(qr/started/,
	"\\echo started\n"
	  . "SET max_parallel_workers_per_gather = 1; SET parallel_setup_cost = 0;\n"
	  . "SET parallel_tuple_cost = 0; SET max_parallel_workers = 0;\n"
	  . "SELECT $sum + wait_gate() AS n;\n");
is(SrmTest::first_value($node,
		"SELECT 1 FROM pg_locks WHERE relation = 'gate'::regclass AND NOT granted"),
	'1', 'the session holding the slots waits');

# no segment now: a Gather of PostgreSQL's own gets no worker
like($node->safe_psql('postgres',
		"SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET max_parallel_workers_per_gather = 1;
		 $explain SELECT count(*) FROM s"),
	qr/Workers Planned: 1\n.*Workers Launched: 0\n/s,
	'every DSM slot is in use');

(undef, $plan, undef) = $node->psql('postgres', "$set $explain $q");
like($plan,
	qr/Custom Scan \(SRMSort\).*->  Gather[^\n]*\n.*Workers Planned: 2\n.*Workers Launched: 0\n.*->  Parallel Custom Scan \(SRMSort\)/s,
	'the split ORDER BY runs without a segment')
  or diag($plan);
my ($rc, $srm, $err) = $node->psql('postgres', "$set $q");
is($rc, 0, 'and succeeds') or diag($err);
ok($srm eq $native, 'with PostgreSQL\'s rows (30000)');

$gate->query_safe('COMMIT');
$gate->quit;
$hog->quit;

is($node->safe_psql('postgres', 'SELECT 1'), '1', 'the server is still up');
unlike(slurp_file($node->logfile),
	qr/terminated by signal|was terminated|PANIC|server process .* exited/,
	'no backend crashed');
is(scalar(SrmTest::temp_files($node)), 0, 'no workfile left');

$node->stop;
done_testing();
