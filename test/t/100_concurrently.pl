# CREATE INDEX CONCURRENTLY and REINDEX CONCURRENTLY through srmsort beyond
# one session: builds (serial and parallel, btree and a sorted GiST build,
# also with max_parallel_maintenance_workers = 0) while pgbench clients insert,
# update and delete the table, then amcheck with heapallindexed and a count
# through each index equal to a sequential scan's; progress in
# pg_stat_progress_create_index as with PostgreSQL's build; a build failing
# on a duplicate inserted concurrently, and a canceled one, leave the same
# invalid index as PostgreSQL's, and no workfile.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SrmTest;

my $node = SrmTest::node('concurrently', extra_conf => qq{
maintenance_work_mem = '4MB'
srmsort.min_input_size = 0
max_parallel_maintenance_workers = 2
min_parallel_table_scan_size = 0
srmsort.trace = on
srmsort.tablespaces = 'srm_d0, srm_d1, srm_d2, srm_d3'
max_connections = 40
});
$node->safe_psql('postgres', q{
CREATE EXTENSION amcheck;
SELECT setseed(0.1);
CREATE TABLE t (id bigserial PRIMARY KEY, k int8, v text);
INSERT INTO t (k, v) SELECT (random() * 1e9)::int8, md5(i::text)
  FROM generate_series(1, 300000) i;
VACUUM ANALYZE t;
});

# pgbench: inserts, updates (of indexed columns, and HOT ones) and deletes
my $dir = SrmTest::abs_tempdir();
open(my $f, '>', "$dir/ins.sql") or die;
print $f "INSERT INTO t (k, v) SELECT (random() * 1e9)::int8, md5(random()::text) FROM generate_series(1, 5);\n";
close $f;
open($f, '>', "$dir/upd.sql") or die;
print $f "\\set id random(1, 300000)\n"
  . "UPDATE t SET k = k + 1, v = md5(v) WHERE id = :id;\n"
  . "UPDATE t SET id = id WHERE id = :id + 1;\n";
close $f;
open($f, '>', "$dir/del.sql") or die;
print $f "\\set id random(1, 300000)\nDELETE FROM t WHERE id BETWEEN :id AND :id + 2;\n";
close $f;

my ($out, $err) = ('', '');
my $pgbench = IPC::Run::start(
	[ 'pgbench', '-n', '-h', $node->host, '-p', $node->port,
	  '-c', '4', '-j', '2', '-T', '600', '-f', "$dir/ins.sql\@2",
	  '-f', "$dir/upd.sql\@2", '-f', "$dir/del.sql\@1", 'postgres' ],
	'>', \$out, '2>', \$err);
sleep 1;
my $id0 = $node->safe_psql('postgres', "SELECT last_value FROM t_id_seq");

# the builds, under that load: serial ones, then parallel ones
my @builds = (
	"CREATE INDEX CONCURRENTLY t_k ON t (k)",
	"CREATE UNIQUE INDEX CONCURRENTLY t_id2 ON t (id)",
	"CREATE INDEX CONCURRENTLY t_lv ON t (lower(v))",
	"CREATE INDEX CONCURRENTLY t_kp ON t (k) WHERE k < 300000000",
	"CREATE INDEX CONCURRENTLY t_kv ON t (k, v DESC) INCLUDE (id)",
	"REINDEX INDEX CONCURRENTLY t_k",
	"SET maintenance_work_mem = '96MB'; REINDEX TABLE CONCURRENTLY t",
	"SET maintenance_work_mem = '96MB'; CREATE INDEX CONCURRENTLY t_k2 ON t (k)",
	"SET max_parallel_maintenance_workers = 0; CREATE INDEX CONCURRENTLY t_k0 ON t (k)",
	"CREATE INDEX CONCURRENTLY t_g ON t USING gist (point(k, id))",
	"SET max_parallel_maintenance_workers = 0; REINDEX INDEX CONCURRENTLY t_g");
$node->safe_psql('postgres', $_) for @builds;

my $inserted = $node->safe_psql('postgres', "SELECT last_value FROM t_id_seq") - $id0;
# TERM, not INT: a job started in the background of a non-interactive
# shell (a CI runner) inherits SIGINT ignored, and pgbench would run to -T
$pgbench->kill_kill(grace => 5);
cmp_ok($inserted, '>', 100, "pgbench wrote during the builds ($inserted rows inserted)");
unlike($err, qr/ERROR|aborted/, "no client error") or diag($err);

