# srmsort beside PostgreSQL's own asynchronous I/O (18 on): under each
# io_method the server offers (worker, io_uring where the server was built
# with liburing, sync), and with srmsort's own io_uring and sync I/O, an
# ORDER BY that spills and a CREATE INDEX give PostgreSQL's results, the
# index passes amcheck, and no workfile is left.  PostgreSQL's io_uring
# instances are set up by the postmaster for every backend; srmsort's ring
# is the backend's own, so the two must coexist in one process.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SrmTest;

my $probe = PostgreSQL::Test::Cluster->new('probe');
$probe->init;
$probe->start;
my $version = $probe->safe_psql('postgres', 'SHOW server_version_num');
my @methods = ();
if ($version >= 180000)
{
	my $enum = $probe->safe_psql('postgres',
		"SELECT array_to_string(enumvals, ' ') FROM pg_settings WHERE name = 'io_method'");
	@methods = split / /, $enum;
}
$probe->stop;
plan skip_all => "PostgreSQL " . int($version / 10000) . " has no io_method (18 and later do)"
  unless @methods;
ok((grep { $_ eq 'worker' } @methods), "io_method offers worker (@methods)");

for my $method (@methods)
{
	my $node = SrmTest::node("io_$method", extra_conf => qq{
io_method = $method
work_mem = '1MB'
maintenance_work_mem = '1MB'
shared_buffers = '16MB'
srmsort.min_work_mem = '64kB'
});
	is($node->safe_psql('postgres', 'SHOW io_method'), $method, "$method: the server runs with it");
	$node->safe_psql('postgres', q{
CREATE EXTENSION amcheck;
SELECT setseed(0.12);
CREATE TABLE t AS SELECT (random() * 1e9)::int8 AS k, md5(i::text) AS v
  FROM generate_series(1, 300000) i;
ANALYZE t;
});
	my $q = "SELECT md5(string_agg(k::text || v, ',')) FROM (SELECT * FROM t ORDER BY k, v) s";
	my $native = $node->safe_psql('postgres', "SET srmsort.enabled = off; $q");
	for my $srm_io ('io_uring', 'sync')
	{
		my $set = "SET srmsort.io_method = $srm_io; SET srmsort.tablespaces = 'srm_d0, srm_d1, srm_d2';";
		my $plan = $node->safe_psql('postgres',
			"$set EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM t ORDER BY k, v");
		like($plan, qr/Sort Method: external SRM merge/, "$method, srmsort $srm_io: the sort spills through srmsort");
		is($node->safe_psql('postgres', "$set $q"), $native,
			"$method, srmsort $srm_io: the rows and their order are PostgreSQL's");
		$node->safe_psql('postgres', "$set SET srmsort.trace = on; CREATE INDEX t_k ON t (k, v)");
		ok($node->log_contains(qr/srmsort: built index "t_k"/), "$method, srmsort $srm_io: srmsort built the index");
		is($node->safe_psql('postgres',
			"SELECT bt_index_parent_check('t_k', true, true)"), '',
			"$method, srmsort $srm_io: the index passes bt_index_parent_check");
		$node->safe_psql('postgres', 'DROP INDEX t_k');
		$node->rotate_logfile;
		$node->restart;
	}
	is(scalar(SrmTest::temp_files($node)), 0, "$method: no workfile left");
	$node->stop;
}
done_testing();
