# Concurrent sorts: the views show running jobs, partitions keep two sorts
# on different disks, counters return to zero after ends, errors and
# cancels; P is validated; without preloading srmsort still sorts (P = 1)
# and says what it is missing.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SrmTest;

my $node = SrmTest::node('conc',
	extra_conf => "work_mem = '512kB'\nclient_min_messages = warning\n");
$node->safe_psql('postgres', q{
SELECT setseed(0.2);
CREATE TABLE c AS SELECT (random() * 1e6)::int AS k, md5(i::text) AS t
  FROM generate_series(1, 20000) i;
ANALYZE c;
ALTER SYSTEM SET srmsort.tablespaces = 'srm_d0, srm_d1, srm_d2, srm_d3';
SELECT pg_reload_conf();
});
my $check = "SELECT sum(k::bigint) = (SELECT sum(k::bigint) FROM c) FROM (SELECT * FROM c ORDER BY t) s";

# Open a cursor whose sort has finished its runs and sits in the final merge.
sub open_sort
{
	my ($setup) = @_;
	my $bg = $node->background_psql('postgres', on_error_stop => 0);
	$bg->query_safe($setup) if $setup;
	$bg->query_safe("BEGIN; DECLARE cur NO SCROLL CURSOR FOR SELECT * FROM c ORDER BY t;");
	$bg->query_safe("FETCH 5 FROM cur;");
	return $bg;
}