my $log = slurp_file($node->logfile);
for my $idx (qw(t_k t_id2 t_lv t_kp t_kv t_k_ccnew t_pkey_ccnew t_k2 t_k0 t_g t_g_ccnew))
{
	like($log, qr/srmsort: built index "$idx": \d+ tuples/, "srmsort built $idx");
}
like($log, qr/built index "t_k2".*\n.*DETAIL: .*participants 3 \(2 workers and the leader\)/,
	'a parallel concurrent build');

# every index valid, holding every row, answering like a sequential scan
# (through it alone: the others dropped in a transaction rolled back)
my @checks = (
	[ 't_pkey', 'SELECT id FROM t ORDER BY id' ],
	[ 't_id2', 'SELECT id FROM t ORDER BY id' ],
	[ 't_k', 'SELECT k FROM t ORDER BY k' ],
	[ 't_k2', 'SELECT k FROM t ORDER BY k' ],
	[ 't_k0', 'SELECT k FROM t ORDER BY k' ],
	[ 't_lv', 'SELECT lower(v) FROM t ORDER BY lower(v)' ],
	[ 't_kp', 'SELECT k FROM t WHERE k < 300000000 ORDER BY k' ],
	[ 't_kv', 'SELECT k, v FROM t ORDER BY k, v DESC' ]);
my $noseq = "SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off;"
  . " SET LOCAL enable_sort = off; SET LOCAL enable_indexonlyscan = off;";
