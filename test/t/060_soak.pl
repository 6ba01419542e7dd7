# Soak: many clients sorting at once (spilling ORDER BY and merge joins
# through srmsort, CREATE INDEX on scratch tables, sorts canceled while
# they form runs or merge), every result checked inside the pgbench script
# against the native answer or with amcheck; afterwards no workfile, no job
# and no error left, and a long-lived backend's memory stays flat over many
# sorts.  The test command runs 10 transactions per client (a count, not
# a time: on a busy machine a time would let too few run to see each
# script); --long (SRMSORT_LONG=1) runs 30 minutes.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SrmTest;

# -T for the long soak, -t otherwise (see above)
my @span = $ENV{SRMSORT_LONG} ? ('-T', 1800) : ('-t', 10);
my $node = SrmTest::node('soak', extra_conf => qq{
work_mem = '256kB'
max_connections = 40
client_min_messages = warning
srmsort.tablespaces = 'srm_d0, srm_d1, srm_d2, srm_d3'
srmsort.partitions = auto
});
$node->safe_psql('postgres', q{
SELECT setseed(0.9);
CREATE TABLE s AS SELECT i AS k, md5(i::text) AS t, (random() * 500)::int AS g
  FROM (SELECT i FROM generate_series(1, 60000) i ORDER BY random()) x;
CREATE TABLE j AS SELECT (random() * 500)::int AS g, i AS y FROM generate_series(1, 20000) i;
ANALYZE s, j;
CREATE EXTENSION amcheck;
});

# order-sensitive checksums, computed by PostgreSQL's own sort
my $sort_q = "SELECT sum(k::bigint * r) AS got FROM (SELECT k, row_number() OVER () AS r FROM (SELECT k FROM s ORDER BY t) o) x";
my $join_q = "SELECT count(*) AS got FROM s JOIN j USING (g)";
my $sort_sum = $node->safe_psql('postgres', "SET srmsort.enabled = off; $sort_q");
my $join_cnt = $node->safe_psql('postgres', "SET srmsort.enabled = off; $join_q");

my $dir = SrmTest::abs_tempdir();
open(my $f1, '>', "$dir/sort.sql") or die;
print $f1 "$sort_q \\gset\n\\if :got != $sort_sum\nSELECT 'sort checksum mismatch'::int;\n\\endif\n";
close $f1;
open(my $f2, '>', "$dir/join.sql") or die;
print $f2 "SET enable_hashjoin = off;\nSET enable_nestloop = off;\n$join_q \\gset\n"
  . "\\if :got != $join_cnt\nSELECT 'join count mismatch'::int;\n\\endif\n";
close $f2;

# an index build on the client's own scratch table, checked by amcheck
open(my $f3, '>', "$dir/index.sql") or die;
print $f3 "SET maintenance_work_mem = '1MB';\nSET srmsort.min_input_size = 0;\n"
  . "DROP TABLE IF EXISTS sc_:client_id;\n"
  . "CREATE TABLE sc_:client_id AS SELECT k, t FROM s WHERE k % 3 = :client_id % 3;\n"
  . "CREATE INDEX ON sc_:client_id (t, k);\n"
  . "SELECT bt_index_parent_check(indexrelid::regclass, true, true) FROM pg_index\n"
  . "  WHERE indrelid = ('sc_' || :client_id)::regclass;\n";
close $f3;
# a sort canceled at a random row of its input (runs being formed) or of
# its output (the final merge), caught, in a subtransaction.  The backend
# cancels itself from inside the block: a statement timeout could also fire
# just outside it (the sort done a moment before, or a starved backend
# during the next statement), failing the transaction at random.
open(my $f4, '>', "$dir/cancel.sql") or die;
print $f4 "DO \$\$ DECLARE n int := 1 + (random() * 117000)::int;\n"
  . "BEGIN\n"
  . "  IF n <= 58500 THEN\n"
  . "    PERFORM count(*) FROM (SELECT * FROM s WHERE CASE WHEN k = n\n"
  . "      THEN pg_cancel_backend(pg_backend_pid()) ELSE true END ORDER BY t) x;\n"
  . "  ELSE\n"
  . "    PERFORM count(*) FROM (SELECT k FROM s ORDER BY t OFFSET 0) o WHERE CASE WHEN k = n - 58500\n"
  . "      THEN pg_cancel_backend(pg_backend_pid()) ELSE true END;\n"
  . "  END IF;\n"
  . "  RAISE EXCEPTION 'the sort was not canceled (row %)', n;\n"
  . "EXCEPTION WHEN query_canceled THEN NULL; END \$\$;\n";
close $f4;

# a long-lived backend's memory before and after many sorts
my $bg = $node->background_psql('postgres', on_error_stop => 0);
my $rss = "SELECT substring(pg_read_file('/proc/self/status') FROM 'VmRSS:\\s+([0-9]+)')::int";
$bg->query_safe("$sort_q;") for 1 .. 5;
my $rss_before = $bg->query_safe($rss);

my ($out, $err) = ('', '');
my $ok = IPC::Run::run(
	[ 'pgbench', '-n', '-M', 'simple', '-h', $node->host, '-p', $node->port,
	  '-c', '16', '-j', '2', @span, '-f', "$dir/sort.sql\@3",
	  '-f', "$dir/join.sql\@1", '-f', "$dir/index.sql\@1",
	  '-f', "$dir/cancel.sql\@1", 'postgres' ],
	'>', \$out, '2>', \$err);
ok($ok, "pgbench ran (@span) without a failed transaction") or diag("$out\n$err");
my ($done) = $out =~ /number of transactions actually processed: (\d+)/;
ok(defined $done && $done > 0,
	"sorts, joins, index builds and cancels ran concurrently: " . ($done // 0) . " transactions");
like($out, qr/index\.sql\n - weight: .*\n - [1-9]\d* transactions/, "index builds ran")
  or diag($out);
like($out, qr/cancel\.sql\n - weight: .*\n - [1-9]\d* transactions/,
	"sorts were canceled while forming runs or merging") or diag($out);
unlike($err, qr/mismatch|ERROR/, "every checksum matched the native answer");

$bg->query_safe("$sort_q;") for 1 .. 30;
my $rss_after = $bg->query_safe($rss);
$bg->quit;
cmp_ok($rss_after - $rss_before, '<', 20000,
	"backend memory flat over 30 more sorts ($rss_before kB -> $rss_after kB)");
is($node->safe_psql('postgres', "SELECT count(*) FROM srmsort_activity"), '0', "no job left");
is($node->safe_psql('postgres', "SELECT coalesce(sum(active_jobs), 0) FROM srmsort_disks"), '0',
	"no active job counted on any disk");
is_deeply([ SrmTest::temp_files($node) ], [], "no workfile left");
ok(!$node->log_contains(qr/temporary file leak|WARNING|PANIC|TRAP/), "no leak warnings in the log");
$node->stop;
done_testing();
