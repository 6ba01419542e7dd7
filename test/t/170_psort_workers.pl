# The split ORDER BY (psort.c) with more workers than its shared state
# holds: a table whose parallel_workers asks for more participants than
# there are shared file numbers.  The plan must ask for no more workers
# than the state holds, every launched worker must do no harm, the rows
# must be PostgreSQL's, and the server must stay up.  The table is small:
# the workers are many, their work is little.  (A high parallel_setup_cost
# keeps PostgreSQL from a Gather Merge of its own; srmsort's split plan
# follows the table's parallel_workers.)
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SrmTest;

# 125 workers and the leader fill the 127 shared file numbers with the
# leader's merge (SRM_MAX_SHARED_FILES in src/disks.h)
my $max = 125;
my $ask = 130;

my $node = SrmTest::node('psortworkers', extra_conf =>
	  "max_worker_processes = 140\nmax_parallel_workers = 140\n"
	  . "parallel_setup_cost = 1000000000\n"
	  . "min_parallel_table_scan_size = 0\nsrmsort.min_input_size = 0\n"
	  . "work_mem = '4MB'\n"
	  . "srmsort.tablespaces = 'srm_d0, srm_d1, srm_d2, srm_d3'\n");
$node->safe_psql('postgres', qq{
SELECT setseed(0.3);
CREATE TABLE t AS SELECT (random() * 1e9)::int8 AS k, i::int4 AS i
  FROM generate_series(1, 30000) i;
ALTER TABLE t SET (parallel_workers = $ask);
VACUUM ANALYZE t;
});

my $set = "SET max_parallel_workers_per_gather = $ask;";
my $q = "SELECT k, i FROM t ORDER BY k, i";

my $plan = $node->safe_psql('postgres', "$set EXPLAIN (COSTS OFF) $q");
like($plan, qr/Custom Scan \(SRMSort\)\n.*->  Gather\n.*Workers Planned: $max\n.*->  Parallel Custom Scan \(SRMSort\)/s,
	"the split ORDER BY plans $max workers, not $ask")
  or diag($plan);

# EXPLAIN ANALYZE shows every worker's facts under the participants' node
sub worker_lines
{
	my ($what) = @_;
	my $analyze = $node->safe_psql('postgres',
		"$set EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $q");
	my ($launched) = $analyze =~ /Workers Launched: (\d+)/;
	my $lines = () = $analyze =~ /^\s+Worker \d+: Sort Method/mg;
	cmp_ok($launched // 0, '>', 64, "more than 64 workers ran ($what)")
	  or diag($analyze);
	is($lines, $launched, "each has its line in EXPLAIN ANALYZE ($what)")
	  or diag($analyze);
}
worker_lines('the first run');

my $native = $node->safe_psql('postgres', "SET srmsort.enabled = off; $q");
my ($rc, $srm, $err) = $node->psql('postgres', "$set $q");
is($rc, 0, 'the split ORDER BY succeeds') or diag($err);
ok($srm eq $native, 'with PostgreSQL\'s rows (30000)');

# runs nobody explains leave nothing behind for a later EXPLAIN ANALYZE
$node->safe_psql('postgres', "$set $q") for 1 .. 3;
worker_lines('after runs without EXPLAIN');

is($node->safe_psql('postgres', 'SELECT 1'), '1', 'the server is still up');
my $log = slurp_file($node->logfile);
unlike($log, qr/terminated by signal|was terminated|PANIC|server process .* exited/,
	'no backend crashed');
is(scalar(SrmTest::temp_files($node)), 0, 'no workfile left');

$node->stop;
done_testing();
