# CREATE INDEX through srmsort beyond one session: the index survives an
# immediate shutdown right after the build, a streaming standby replays it
# from WAL, unlogged indexes are reset with their table, progress shows in
# pg_stat_progress_create_index, several merge passes show in the trace,
# cancels and errors leave no workfile and no index, and ALTER TABLE ...
# ADD PRIMARY KEY USING INDEX takes a unique index srmsort built.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SrmTest;

my $conf = "maintenance_work_mem = '1MB'\nsrmsort.min_input_size = 0\n"
  . "max_parallel_maintenance_workers = 0\n";
my $node = SrmTest::node('index',
	extra_conf => $conf . "srmsort.tablespaces = 'srm_d0, srm_d1, srm_d2, srm_d3'\n");
# fsync stays on: the build's own sync is part of what is tested
$node->append_conf('postgresql.conf', "fsync = on\n");
$node->restart;
$node->safe_psql('postgres', q{
CREATE EXTENSION amcheck;
SELECT setseed(0.3);
CREATE TABLE t AS SELECT i, (random() * 1e9)::int8 AS a, md5(i::text) AS b
  FROM generate_series(1, 300000) i;
CREATE UNLOGGED TABLE u AS SELECT * FROM t;
});

# a standby streaming from a primary (workfiles in its default tablespace:
# base backups of the test tablespaces would need mappings) replays srmsort's
# WAL-logged pages
my $primary = SrmTest::node('primary', tablespaces => 0, allows_streaming => 1,
	extra_conf => $conf);
$primary->safe_psql('postgres', q{
CREATE EXTENSION amcheck;
CREATE TABLE t AS SELECT i, (random() * 1e9)::int8 AS a FROM generate_series(1, 200000) i;
});
$primary->backup('b');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'b', has_streaming => 1);
$standby->start;
$primary->safe_psql('postgres', "CREATE INDEX t_a ON t (a); CREATE UNIQUE INDEX t_i ON t (i)");
is($primary->safe_psql('postgres', "SELECT sum(bytes_written) > 0 FROM srmsort_disks"), 't',
	'the primary built through srmsort (workfiles in the default tablespace)');
$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
is($standby->safe_psql('postgres',
		"SELECT bt_index_check('t_a', true), bt_index_check('t_i', true)"),
	'|', 'the standby has valid indexes');
my $q = "SELECT count(*), sum(a % 1000) FROM (SELECT a FROM t WHERE a < 3e8 ORDER BY a) s";
is($standby->safe_psql('postgres',
		"SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_sort = off; $q"),
	$primary->safe_psql('postgres', "SET enable_indexscan = off; SET enable_bitmapscan = off; $q"),
	'and they answer on the standby');
$standby->stop;
$primary->stop;

my $written = "SELECT coalesce(sum(bytes_written), 0) FROM srmsort_disks";
my $w0 = $node->safe_psql('postgres', $written);
$node->safe_psql('postgres', q{
SET srmsort.max_merge_order = 3;
SET srmsort.trace = on;
CREATE INDEX t_a ON t (a);
CREATE UNIQUE INDEX t_b ON t (b) INCLUDE (i);
CREATE INDEX u_a ON u (a);
});
ok($node->safe_psql('postgres', $written) > $w0, 'the builds ran through srmsort');
my $log = slurp_file($node->logfile);
like($log, qr/srmsort: built index "t_a": 300000 tuples, \d+ pages/, 'trace logs the build');
like($log, qr/built index "t_a".*\n.*DETAIL:  Sort method external SRM merge, disks 4 .*passes [2-9]/,
	'several merge passes at merge order 3');

# a build big enough for its run bookkeeping to be paged (1M tuples of
# about 50 bytes at 1MB): within the budget, and a valid index
$node->safe_psql('postgres', q{
CREATE TABLE pg1m AS SELECT (random() * 1e9)::int AS a, md5(i::text) AS t FROM generate_series(1, 1000000) i;
SET maintenance_work_mem = '1MB';
SET srmsort.trace = on;
CREATE INDEX pg1m_a ON pg1m (a) INCLUDE (t);
});
$log = slurp_file($node->logfile);
like($log, qr/built index "pg1m_a": 1000000 tuples.*\n.*DETAIL: .*memory peak (\d+) kB of 1024 kB, paged bookkeeping [1-9]\d* kB/,
	'a build with paged run bookkeeping');
my ($peak) = $log =~ /built index "pg1m_a".*\n.*DETAIL: .*memory peak (\d+) kB of 1024 kB/;
ok(defined $peak && $peak <= 1.1 * 1024, "its memory peak is within the budget + 10% ($peak kB of 1024 kB)");
is($node->safe_psql('postgres', "SELECT bt_index_parent_check('pg1m_a', true, true)"),
	'', 'and its index is valid');
$node->safe_psql('postgres', "DROP TABLE pg1m");

my $answer = "SELECT count(*), sum(a % 1000) FROM (SELECT a FROM t WHERE a < 3e8 ORDER BY a) s";
my $seq = $node->safe_psql('postgres', "SET enable_indexscan = off; SET enable_bitmapscan = off; $answer");
my $idx = $node->safe_psql('postgres',
	"SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_sort = off; $answer");
is($idx, $seq, 'index scan answers like a sequential scan');

