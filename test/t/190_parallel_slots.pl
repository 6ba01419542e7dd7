# srmsort's parallel paths with many workers planned and few worker slots:
# btree builds (pbuild.c), GiST builds (their scan, pbuild.c, and their
# picksplit, gistsplit.c: two parallel contexts at once), CLUSTER
# (pcluster.c) and the split ORDER BY (psort.c), each planned with 16
# workers (max_parallel_maintenance_workers and
# max_parallel_workers_per_gather 16, the tables' parallel_workers 16)
# while max_worker_processes is 8 and max_parallel_workers is set to 0, 1
# and 3: none, one or a few of the planned workers launch, and the
# participants that do must divide the work among themselves.  Then four
# sessions run such builds and sorts at once, so that the slots run out
# under them, and a canceled build with 16 workers planned.  Every result
# is PostgreSQL's: btree pages item for item and amcheck with
# heapallindexed, GiST pages item for item, CLUSTER's table row for row,
# the ORDER BY's rows; no backend crashes, no workfile is left, no worker
# outlives its statement.  How many workers launch depends on the
# machine (a slot is free again only once the postmaster has reaped its
# worker): the test asserts only what holds for any number up to the cap.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use File::Basename qw(dirname);
use SrmTest;

my $node = SrmTest::node('pslots', extra_conf =>
	  "max_worker_processes = 8\nmax_parallel_workers = 8\n"
	  . "max_parallel_maintenance_workers = 16\nmax_parallel_workers_per_gather = 16\n"
	  # 32MB for each of 17 participants: plan_create_index_workers plans 16
	  . "maintenance_work_mem = '600MB'\n"
	  . "min_parallel_table_scan_size = 0\nsrmsort.min_input_size = 0\n"
	  # keeps PostgreSQL from a Gather Merge of its own (as 170_psort_workers)
	  . "parallel_setup_cost = 1000000000\nwork_mem = '1MB'\n"
	  # CLUSTER sorts (plan_cluster_use_sort) rather than scan the index
	  . "random_page_cost = 100\n"
	  # every launched participant scans a share, however late it starts
	  . "srmsort.debug_scan_barrier = on\n"
	  . "srmsort.trace = on\n"
	  . "srmsort.tablespaces = 'srm_d0, srm_d1, srm_d2, srm_d3'\n");
$node->safe_psql('postgres',
	slurp_file(dirname(__FILE__) . '/../../sql/05_helpers.sql'));

my $postgis = $node->safe_psql('postgres',
	"SELECT count(*) > 0 FROM pg_available_extensions WHERE name = 'postgis'") eq 't';

