# Parallel CREATE INDEX through srmsort (pbuild.c) beyond one session: the
# trace line names the participants and their runs, progress shows the
# btree phases, and a cancel or an error in a worker, a cancel of worker 0
# while it merges for the leader, a cancel of the leader and an immediate
# shutdown in the middle of a build leave no index and no workfile behind.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);
use SrmTest;

my $node = SrmTest::node('pindex', extra_conf =>
	  "maintenance_work_mem = '96MB'\nsrmsort.min_input_size = 0\n"
	  . "max_parallel_maintenance_workers = 2\nmin_parallel_table_scan_size = 0\n"
	  . "srmsort.trace = on\n"
	  . "srmsort.tablespaces = 'srm_d0, srm_d1, srm_d2, srm_d3'\n");
$node->safe_psql('postgres', q{
CREATE EXTENSION amcheck;
SELECT setseed(0.7);
CREATE TABLE t AS SELECT i, (random() * 1e9)::int8 AS a FROM generate_series(1, 300000) i;
VACUUM ANALYZE t;
});

# the trace line: participants and their runs, then the merge (the scan
# barrier gives every participant rows of its own, so that a worker that
# starts late on a busy machine still has its run)
$node->safe_psql('postgres',
	"SET srmsort.debug_scan_barrier = on; CREATE INDEX t_a ON t (a)");