# an immediate shutdown right after the build: crash recovery
$node->stop('immediate');
$node->start;
is($node->safe_psql('postgres',
		"SELECT bt_index_parent_check('t_a', true, true), bt_index_parent_check('t_b', true, true)"),
	'|', 'indexes valid after crash recovery');
is($node->safe_psql('postgres',
		"SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_sort = off; $answer"),
	$seq, 'and they answer after crash recovery');
# the unlogged table and its index were reset from the init fork
is($node->safe_psql('postgres', "SELECT count(*) FROM u"), '0', 'unlogged table reset');
$node->safe_psql('postgres', "INSERT INTO u SELECT * FROM t WHERE i <= 1000");
is($node->safe_psql('postgres',
		"SELECT bt_index_parent_check('u_a', true, true);
		 SET enable_seqscan = off; SET enable_bitmapscan = off;
		 SELECT count(*) FROM u WHERE a >= 0"),
	"\n1000", 'unlogged index usable after the reset');

# PRIMARY KEY from a unique index srmsort built
$node->safe_psql('postgres', q{
CREATE UNIQUE INDEX t_i ON t (i);
ALTER TABLE t ADD CONSTRAINT t_pkey PRIMARY KEY USING INDEX t_i;
});
is($node->safe_psql('postgres',
		"SELECT contype FROM pg_constraint WHERE conname = 't_pkey'"), 'p', 'primary key using the index');
my ($ret, $out, $err) = $node->psql('postgres', "INSERT INTO t VALUES (5, 1, 'x')");
like($err, qr/duplicate key value violates unique constraint "t_pkey"/, 'and it enforces uniqueness');

# progress: a build slowed down by a slow opclass, watched from another session
SrmTest::create_slow_opclass($node);
$node->safe_psql('postgres',
	"CREATE TABLE s AS SELECT (random() * 1e6)::int AS k FROM generate_series(1, 4000) i");
my $bg = $node->background_psql('postgres', on_error_stop => 0);
$bg->query_until(qr/started/, "\\echo started\nCREATE INDEX s_k ON s (k slow_int_ops);\n");
my %seen = SrmTest::watch_progress($node, 's');
$bg->quit;
ok($seen{'CREATE INDEX|building index: sorting live tuples|4000'},
	'progress shows the sort of all 4000 tuples')
  or diag(join("\n", sort keys %seen));
ok(scalar(grep { /^CREATE INDEX\|(initializing|building index: (initializing|scanning table|sorting live tuples|loading tuples in tree))\|/ } keys %seen)
	  == scalar(keys %seen), 'only btree build phases')
  or diag(join("\n", sort keys %seen));
is($node->safe_psql('postgres', "SELECT bt_index_parent_check('s_k', true, true)"), '', 's_k valid');

# REINDEX shows as REINDEX and rebuilds through srmsort
$w0 = $node->safe_psql('postgres', $written);
$node->safe_psql('postgres', "REINDEX TABLE t");
ok($node->safe_psql('postgres', $written) > $w0, 'REINDEX TABLE ran through srmsort');
is($node->safe_psql('postgres',
		"SELECT bt_index_parent_check('t_a', true, true), bt_index_parent_check('t_pkey', true, true)"),
	'|', 'reindexed indexes valid');

# a cancel in the middle of a build: no index, no workfile
$node->safe_psql('postgres',
	"CREATE TABLE sbig AS SELECT (random() * 1e6)::int AS k FROM generate_series(1, 40000) i");
($ret, $out, $err) = $node->psql('postgres',
	"SET statement_timeout = '300ms'; CREATE INDEX s_k2 ON sbig (k slow_int_ops)");
like($err, qr/canceling statement due to statement timeout/, 'the build was canceled');
is($node->safe_psql('postgres', "SELECT to_regclass('s_k2') IS NULL"), 't', 'no index left');
is(scalar(SrmTest::temp_files($node)), 0, 'no workfile left');

# an error in the build (duplicate) likewise
($ret, $out, $err) = $node->psql('postgres', "CREATE UNIQUE INDEX t_dup ON t ((i % 1000))");
like($err, qr/could not create unique index "t_dup"/, 'duplicate keys fail the build');
is(scalar(SrmTest::temp_files($node)), 0, 'no workfile left after the error');

# an immediate shutdown in the middle of a build: after restart no index,
# no workfile, and the table takes a new build
$bg = $node->background_psql('postgres', on_error_stop => 0);
$bg->query_until(qr/started/, "\\echo started\nCREATE INDEX s_k3 ON sbig (k slow_int_ops);\n");
# (the final merge streams into the loader: sorting or loading, both mid-sort)
ok($node->poll_query_until('postgres',
		"SELECT phase ~ '^building index: (sorting|loading)' FROM pg_stat_progress_create_index"),
	'a build is sorting');
$node->stop('immediate');
eval { $bg->quit; };
$node->start;
is($node->safe_psql('postgres', "SELECT to_regclass('s_k3') IS NULL"), 't', 'no index after the crash');
is(scalar(SrmTest::temp_files($node)), 0, 'no workfile after the crash');
$node->safe_psql('postgres', "CREATE INDEX s_k3 ON sbig (k)");
is($node->safe_psql('postgres', "SELECT bt_index_parent_check('s_k3', true, true)"), '', 'a new build works');

$node->stop;
done_testing();