# the tables, each with 16 workers to plan; the reference indexes and the
# clustered table built by PostgreSQL
$node->safe_psql('postgres', q{
SELECT setseed(0.6);
CREATE TABLE t AS SELECT i, (random() * 1e9)::int8 AS a FROM generate_series(1, 200000) i;
CREATE TABLE g AS SELECT i, point(random() * 1000, random() * 1000) AS p
  FROM generate_series(1, 100000) i;
CREATE TABLE c_src AS SELECT k, i, repeat('x', i % 40) AS pad
  FROM (SELECT i, (random() * 1e9)::int8 * 100000 + i AS k FROM generate_series(1, 60000) i) s;
CREATE TABLE ps AS SELECT (random() * 1e5)::int8 AS k, i FROM generate_series(1, 100000) i;
ALTER TABLE t SET (parallel_workers = 16);
ALTER TABLE g SET (parallel_workers = 16);
ALTER TABLE ps SET (parallel_workers = 16);
VACUUM ANALYZE t, g, c_src, ps;
SET srmsort.enabled = off;
CREATE INDEX t_native ON t (a, i);
CREATE UNIQUE INDEX u_native ON t (i);
CREATE INDEX g_native ON g USING gist (p);
CREATE TABLE c_native AS SELECT * FROM c_src;
CREATE INDEX c_native_k ON c_native (k);
CLUSTER c_native USING c_native_k;
-- a btree index checked: amcheck, PostgreSQL's pages
CREATE FUNCTION chk_bt(idx regclass, ref regclass) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  PERFORM bt_index_parent_check(idx, true, true);
  IF srm_index_pages_diff(ref, idx) <> 0 THEN
    RAISE EXCEPTION '% is not %', idx, ref;
  END IF;
  RETURN true;
END $$;
CREATE FUNCTION chk_gist(idx regclass, ref regclass) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  IF srm_gist_pages_diff(ref, idx) <> 0 THEN
    RAISE EXCEPTION '% is not %', idx, ref;
  END IF;
  RETURN true;
END $$;
-- a table clustered: PostgreSQL's rows in PostgreSQL's order
CREATE FUNCTION chk_cluster(tbl regclass) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE d bigint;
BEGIN
  -- the tables' order: one process reads each (no Gather)
  PERFORM set_config('max_parallel_workers_per_gather', '0', true);
  EXECUTE format('SELECT count(*) FROM (SELECT row_number() OVER () r, k, i, pad FROM %s) a
                  FULL JOIN (SELECT row_number() OVER () r, k, i, pad FROM c_native) b USING (r)
                  WHERE (a.k, a.i, a.pad) IS DISTINCT FROM (b.k, b.i, b.pad)', tbl) INTO d;
  IF d <> 0 THEN
    RAISE EXCEPTION '% is not clustered as c_native: % rows differ', tbl, d;
  END IF;
  RETURN true;
END $$;
});
if ($postgis)
{
	$node->safe_psql('postgres', q{
CREATE EXTENSION postgis;
CREATE TABLE gg AS SELECT i, ST_MakePoint(random() * 1000, random() * 1000) AS geom
  FROM generate_series(1, 60000) i;
ALTER TABLE gg SET (parallel_workers = 16);
VACUUM ANALYZE gg;
SET srmsort.enabled = off;
CREATE INDEX gg_native ON gg USING gist (geom);
});
}

my $sortq = 'SELECT k, i FROM ps ORDER BY k, i';
my $native_rows = $node->safe_psql('postgres', "SET srmsort.enabled = off; $sortq");
# the same rows, hashed under an aggregate, checked in SQL: an error if not
my $native_hash = $node->safe_psql('postgres',
	"SET srmsort.enabled = off; SELECT md5(string_agg(k || ':' || i, ',')) FROM ($sortq OFFSET 0) s");
my $hashq = "SELECT 1 / (md5(string_agg(k || ':' || i, ',')) = '$native_hash')::int FROM ($sortq OFFSET 0) s";
like($node->safe_psql('postgres', "EXPLAIN (COSTS OFF) $hashq"),
	qr/Custom Scan \(SRMSort\)\n.*->  Gather\n.*Workers Planned: 16\n.*->  Parallel Custom Scan \(SRMSort\)/s,
	'the hash of the rows reads a split ORDER BY of 16 workers');

# the trace of the build statements since $at: for each index (or table),
# its workers launched, or "serial"
sub launched
{
	my ($at, $name) = @_;
	my $log = substr(slurp_file($node->logfile), $at);
	my ($line, $detail) = $log =~ /(srmsort: (?:built index|sorted table) "$name"[^\n]*)\n([^\n]*)/;
	return 'none' unless defined $detail;
	return $detail =~ /participants \d+ \((\d+) workers/ ? $1 : 'serial';
}

for my $mpw (0, 1, 3)
{
	my $set = "SET max_parallel_workers = $mpw;";
	my $at = -s $node->logfile;

	# btree, unique btree, with and without the leader
	is($node->safe_psql('postgres', "$set
		CREATE INDEX t_$mpw ON t (a, i);
		CREATE UNIQUE INDEX u_$mpw ON t (i);
		SET parallel_leader_participation = off;
		CREATE INDEX tn_$mpw ON t (a, i);
		SELECT chk_bt('t_$mpw', 't_native') AND chk_bt('u_$mpw', 'u_native')
		   AND chk_bt('tn_$mpw', 't_native');
		DROP INDEX t_$mpw, u_$mpw, tn_$mpw;"),
		't', "max_parallel_workers = $mpw: btree builds are PostgreSQL's");

	# GiST: the scan's workers, then the picksplit's, from the same slots
	is($node->safe_psql('postgres', "$set
		CREATE INDEX g_$mpw ON g USING gist (p);
		SET parallel_leader_participation = off;
		CREATE INDEX gn_$mpw ON g USING gist (p);
		SELECT chk_gist('g_$mpw', 'g_native') AND chk_gist('gn_$mpw', 'g_native');
		DROP INDEX g_$mpw, gn_$mpw;"),
		't', "max_parallel_workers = $mpw: GiST builds are PostgreSQL's");
	if ($postgis)
	{
		is($node->safe_psql('postgres', "$set
			CREATE INDEX gg_$mpw ON gg USING gist (geom);
			SELECT chk_gist('gg_$mpw', 'gg_native');
			DROP INDEX gg_$mpw;"),
			't', "max_parallel_workers = $mpw: PostGIS GiST build is PostgreSQL's");
	}

	# CLUSTER of a copy in the source's order
	is($node->safe_psql('postgres', "$set
		CREATE TABLE c_$mpw AS SELECT * FROM c_src;
		ALTER TABLE c_$mpw SET (parallel_workers = 16);
		CREATE INDEX c_${mpw}_k ON c_$mpw (k);
		ANALYZE c_$mpw;
		CLUSTER c_$mpw USING c_${mpw}_k;
		SELECT chk_cluster('c_$mpw');
		DROP TABLE c_$mpw;"),
		't', "max_parallel_workers = $mpw: CLUSTER gives PostgreSQL's table");

	# what launched: never more than the slots allow, none without any
	for my $name ("t_$mpw", "u_$mpw", "tn_$mpw", "g_$mpw", "gn_$mpw", "c_$mpw")
	{
		my $n = launched($at, $name);
		if ($mpw == 0)
		{
			# (without the leader too: no worker, so a serial build)
			is($n, 'serial', "max_parallel_workers = 0: $name is sorted serially");
		}
		else
		{
			ok($n eq 'serial' || ($n ne 'none' && $n <= $mpw),
				"max_parallel_workers = $mpw: $name had at most $mpw workers ($n)");
		}
	}
	my $log = substr(slurp_file($node->logfile), $at);
	my @split = $log =~ /leaf batches divided by (\d+) worker/g;
	ok(!grep({ $_ > $mpw || $_ == 0 } @split),
		"max_parallel_workers = $mpw: the GiST picksplit had no more than $mpw workers, and some where it had any (@split)");
	is(scalar(@split), 0, 'max_parallel_workers = 0: no GiST picksplit in workers')
	  if $mpw == 0;

	# the split ORDER BY: 16 planned, at most $mpw launched
	my $plan = $node->safe_psql('postgres',
		"$set EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $sortq");
	my ($launched) = $plan =~ /Workers Planned: 16\n\s*Workers Launched: (\d+)\n/;
	ok(defined $launched && $launched <= $mpw,
		"max_parallel_workers = $mpw: the split ORDER BY plans 16 workers, launches at most $mpw")
	  or diag($plan);
	my ($rc, $rows, $err) = $node->psql('postgres', "$set $sortq");
	ok($rc == 0 && $rows eq $native_rows,
		"max_parallel_workers = $mpw: the split ORDER BY returns PostgreSQL's rows")
	  or diag($err);
	($rc, $rows, $err) = $node->psql('postgres',
		"$set SET parallel_leader_participation = off; $sortq");
	ok($rc == 0 && $rows eq $native_rows,
		"max_parallel_workers = $mpw: without the leader too")
	  or diag($err);

	is(scalar(SrmTest::temp_files($node)), 0, "max_parallel_workers = $mpw: no workfile left");
}

# four sessions at once, each planning 16 workers for every statement,
# eight slots between them: each checks its own results, and fails (psql
# stops at the error) if one is wrong
my $dir = PostgreSQL::Test::Utils::tempdir();
my $sessions_at = -s $node->logfile;
my @runs;
for my $s (0 .. 3)
{
	my $sql = "\\set ON_ERROR_STOP on\n"
	  . "CREATE TABLE c_s$s AS SELECT * FROM c_src;\n"
	  . "ALTER TABLE c_s$s SET (parallel_workers = 16);\n"
	  . "CREATE INDEX c_s${s}_k ON c_s$s (k);\n"
	  . "ANALYZE c_s$s;\n";
	for my $round (1 .. 2)
	{
		$sql .= "CREATE INDEX t_s$s ON t (a, i);\n"
		  . "SELECT chk_bt('t_s$s', 't_native');\n"
		  . "DROP INDEX t_s$s;\n"
		  . "CREATE INDEX g_s$s ON g USING gist (p);\n"
		  . "SELECT chk_gist('g_s$s', 'g_native');\n"
		  . "DROP INDEX g_s$s;\n"
		  . "CLUSTER c_s$s USING c_s${s}_k;\n"
		  . "SELECT chk_cluster('c_s$s');\n"
		  . "$hashq;\n";
		$sql .= "CREATE INDEX gg_s$s ON gg USING gist (geom);\n"
		  . "SELECT chk_gist('gg_s$s', 'gg_native');\n"
		  . "DROP INDEX gg_s$s;\n"
		  if $postgis;
	}
	$sql .= "DROP TABLE c_s$s;\n";
	open(my $fh, '>', "$dir/s$s.sql") or die "cannot write $dir/s$s.sql: $!";
	print $fh $sql;
	close($fh);
	my ($out, $err) = ('', '');
	my $h = IPC::Run::start(
		[ 'psql', '-X', '-q', '-d', $node->connstr('postgres'), '-f', "$dir/s$s.sql" ],
		'>', \$out, '2>', \$err);
	push @runs, [ $h, \$out, \$err ];
}
for my $s (0 .. 3)
{
	my ($h, $out, $err) = @{ $runs[$s] };
	$h->finish;
	is($h->result(0), 0, "session $s: every build and sort right while the slots ran out")
	  or diag($$err);
}
my $slog = substr(slurp_file($node->logfile), $sessions_at);
for my $s (0 .. 3)
{
	my $n = () = $slog =~ /srmsort: (?:built index "[tg]_s$s"|sorted table "c_s$s")/g;
	is($n, 6, "session $s: its builds and CLUSTERs went through srmsort");
}

# a GiST build with 16 workers planned, canceled while worker 0 waits
# before its merge: it ends, and leaves nothing.  (A build that found no
# free slot, the workers of the sessions above not yet reaped, runs
# serially in memory and ends: then again.)
my $caught = 0;
for my $try (1 .. 5)
{
	my $bg = $node->background_psql('postgres', on_error_stop => 0);
	$bg->query_until(qr/started/,
		"\\echo started\nSET srmsort.debug_merge_pause = 600000;\n"
		  . "CREATE INDEX g_cancel ON g USING gist (p);\n");
	$node->poll_query_until('postgres',
		"SELECT count(*) > 0 FROM pg_stat_activity
		  WHERE backend_type = 'parallel worker' AND query ~ 'g_cancel'
		 OR NOT EXISTS (SELECT FROM pg_stat_activity
		                 WHERE query ~ '^CREATE INDEX g_cancel' AND state = 'active')");
	$caught = $node->safe_psql('postgres',
		"SELECT count(*) > 0 FROM pg_stat_activity
		  WHERE backend_type = 'parallel worker' AND query ~ 'g_cancel'") eq 't';
	if ($caught)
	{
		$node->safe_psql('postgres',
			"SELECT pg_cancel_backend(pid) FROM pg_stat_activity
			  WHERE backend_type = 'client backend' AND query ~ '^CREATE INDEX g_cancel'");
	}
	ok($node->poll_query_until('postgres',
			"SELECT count(*) = 0 FROM pg_stat_activity
		  WHERE query ~ 'g_cancel' AND state <> 'idle' AND pid <> pg_backend_pid()"),
		"try $try: the build ended" . ($caught ? ', canceled, with its workers' : ''));
	$bg->quit;
	last if $caught;
	$node->safe_psql('postgres', 'DROP INDEX IF EXISTS g_cancel');
}
ok($caught, 'a GiST build with workers was canceled');
is($node->safe_psql('postgres', "SELECT to_regclass('g_cancel') IS NULL"), 't', 'no index left');

is($node->safe_psql('postgres', 'SELECT 1'), '1', 'the server is up');
unlike(slurp_file($node->logfile),
	qr/terminated by signal|was terminated|PANIC|TRAP|server process .* exited/,
	'no backend crashed');
ok($node->poll_query_until('postgres',
		"SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type = 'parallel worker'"),
	'no worker left');
is(scalar(SrmTest::temp_files($node)), 0, 'no workfile left');

$node->stop;
done_testing();