for my $c (@checks)
{
	my ($idx, $q) = @$c;
	my $drop = join('', map { $_->[0] eq 't_pkey' ? 'ALTER TABLE t DROP CONSTRAINT t_pkey; '
		  : "DROP INDEX $_->[0]; " } grep { $_->[0] ne $idx } @checks);
	my $agg = "SELECT count(*), md5(string_agg(x::text, ',')) FROM ($q) x";
	is($node->safe_psql('postgres',
			"SELECT indisvalid AND indisready FROM pg_index WHERE indexrelid = '$idx'::regclass;
			 SELECT bt_index_parent_check('$idx', true, true)"),
		"t\n", "$idx: valid, ready and sound (heapallindexed)");
	like($node->safe_psql('postgres',
			"BEGIN; $drop $noseq EXPLAIN (COSTS OFF) $q; ROLLBACK"),
		qr/Index Scan using $idx on t/, "$idx: the scan goes through it");
	is($node->safe_psql('postgres', "BEGIN; $drop $noseq $agg; ROLLBACK"),
		$node->safe_psql('postgres',
			"SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off; $agg"),
		"$idx: the same rows as a sequential scan");
}

# the GiST index: valid and ready, and answering like a sequential scan
is($node->safe_psql('postgres',
		"SELECT indisvalid AND indisready FROM pg_index WHERE indexrelid = 't_g'::regclass"),
	't', 't_g: valid and ready');
for my $box ('((0,0),(300000000,1000000000))', '((100000000,1000),(400000000,150000))',
	'((0,0),(1000000000,5000))')
{
	my $q = "SELECT count(*), md5(string_agg(id::text, ',' ORDER BY id)) FROM t"
	  . " WHERE point(k, id) <@ box '$box'";
	like($node->safe_psql('postgres',
			"SET enable_seqscan = off; SET enable_indexscan = off; EXPLAIN (COSTS OFF) $q"),
		qr/Bitmap Index Scan on t_g/, "t_g: the scan of $box goes through it");
	is($node->safe_psql('postgres', "SET enable_seqscan = off; SET enable_indexscan = off; $q"),
		$node->safe_psql('postgres', "SET enable_bitmapscan = off; SET enable_indexscan = off; $q"),
		"t_g: the rows in $box are a sequential scan's");
}

# progress: a build slowed down by a slow opclass, watched from another
# session, with PostgreSQL's build and with srmsort's
SrmTest::create_slow_opclass($node);
$node->safe_psql('postgres',
	"CREATE TABLE s AS SELECT i AS k FROM generate_series(1, 4000) i ORDER BY random();
	 VACUUM ANALYZE s");
my %seen;
for my $mode ('off', 'on')
{
	my $bg = $node->background_psql('postgres', on_error_stop => 0);
	$bg->query_until(qr/started/,
		"\\echo started\nSET srmsort.create_index = $mode;\n"
		  . "CREATE INDEX CONCURRENTLY s_k_$mode ON s (k slow_int_ops);\n");
	$seen{$mode} = { SrmTest::watch_progress($node, 's') };
	$bg->quit;
}
like($log = slurp_file($node->logfile), qr/built index "s_k_on"/, 'srmsort built s_k_on');
unlike($log, qr/built index "s_k_off"/, 'PostgreSQL built s_k_off');
ok($seen{on}{'CREATE INDEX CONCURRENTLY|building index: sorting live tuples|4000'},
	'progress shows the sort of all 4000 tuples')
  or diag(join("\n", sort keys %{ $seen{on} }));
my %phases = map { (split /\|/)[1] => 1 } (keys %{ $seen{off} }, keys %{ $seen{on} });
ok(scalar(grep { !/^(initializing|waiting for .*|building index(: .*)?|index validation: .*)$/ }
		  keys %phases) == 0, 'only PostgreSQL\'s phases of a concurrent btree build')
  or diag(join("\n", sort keys %phases));

# a duplicate inserted while the unique build runs: PostgreSQL's validation
# fails, leaving a ready but invalid index, with either build
my %flags;
for my $mode ('off', 'on')
{
	my $bg = $node->background_psql('postgres', on_error_stop => 0);
	$bg->query_until(qr/started/,
		"\\echo started\nSET srmsort.create_index = $mode;\n"
		  . "CREATE UNIQUE INDEX CONCURRENTLY s_u_$mode ON s (k slow_int_ops);\n"
		  . "\\echo finished\n");
	my $building = SrmTest::first_value($node,
		"SELECT pid FROM pg_stat_progress_create_index
		  WHERE relid = 's'::regclass AND phase LIKE 'building index:%'");
	ok($building ne '', "$mode: the unique build is running");
	$node->safe_psql('postgres', "INSERT INTO s VALUES (77)");
	$bg->query_until(qr/finished/, "");
	$bg->quit;
	like($bg->{stderr}, qr/ERROR:  duplicate key value violates unique constraint "s_u_$mode"\nDETAIL:  Key \(k\)=\(77\) already exists\./,
		"$mode: PostgreSQL's error") or diag($bg->{stderr});
	$flags{$mode} = $node->safe_psql('postgres',
		"SELECT indisvalid, indisready, indislive FROM pg_index WHERE indexrelid = 's_u_$mode'::regclass");
	# (a ready unique index would refuse the next round's duplicate)
	$node->safe_psql('postgres', "DROP INDEX s_u_$mode;
		DELETE FROM s WHERE ctid = (SELECT max(ctid) FROM s WHERE k = 77)");
}
is($flags{on}, $flags{off}, "the same index is left as PostgreSQL's ($flags{off})");
is($flags{on}, 'f|t|t', 'ready for inserts, not valid');
like(slurp_file($node->logfile), qr/built index "s_u_on"/, 'srmsort built s_u_on');
unlike(slurp_file($node->logfile), qr/built index "s_u_off"/, 'PostgreSQL built s_u_off');

# a cancel in the middle of the build: the same invalid index, no workfile
for my $mode ('off', 'on')
{
	my $bg = $node->background_psql('postgres', on_error_stop => 0);
	$bg->query_until(qr/started/,
		"\\echo started\nSET srmsort.create_index = $mode;\n"
		  . "CREATE INDEX CONCURRENTLY s_c_$mode ON s (k slow_int_ops);\n"
		  . "\\echo finished\n");
	my $pid = SrmTest::first_value($node,
		"SELECT pid FROM pg_stat_progress_create_index
		  WHERE relid = 's'::regclass AND phase = 'building index: sorting live tuples'");
	ok($pid ne '', "$mode: the build is sorting");
	$node->safe_psql('postgres', "SELECT pg_cancel_backend($pid)");
	$bg->query_until(qr/finished/, "");
	$bg->quit;
	like($bg->{stderr}, qr/ERROR:  canceling statement due to user request/, "$mode: canceled");
	$flags{$mode} = $node->safe_psql('postgres',
		"SELECT indisvalid, indisready, indislive, pg_relation_size(indexrelid)
		   FROM pg_index WHERE indexrelid = 's_c_$mode'::regclass");
}
is($flags{on}, $flags{off}, "a cancel leaves the same index as PostgreSQL's ($flags{off})");
is_deeply([ SrmTest::temp_files($node) ], [], "no workfile left");
ok(!$node->log_contains(qr/temporary file leak|WARNING|PANIC|TRAP/), "no warnings in the log");
$node->stop;
done_testing();
