# Faults: cancels in each phase, a terminated backend while the client
# reads, kill -9 in the middle of a merge (crash restart) -- with the
# default striping and I/O mode, then with unequal weights and direct I/O
# --, io_uring forbidden, privileges.  After every one: no workfile left,
# the server and the next sort work.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SrmTest;

my $node = SrmTest::node('faults',
	extra_conf => "work_mem = '64kB'\nclient_min_messages = warning\nrestart_after_crash = on\n");
SrmTest::create_slow_opclass($node);
$node->safe_psql('postgres', q{
SELECT setseed(0.1);
CREATE TABLE f AS SELECT (random() * 1e6)::int AS k, md5(i::text) AS t
  FROM generate_series(1, 20000) i;
ANALYZE f;
ALTER SYSTEM SET srmsort.tablespaces = 'srm_d0, srm_d1, srm_d2, srm_d3';
SELECT pg_reload_conf();
});

my $slow = "SELECT count(*) FROM (SELECT * FROM f ORDER BY k USING <<<) s";
my $check = "SELECT sum(k::bigint) = (SELECT sum(k::bigint) FROM f) FROM (SELECT * FROM f ORDER BY k) s";

# Cancel a slow sort once it has reached the given phase.
sub cancel_in_phase
{
	my ($phase) = @_;
	my $bg = $node->background_psql('postgres', on_error_stop => 0);
	$bg->query_until(qr/started/, "\\echo started\n$slow;\n");
	ok( $node->poll_query_until('postgres',
			"SELECT count(*) > 0 FROM srmsort_activity WHERE phase = '$phase'"),
		"sort reached phase '$phase'");
	ok(scalar(SrmTest::temp_files($node)) > 0, "workfiles exist in phase '$phase'");
	$node->safe_psql('postgres',
		"SELECT pg_cancel_backend(pid) FROM srmsort_activity");
	my $res = $bg->query("SELECT 1;");
	$bg->quit;
	ok( $node->poll_query_until('postgres',
			"SELECT count(*) = 0 FROM srmsort_activity"),
		"no job left after a cancel in '$phase'");
	is_deeply([ SrmTest::temp_files($node) ], [], "no workfile left after a cancel in '$phase'");
	is($node->safe_psql('postgres', $check), 't', "the next sort works after a cancel in '$phase'");
}

# Every fault twice: with the defaults (striping by measured weights,
# buffered), and with given, unequal weights and direct I/O.
for my $round ('defaults', 'weights and direct I/O')
{
	note("faults with $round");
	if ($round ne 'defaults')
	{
		$node->safe_psql('postgres', q{
ALTER SYSTEM SET srmsort.disk_weights = 'srm_d0:1, srm_d1:3, srm_d2:2, srm_d3:4';
ALTER SYSTEM SET srmsort.direct_io = on;
SELECT pg_reload_conf();
});
	}
	cancel_in_phase('writing runs');

	# The final merge while the client reads slowly (a sleep per row above
	# the sort): the sort sits in its final merge until the cancel.
	sub slow_reader
	{
		my $bg = $node->background_psql('postgres', on_error_stop => 0);
		$bg->query_safe("BEGIN; DECLARE cur NO SCROLL CURSOR FOR "
			  . "SELECT k, pg_sleep(0.001) FROM (SELECT * FROM f ORDER BY t) s;");
		$bg->query_until(qr/started/, "\\echo started\nFETCH ALL FROM cur;\n");
		ok( $node->poll_query_until('postgres',
				"SELECT count(*) > 0 FROM srmsort_activity WHERE phase = 'final merge'"),
			"sort reached its final merge");
		ok(scalar(SrmTest::temp_files($node)) > 0, "workfiles exist in the final merge");
		return $bg;
	}
	{
		my $bg = slow_reader();
		$node->safe_psql('postgres', "SELECT pg_cancel_backend(pid) FROM srmsort_activity");
		$bg->query("ROLLBACK;");
		$bg->quit;
		ok( $node->poll_query_until('postgres', "SELECT count(*) = 0 FROM srmsort_activity"),
			"no job left after a cancel in the final merge");
		is_deeply([ SrmTest::temp_files($node) ], [], "no workfile left after a cancel in the final merge");
		is($node->safe_psql('postgres', $check), 't', "the next sort works");
	}

	# With a few intermediate passes (tiny memory, many runs).
	{
		my $bg = $node->background_psql('postgres', on_error_stop => 0);
		$bg->query_until(qr/started/,
			"\\echo started\nSET srmsort.max_merge_order = 2;\n$slow;\n");
		ok( $node->poll_query_until('postgres',
				"SELECT count(*) > 0 FROM srmsort_activity WHERE phase = 'merging'"),
			"sort reached an intermediate merge pass");
		$node->safe_psql('postgres', "SELECT pg_cancel_backend(pid) FROM srmsort_activity");
		$bg->query("SELECT 1;");
		$bg->quit;
		$node->poll_query_until('postgres', "SELECT count(*) = 0 FROM srmsort_activity");
		is_deeply([ SrmTest::temp_files($node) ], [], "no workfile left after a cancel in a merge pass");
	}

	# pg_terminate_backend while the client reads slowly through a cursor.
	{
		my $bg = $node->background_psql('postgres', on_error_stop => 0);
		$bg->query_safe("BEGIN; DECLARE c NO SCROLL CURSOR FOR SELECT * FROM f ORDER BY t;");
		$bg->query_safe("FETCH 10 FROM c;");
		ok(scalar(SrmTest::temp_files($node)) > 0, "workfiles exist while the cursor is open");
		for my $f (SrmTest::temp_files($node))
		{
			my $mode = (stat($f))[2] & 07777;
			is(sprintf("%04o", $mode), '0600', "workfile $f is private to the server");
		}
		my $pid = $node->safe_psql('postgres', "SELECT pid FROM srmsort_activity");
		$node->safe_psql('postgres', "SELECT pg_terminate_backend($pid)");
		$bg->{run}->finish;
		ok( $node->poll_query_until('postgres', "SELECT count(*) = 0 FROM srmsort_activity"),
			"terminated job is gone");
		# the job leaves first (an exit callback), the files with the
		# backend's abort, after its I/O in flight is drained
		ok( $node->poll_query_until('postgres',
				"SELECT count(*) = 0 FROM pg_stat_activity WHERE pid = $pid"),
			"terminated backend is gone");
		is_deeply([ SrmTest::temp_files($node) ], [], "no workfile left after pg_terminate_backend");
	}

	# kill -9 in the middle of a merge: the postmaster restarts, temp files go.
	{
		my $bg = slow_reader();
		my $pid = $node->safe_psql('postgres', "SELECT pid FROM srmsort_activity");
		ok(scalar(SrmTest::temp_files($node)) > 0, "workfiles exist before kill -9");
		kill 'KILL', $pid;
		eval { $bg->quit; };
		ok($node->poll_query_until('postgres', "SELECT 1", "1"), "server restarted after kill -9");
		is_deeply([ SrmTest::temp_files($node) ], [], "crash restart removed every workfile");
		is($node->safe_psql('postgres', $check), 't', "sorting works after the crash restart");
		is($node->safe_psql('postgres', "SELECT count(*) FROM srmsort_activity"), '0',
			"no stale job after the crash restart");
	}
}
$node->safe_psql('postgres', q{
ALTER SYSTEM RESET srmsort.disk_weights;
ALTER SYSTEM RESET srmsort.direct_io;
SELECT pg_reload_conf();
});

