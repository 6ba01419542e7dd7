# GiST sorted builds in parallel workers: the participants scan and sort
# their shares of the table (pbuild.c), worker 0 merges them, and the
# leaf picksplit runs in a second context's workers (gistsplit.c).  With
# workers forced (max_parallel_maintenance_workers = 2,
# min_parallel_table_scan_size = 0, maintenance_work_mem for three
# participants), srmsort's pages are PostgreSQL's (pageinspect's
# gist_page_items, flags and right links) and byte for byte those of
# srmsort's serial build (but for the LSN and checksum), also with NULLs,
# an expression, a predicate and broken HOT chains (indcheckxmin as
# PostgreSQL sets it); the trace says how many tuples each participant
# scanned and how many batches each worker and the leader divided, index
# scans answer as sequential scans do, and amcheck's gist_index_check
# passes where it exists.  A support function that is not PARALLEL SAFE,
# or srmsort.parallel_build = off, keeps the build (or its scan) serial;
# an error in a worker's scan or split fails the build with PostgreSQL's
# serial build's error, leaving nothing behind.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use File::Basename qw(dirname);
use SrmTest;

my $node = SrmTest::node('gistpar', extra_conf =>
	  "maintenance_work_mem = '96MB'\nsrmsort.min_input_size = 0\n"
	  . "max_parallel_maintenance_workers = 2\nmin_parallel_table_scan_size = 0\n"
	  . "srmsort.trace = on\n"
	  # every participant scans a share, however late its process starts
	  . "srmsort.debug_scan_barrier = on\n"
	  . "srmsort.tablespaces = 'srm_d0, srm_d1, srm_d2, srm_d3'\n");
$node->safe_psql('postgres',
	slurp_file(dirname(__FILE__) . '/../../sql/05_helpers.sql'));
$node->safe_psql('postgres', q{
SELECT setseed(0.3);
CREATE TABLE gp AS
SELECT i, point(random() * 1000, random() * 1000) AS p,
       point((i % 300) / 10, (i % 7)) AS pd,
       CASE WHEN i % 11 <> 0 THEN point(random() * 1000, random() * 1000) END AS pn
  FROM generate_series(1, 200000) i;
VACUUM ANALYZE gp;
-- the bytes of every page after its LSN and checksum
CREATE FUNCTION raw_pages(a regclass) RETURNS TABLE (blkno int, body bytea)
LANGUAGE sql AS $$
  SELECT b, substr(get_raw_page(a::text, b), 11)
    FROM generate_series(0, (pg_relation_size(a) / 8192)::int - 1) b
$$;
CREATE FUNCTION raw_diff(a regclass, b regclass) RETURNS bigint
LANGUAGE sql AS $$
  SELECT count(*) FROM raw_pages(a) x FULL JOIN raw_pages(b) y USING (blkno)
   WHERE x.body IS DISTINCT FROM y.body
$$;
});

my $gist_check = $node->safe_psql('postgres',
	"SELECT count(*) > 0 FROM pg_proc WHERE proname = 'gist_index_check'") eq 't';