# two concurrent sorts with two partitions land on different disks
$node->safe_psql('postgres', "ALTER SYSTEM SET srmsort.partitions = 2; SELECT pg_reload_conf();");
my $s1 = open_sort();
my $s2 = open_sort();
my $act = $node->safe_psql('postgres',
	"SELECT count(*), count(DISTINCT partition), min(disks), max(disks), min(phase)
	   FROM srmsort_activity");
is($act, "2|2|2|2|final merge", "two jobs in two partitions of two disks each");
my $disks = $node->safe_psql('postgres',
	"SELECT string_agg(tablespace || ':' || active_jobs || ':' || partition, ',' ORDER BY tablespace)
	   FROM srmsort_disks WHERE tablespace LIKE 'srm_d%'");
is($disks, "srm_d0:1:0,srm_d1:1:0,srm_d2:1:1,srm_d3:1:1", "each disk serves one job");
is($node->safe_psql('postgres',
	"SELECT string_agg(partition || ':' || disks || ':' || active_jobs, ',' ORDER BY partition)
	   FROM srmsort_partitions WHERE tablespaces LIKE 'srm_d%'"),
	"0:2:1,1:2:1", "per partition: two disks, one job each");
my $inflight = $node->safe_psql('postgres',
	"SELECT min(bytes_in_flight) >= 0, sum(bytes_in_flight) FROM srmsort_disks");
like($inflight, qr/^t\|\d+$/, "bytes in flight counted, never negative ($inflight)");
$s1->query_safe("CLOSE cur; COMMIT;");
$s2->query_safe("CLOSE cur; COMMIT;");
is($node->safe_psql('postgres', "SELECT count(*) FROM srmsort_activity"), '0', "jobs end with their cursors");
is($node->safe_psql('postgres',
	"SELECT coalesce(sum(active_jobs), 0) FROM srmsort_disks"), '0', "no active job counted");
is($node->safe_psql('postgres',
	"SELECT coalesce(sum(bytes_in_flight), 0) FROM srmsort_disks"), '0', "no bytes in flight after the jobs");
ok($node->safe_psql('postgres',
	"SELECT sum(bytes_written) > 0 AND sum(bytes_read) > 0 AND sum(writes) > 0 FROM srmsort_disks") eq 't',
	"bytes and operations are counted per disk");
ok($node->safe_psql('postgres',
	"SELECT bool_and(busy_ms > 0) FROM srmsort_disks WHERE tablespace LIKE 'srm_d%'") eq 't',
	"every disk accumulated busy time");

# a third job while two run takes the less loaded partition, and errors
# and cancels leave the counters at zero
$s1 = open_sort();
$s2 = open_sort("SET srmsort.partitions = 4;");
my $s3 = open_sort("SET srmsort.partitions = 4;");
is($node->safe_psql('postgres', "SELECT count(DISTINCT partition) FROM srmsort_activity"), '3',
	"least-loaded choice spreads three jobs");
$node->safe_psql('postgres', "SELECT pg_cancel_backend(pid) FROM srmsort_activity");
$s1->query("FETCH 1 FROM cur;");
$s2->query("FETCH 1 FROM cur;");
$s3->query("FETCH 1 FROM cur;");
$_->quit for ($s1, $s2, $s3);
ok($node->poll_query_until('postgres', "SELECT count(*) = 0 FROM srmsort_activity"),
	"no job left after cancels");
is($node->safe_psql('postgres', "SELECT min(active_jobs) >= 0 AND sum(active_jobs) = 0 FROM srmsort_disks"),
	't', "active job counts never negative, back to zero");
is($node->safe_psql('postgres', "SELECT min(bytes_in_flight) >= 0 AND sum(bytes_in_flight) = 0 FROM srmsort_disks"),
	't', "bytes in flight of canceled sorts given back");
my ($ret, $out, $err) = $node->psql('postgres',
	"SET srmsort.tablespaces = 'srm_d0'; SELECT count(*) FROM (SELECT * FROM c ORDER BY (k / 0)) s;");
like($err, qr/division by zero/, "an error in the child");
is($node->safe_psql('postgres', "SELECT count(*) FROM srmsort_activity"), '0', "no job after an error");
is_deeply([ SrmTest::temp_files($node) ], [], "no workfiles after cancels and errors");

# auto uses one partition when lightly loaded
$node->safe_psql('postgres', "ALTER SYSTEM SET srmsort.partitions = 'auto'; SELECT pg_reload_conf();");
$s1 = open_sort();
is($node->safe_psql('postgres', "SELECT disks FROM srmsort_activity"), '4', "auto at light load: all four disks");
$s1->query_safe("CLOSE cur; COMMIT;");
$s1->quit;

# P larger than the number of disks: one disk per partition, silently
($ret, $out, $err) = $node->psql('postgres', "SET srmsort.partitions = 5; $check");
is($out, 't', "P > D sorts");
is($err, '', "P > D says nothing to the client");
# one disk works with any P = 1
($ret, $out, $err) = $node->psql('postgres',
	"SET srmsort.tablespaces = 'srm_d2'; SET srmsort.partitions = 1; $check");
is($out, 't', "one disk works");

# reset is superuser only
$node->safe_psql('postgres', "CREATE ROLE bob LOGIN");
($ret, $out, $err) = $node->psql('postgres', "SELECT srmsort_stats_reset()",
	extra_params => [ '-U', 'bob' ]);
like($err, qr/permission denied for function srmsort_stats_reset/, "reset needs a superuser");
$node->safe_psql('postgres', "SELECT srmsort_stats_reset()");
is($node->safe_psql('postgres', "SELECT sum(bytes_written) FROM srmsort_disks"), '0', "reset zeroes the counters");
$node->stop;

# without shared_preload_libraries: sorting works, the server log (not the
# client) says what is missing
my $plain = SrmTest::node('plain', no_preload => 1, extra_conf => "work_mem = '64kB'\n");
my $so = SrmTest::so_path();
$plain->safe_psql('postgres', "CREATE TABLE c AS SELECT (random() * 1e6)::int AS k, md5(i::text) AS t FROM generate_series(1, 20000) i; ANALYZE c;");
($ret, $out, $err) = $plain->psql('postgres',
	"SET client_min_messages = notice; LOAD '$so'; SET srmsort.tablespaces = 'srm_d0, srm_d1'; $check; $check;");
is($out, "t\nt", "sorts work when the library is loaded with LOAD");
is($err, '', "nothing reaches the client");
my @n = (slurp_file($plain->logfile) =~ /LOG:  srmsort is not in shared_preload_libraries/g);
is(scalar(@n), 1, "one line in the server log per backend");
like(slurp_file($plain->logfile), qr/HINT:  Add srmsort to shared_preload_libraries/, "with a hint");
$plain->stop;

done_testing();