# io_uring forbidden (srmsort.debug_fail_io_uring, as a kernel that refuses
# it): one warning, synchronous I/O, correct result.
{
	my ($ret, $out, $err) = $node->psql('postgres',
		"SET srmsort.debug_fail_io_uring = on; $check; $check;");
	is($out, "t\nt", "sorts work with io_uring unavailable");
	my @warnings = ($err =~ /could not set up io_uring, using synchronous I\/O/g);
	is(scalar(@warnings), 1, "exactly one warning per backend");
	like($err, qr/HINT:.*io_uring_disabled/, "the warning has a hint");
}

# Privileges: CREATE on each tablespace is needed; an interactive SET
# refuses a tablespace without it (as for temp_tablespaces), while at use
# such a tablespace is skipped without a word, as PostgreSQL skips it in
# temp_tablespaces: the sort must not fail where PostgreSQL's would not.
{
	$node->safe_psql('postgres', q{
CREATE ROLE alice LOGIN;
GRANT SELECT ON f TO alice;
GRANT CREATE ON TABLESPACE srm_d0 TO alice;
});
	my ($ret, $out, $err) = $node->psql('postgres',
		"SET srmsort.tablespaces = 'srm_d1';", extra_params => [ '-U', 'alice' ]);
	like($err, qr/Permission denied to create files in tablespace "srm_d1"/,
		"SET refuses a tablespace without CREATE");
	($ret, $out, $err) = $node->psql('postgres',
		"SET srmsort.tablespaces = 'srm_d0'; $check;", extra_params => [ '-U', 'alice' ]);
	is($out, 't', "a permitted tablespace works for a non-superuser");
	# the right is revoked after the setting was accepted: skipped at use
	$node->safe_psql('postgres', "ALTER ROLE alice SET srmsort.tablespaces = 'srm_d0, srm_d1'");
	$node->safe_psql('postgres', "REVOKE CREATE ON TABLESPACE srm_d0 FROM alice");
	($ret, $out, $err) = $node->psql('postgres', $check, extra_params => [ '-U', 'alice' ]);
	is($out, 't', "a sort with revoked tablespaces in the setting works");
	is($err, '', "and says nothing to the client");
	($ret, $out, $err) = $node->psql('postgres', "SET srmsort.random_seed = 1;",
		extra_params => [ '-U', 'alice' ]);
	like($err, qr/permission denied to set parameter "srmsort.random_seed"/,
		"superuser-only settings stay superuser-only");
	is_deeply([ SrmTest::temp_files($node) ], [], "no workfile left after refusals");
}

# A tablespace dropped after being configured: skipped at use, as
# temp_tablespaces skips it; the sort falls back to temp_tablespaces.
{
	my ($ret, $out, $err) = $node->psql('postgres',
		"SET srmsort.tablespaces = 'srm_d3'; DROP TABLESPACE srm_d3; $check;");
	is($out, 't', "a dropped tablespace in the setting does not fail the sort");
	is($err, '', "and says nothing to the client");
}

$node->stop;
done_testing();