$node->safe_psql('postgres',
	"SET srmsort.debug_scan_barrier = on; SET parallel_leader_participation = off;
	 CREATE UNIQUE INDEX t_i ON t (i)");
my $log = slurp_file($node->logfile);
like($log,
	qr/built index "t_a": 300000 tuples.*\n.*DETAIL:  Sort method external SRM merge, .*runs 3, .*; participants 3 \(2 workers and the leader\), runs per participant worker 0 1, worker 1 1, leader 1\./,
	'the build had three participants, one run each, merged by the leader');
like($log,
	qr/built index "t_i": 300000 tuples.*\n.*DETAIL: .*; participants 2 \(2 workers\), runs per participant worker 0 1, worker 1 1\./,
	'without the leader, two');
is($node->safe_psql('postgres',
		"SELECT bt_index_parent_check('t_a', true, true), bt_index_parent_check('t_i', true, true)"),
	'|', 'both indexes are valid');

# srmsort.parallel_build = off: the serial build
$node->safe_psql('postgres',
	"SET srmsort.parallel_build = off; CREATE INDEX t_a2 ON t (a)");
like(slurp_file($node->logfile), qr/built index "t_a2": 300000 tuples.*\n.*DETAIL: [^;\n]*input 300000 tuples of \d+ bytes\.\n/,
	'srmsort.parallel_build = off builds serially');

# progress, from another session, of a build slowed down by a slow opclass
SrmTest::create_slow_opclass($node);
$node->safe_psql('postgres',
	"CREATE TABLE s AS SELECT (random() * 1e6)::int AS k FROM generate_series(1, 20000) i;
	 VACUUM ANALYZE s");
my $bg = $node->background_psql('postgres', on_error_stop => 0);
# (the pause holds the leader between the participants' runs and its merge,
# in "sorting live tuples", long enough for the watcher on a busy machine)
$bg->query_until(qr/started/,
	"\\echo started\nSET srmsort.debug_merge_pause = 3000;\n"
	  . "CREATE INDEX s_k ON s (k slow_int_ops);\n");
my %seen = SrmTest::watch_progress($node, 's');
$bg->quit;
# (the participants sort while they scan)
ok(scalar(grep { /^CREATE INDEX\|building index: scanning table\|/ } keys %seen),
	'progress shows the parallel scan')
  or diag(join("\n", sort keys %seen));
ok(scalar(grep { /^CREATE INDEX\|building index: (sorting live tuples|loading tuples in tree)\|20000$/ } keys %seen),
	'and the leader\'s merge of all 20000 tuples')
  or diag(join("\n", sort keys %seen));
ok(scalar(grep { /^CREATE INDEX\|(initializing|building index: (initializing|scanning table|sorting live tuples|loading tuples in tree))\|/ } keys %seen)
	  == scalar(keys %seen), 'only btree build phases')
  or diag(join("\n", sort keys %seen));
is($node->safe_psql('postgres', "SELECT bt_index_parent_check('s_k', true, true)"), '', 's_k valid');
like(slurp_file($node->logfile), qr/built index "s_k": 20000 tuples.*\n.*participants 3 /,
	's_k was built in parallel');

# a cancel of a worker while the workers alone scan: the build fails, and
# nothing is left
$node->safe_psql('postgres',
	"CREATE TABLE sbig AS SELECT (random() * 1e6)::int AS k FROM generate_series(1, 40000) i;
	 VACUUM ANALYZE sbig");
$bg = $node->background_psql('postgres', on_error_stop => 0);
$bg->query_until(qr/started/,
	"\\echo started\nSET parallel_leader_participation = off;\nCREATE INDEX s_k2 ON sbig (k slow_int_ops);\n");
ok($node->poll_query_until('postgres',
		"SELECT count(*) > 0 FROM pg_stat_activity WHERE backend_type = 'parallel worker' AND query ~ 's_k2'"),
	'a worker is running');
usleep(200_000);
is($node->safe_psql('postgres',
		"SELECT bool_and(pg_cancel_backend(pid)) FROM (SELECT pid FROM pg_stat_activity
		   WHERE backend_type = 'parallel worker' AND query ~ 's_k2' LIMIT 1) w"),
	't', 'one worker canceled');
$bg->quit;
ok($node->poll_query_until('postgres',
		"SELECT count(*) = 0 FROM pg_stat_activity WHERE query ~ 's_k2' AND pid <> pg_backend_pid()"),
	'the build ended');
$log = slurp_file($node->logfile);
# (only the leader's lines carry the test's application_name)
like($log,
	qr/085_index_parallel\.pl ERROR:  canceling statement due to user request\n(?:.*\n)*?.*085_index_parallel\.pl STATEMENT:  CREATE INDEX s_k2/,
	'the leader failed with the worker\'s cancel')
  or diag(join("\n", grep { /s_k2|cancel|CONTEXT/ } split /\n/, $log));
is($node->safe_psql('postgres', "SELECT to_regclass('s_k2') IS NULL"), 't', 'no index left');
is(scalar(SrmTest::temp_files($node)), 0, 'no workfile left');

# an error in a worker likewise
my ($ret, $out, $err) = $node->psql('postgres',
	"SET parallel_leader_participation = off; CREATE INDEX t_err ON t ((1 / (i - 777)))");
like($err, qr/ERROR:  division by zero\nCONTEXT:  parallel worker/, 'an error in a worker fails the build');
is(scalar(SrmTest::temp_files($node)), 0, 'no workfile left after the error');

# a duplicate found by the leader's merge, after the workers are done
($ret, $out, $err) = $node->psql('postgres', "CREATE UNIQUE INDEX t_dup ON t ((i % 1000))");
like($err, qr/could not create unique index "t_dup"/, 'duplicate keys fail the build');
is(scalar(SrmTest::temp_files($node)), 0, 'no workfile left after the duplicate');

# a cancel of the leader (statement_timeout) while the workers scan
($ret, $out, $err) = $node->psql('postgres',
	"SET statement_timeout = '500ms'; CREATE INDEX s_k3 ON sbig (k slow_int_ops)");
like($err, qr/canceling statement due to statement timeout/, 'the leader was canceled');
is($node->safe_psql('postgres', "SELECT to_regclass('s_k3') IS NULL"), 't', 'no index left');
ok($node->poll_query_until('postgres',
		"SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type = 'parallel worker'"),
	'the workers are gone');
is(scalar(SrmTest::temp_files($node)), 0, 'no workfile left after the cancel');

# a cancel of worker 0 while it merges for the leader's load (the pause
# holds it before its merge; the other worker has exited): the build
# fails, and nothing is left
$bg = $node->background_psql('postgres', on_error_stop => 0);
$bg->query_until(qr/started/,
	"\\echo started\nSET srmsort.debug_merge_pause = 10000;\nCREATE INDEX s_k5 ON sbig (k);\n");
ok($node->poll_query_until('postgres',
		"SELECT (SELECT count(*) FROM pg_stat_activity
		          WHERE backend_type = 'parallel worker' AND query ~ 's_k5') = 1
		    AND (SELECT phase FROM pg_stat_progress_create_index) = 'building index: sorting live tuples'"),
	'worker 0 alone is left, merging, while the leader waits for its tuples');
is($node->safe_psql('postgres',
		"SELECT bool_and(pg_cancel_backend(pid)) FROM pg_stat_activity
		  WHERE backend_type = 'parallel worker' AND query ~ 's_k5'"),
	't', 'worker 0 canceled');
$bg->quit;
ok($node->poll_query_until('postgres',
		"SELECT count(*) = 0 FROM pg_stat_activity WHERE query ~ 's_k5' AND pid <> pg_backend_pid()"),
	'that build ended');
like(slurp_file($node->logfile),
	qr/085_index_parallel\.pl ERROR:  canceling statement due to user request\n(?:.*\n)*?.*085_index_parallel\.pl STATEMENT:  CREATE INDEX s_k5/,
	'the leader failed with worker 0\'s cancel');
is($node->safe_psql('postgres', "SELECT to_regclass('s_k5') IS NULL"), 't', 'no index left by it');
is(scalar(SrmTest::temp_files($node)), 0, 'no workfile left by it');

# an immediate shutdown while the build is about to merge the runs the
# participants wrote (held there by the pause, so that a fast machine or a
# busy one cannot finish the merge between two polls): after restart no
# index, no workfile, and a new build works
$bg = $node->background_psql('postgres', on_error_stop => 0);
$bg->query_until(qr/started/,
	"\\echo started\nSET srmsort.debug_merge_pause = 10000;\nCREATE INDEX s_k4 ON sbig (k slow_int_ops);\n");
ok($node->poll_query_until('postgres',
		"SELECT phase ~ '^building index: (sorting|loading)' FROM pg_stat_progress_create_index"),
	'a build is merging');
ok(scalar(SrmTest::temp_files($node)) > 0, 'with the participants\' workfiles');
$node->stop('immediate');
eval { $bg->quit; };
$node->start;
is($node->safe_psql('postgres', "SELECT to_regclass('s_k4') IS NULL"), 't', 'no index after the crash');
is(scalar(SrmTest::temp_files($node)), 0, 'no workfile after the crash');
$node->safe_psql('postgres', "CREATE INDEX s_k4 ON sbig (k)");
is($node->safe_psql('postgres', "SELECT bt_index_parent_check('s_k4', true, true)"), '', 'a new build works');

$node->stop;
done_testing();