# Build stmt (%s: the index's name) by PostgreSQL, by srmsort serially and
# by srmsort with workers (settings: more for the last; nscan: the
# participants expected to scan); compare.
sub check
{
	my ($name, $stmt, $queries, $settings, $nscan) = @_;
	$settings //= '';
	$nscan //= 3;
	my $native = "${name}_native";
	my $serial = "${name}_serial";
	my $par = "${name}_par";
	$node->safe_psql('postgres',
		"SET srmsort.create_index = off; " . sprintf($stmt, $native));
	$node->safe_psql('postgres',
		"SET srmsort.parallel_build = off; " . sprintf($stmt, $serial));
	my $log_at = -s $node->logfile;
	$node->safe_psql('postgres', $settings . sprintf($stmt, $par));
	my $log = substr(slurp_file($node->logfile), $log_at);

	my ($w0, $w1, $leader) = $log =~
	  /built index "$par": \d+ tuples.*\n.*DETAIL: .*; leaf batches divided by 2 workers \(worker 0 (\d+), worker 1 (\d+)\) and the leader (\d+)\./;
	ok(defined $w0, "$name: the trace names the workers' divisions")
	  or diag($log);
	$w0 //= 0; $w1 //= 0; $leader //= 0;
	# the leader divides only when both workers have 4 batches in flight
	ok($w0 >= 4 && $w1 >= 4, "$name: each worker divided batches ($w0, $w1, leader $leader)");

	# the scan's participants: each scanned a share, together every row
	my ($total, $nparts, $shares) = $log =~
	  /built index "$par": (\d+) tuples.*\n.*DETAIL: .*; participants (\d+) \([^)]*\), runs per participant [^;]*, tuples per participant ([^;]*); leaf batches/;
	ok(defined $shares, "$name: the trace names the scan's participants")
	  or diag($log);
	my %share = map { /^(.*) (\d+)$/ ? ($1 => $2) : () } split /, /, ($shares // '');
	is($nparts, $nscan, "$name: $nscan participants scanned");
	is(scalar(keys %share), $nscan, "$name: each reported its share ($shares)");
	ok(!grep({ $_ == 0 } values %share), "$name: each scanned some");
	my $sum = 0;
	$sum += $_ for values %share;
	is($sum, $total // -1, "$name: the shares add up to the index's tuples");

	is($node->safe_psql('postgres',
			"SELECT srm_gist_pages_diff('$native', '$par'), srm_gist_pages_diff('$native', '$serial'),
			        raw_diff('$serial', '$par')"),
		'0|0|0', "$name: PostgreSQL's pages, and the serial build's bytes");
	if ($gist_check)
	{
		is($node->safe_psql('postgres', "SELECT gist_index_check('$par', true)"), '',
			"$name: gist_index_check");
	}
	my $arr = 'ARRAY[' . join(', ', map { my $q = $_; $q =~ s/'/''/g; "'$q'" } @$queries) . ']';
	$node->safe_psql('postgres', "DROP INDEX $native, $serial");
	is($node->safe_psql('postgres',
			"SELECT srm_index_answers($arr) = srm_index_answers($arr, seqscan => true)"),
		't', "$name: index scans answer as sequential scans");
	$node->safe_psql('postgres', "DROP INDEX $par");
	return ($w0, $w1, $leader);
}

check('gp_p', 'CREATE INDEX %s ON gp USING gist (p)', [
	'SELECT i, p FROM gp WHERE p <@ box \'((100,100),(140,130))\' ORDER BY i',
	'SELECT i, p <-> point \'(500,500)\' FROM gp ORDER BY p <-> point \'(500,500)\' LIMIT 200' ]);
check('gp_multi', 'CREATE INDEX %s ON gp USING gist (pd, p) INCLUDE (i)', [
	'SELECT i FROM gp WHERE pd ~= point \'(7,1)\' AND p <@ box \'((0,0),(500,500))\' ORDER BY i' ]);
my (undef, undef, $leader) = check('gp_noleader', 'CREATE INDEX %s ON gp USING gist (p)',
	[ 'SELECT i FROM gp WHERE p <@ box \'((10,10),(30,40))\' ORDER BY i' ],
	'SET parallel_leader_participation = off; ', 2);
is($leader, 0, 'parallel_leader_participation = off: the leader divides none');
# NULLs (last, in the sort), an expression, a predicate: in the workers
check('gp_nulls', 'CREATE INDEX %s ON gp USING gist (pn)', [
	'SELECT i, pn FROM gp WHERE pn <@ box \'((100,100),(160,130))\' ORDER BY i',
	'SELECT count(*) FROM gp WHERE pn IS NULL' ]);
check('gp_expr', 'CREATE INDEX %s ON gp USING gist (point(p[0] + i % 5, p[1] - i % 3))', [
	'SELECT i FROM gp WHERE point(p[0] + i % 5, p[1] - i % 3) <@ box \'((100,100),(150,140))\' ORDER BY i' ]);
check('gp_part', 'CREATE INDEX %s ON gp USING gist (p) WHERE i % 3 <> 0', [
	'SELECT i FROM gp WHERE p <@ box \'((300,300),(350,340))\' AND i % 3 <> 0 ORDER BY i' ]);

# broken HOT chains: rows HOT-updated while an older snapshot can still see
# their old versions; the build skips those and sets indcheckxmin, as
# PostgreSQL's (parallel) scan does
$node->safe_psql('postgres', q{
CREATE TABLE gh WITH (fillfactor = 50) AS
SELECT i, point(random() * 1000, random() * 1000) AS p FROM generate_series(1, 100000) i;
VACUUM ANALYZE gh;
});
my $holder = $node->background_psql('postgres');
$holder->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM gh');
$node->safe_psql('postgres',
	'UPDATE gh SET p = point(p[1], p[0]) WHERE i % 4 = 0');
my $log_at = -s $node->logfile;
$node->safe_psql('postgres', q{
SET srmsort.create_index = off; CREATE INDEX gh_native ON gh USING gist (p);
RESET srmsort.create_index; CREATE INDEX gh_par ON gh USING gist (p);
});
like(substr(slurp_file($node->logfile), $log_at),
	qr/built index "gh_par".*\n.*DETAIL: .*participants 3 .*tuples per participant/,
	'gh: the scan was parallel');
is($node->safe_psql('postgres',
		"SELECT string_agg(indexrelid::regclass::text || ' ' || indcheckxmin, ', ' ORDER BY indexrelid::regclass::text)
		   FROM pg_index WHERE indrelid = 'gh'::regclass"),
	'gh_native true, gh_par true', 'gh: broken HOT chains set indcheckxmin, as for PostgreSQL');
is($node->safe_psql('postgres', "SELECT srm_gist_pages_diff('gh_native', 'gh_par')"),
	'0', "gh: PostgreSQL's pages");
$holder->query_safe('COMMIT');
$holder->quit;

# serial builds: srmsort.parallel_build = off, a support function not
# PARALLEL SAFE
$log_at = -s $node->logfile;
$node->safe_psql('postgres', q{
SET srmsort.parallel_build = off;
CREATE INDEX gp_s1 ON gp USING gist (p);
RESET srmsort.parallel_build;
ALTER FUNCTION gist_point_compress(internal) PARALLEL RESTRICTED;
CREATE INDEX gp_s2 ON gp USING gist (p);
ALTER FUNCTION gist_point_compress(internal) PARALLEL SAFE;
SET srmsort.create_index = off;
CREATE INDEX gp_s3 ON gp USING gist (p);
});
my $log = substr(slurp_file($node->logfile), $log_at);
like($log, qr/built index "gp_s1".*\n.*DETAIL: [^\n]*input 200000 tuples of \d+ bytes\.\n/,
	'srmsort.parallel_build = off: no workers');
like($log, qr/built index "gp_s2".*\n.*DETAIL: [^\n]*input 200000 tuples of \d+ bytes\.\n/,
	'a PARALLEL RESTRICTED support function: no workers');
is($node->safe_psql('postgres',
		"SELECT srm_gist_pages_diff('gp_s3', 'gp_s1'), srm_gist_pages_diff('gp_s3', 'gp_s2')"),
	'0|0', 'and the same pages');

# an error in a worker (srmsort.debug_gist_split_fail: its third batch)
# fails the build as an error of PostgreSQL's serial build would: no
# CONTEXT line naming a parallel worker, no index left
my ($ret, $out, $err) = $node->psql('postgres',
	"SET srmsort.debug_gist_split_fail = 3; CREATE INDEX gp_fail ON gp USING gist (p)");
like($err, qr/ERROR:  srmsort: debug_gist_split_fail at batch 3/,
	'an error in a worker fails the build');
unlike($err, qr/parallel worker/, 'and names no parallel worker');
is($node->safe_psql('postgres', "SELECT count(*) FROM pg_class WHERE relname = 'gp_fail'"),
	'0', 'no index left');

# an error in the workers' scan (an expression failing on some rows; the
# leader does not scan): PostgreSQL's serial build's error, no more
my $bad = 'CREATE INDEX gp_bad ON gp USING gist (point(p[0], 1 / (i % 5000)))';
my (undef, undef, $err_native) = $node->psql('postgres',
	"SET srmsort.create_index = off; $bad");
$log_at = -s $node->logfile;
($ret, $out, $err) = $node->psql('postgres',
	"SET parallel_leader_participation = off; $bad");
like($err_native, qr/ERROR:  division by zero/, "PostgreSQL's build fails");
is($err, $err_native, "an error in a worker's scan: PostgreSQL's error, no parallel worker");
# (the server log has the worker's error, then the leader's)
my @raised = substr(slurp_file($node->logfile), $log_at) =~ /ERROR:  division by zero/g;
cmp_ok(scalar(@raised), '>=', 2, '(which a worker raised)');
is($node->safe_psql('postgres', "SELECT count(*) FROM pg_class WHERE relname = 'gp_bad'"),
	'0', 'no index left');

# nothing left behind: no parallel worker, no temporary file
is($node->safe_psql('postgres',
		"SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'parallel worker'"),
	'0', 'no worker left');
is(scalar(SrmTest::temp_files($node)), 0, 'no workfile left');

$node->stop;
done_testing();
