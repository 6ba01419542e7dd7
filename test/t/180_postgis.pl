# GiST sorted builds of PostGIS geometry (gist_geometry_ops_2d, whose
# sortsupport orders keys on a Hilbert curve) through srmsort: points and
# small polygons, NULLs, empty geometries, duplicates, two columns, an
# expression and a partial index.  Each index is built by PostgreSQL
# (srmsort.create_index = off) and by srmsort with the shared helper
# srm_index_check (sql/05_helpers.sql), which says
#   via_srmsort: srmsort's workfile disks were written during the build,
#   identical:   every page of the two indexes holds the same items
#                (pageinspect's gist_page_items),
#   answers:     every query returns the same rows through PostgreSQL's
#                index, through srmsort's and by a sequential scan;
# srmsort's trace names the index it built, every query returns rows, and
# the planner answers each one through the index (else the comparison
# would compare a sequential scan with itself).  Then: the picksplit in
# parallel workers (the scan and the sort, then the picksplit),
# page-identical too; CREATE INDEX and REINDEX CONCURRENTLY, with workers
# and without, page-identical; a build that fails in an expression, serial or in a
# worker, gives PostgreSQL's error and leaves nothing behind.
#
# Needs PostGIS, which test/run_tests.sh installs where Debian ships it for
# the server (SRMSORT_POSTGIS); skipped where it does not (19).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use File::Basename qw(dirname);
use SrmTest;

my $postgis = $ENV{SRMSORT_POSTGIS} // '';
plan skip_all => $1 if $postgis =~ /^skip:(.*)/;
my $sharedir = `pg_config --sharedir`;
chomp $sharedir;
if (!-f "$sharedir/extension/postgis.control")
{
	# run by test/run_tests.sh, which installed PostGIS: its absence fails
	plan skip_all => "PostGIS is not installed for this server ($sharedir)"
	  if $postgis ne 'yes';
}

my $node = SrmTest::node('postgis');
$node->safe_psql('postgres', 'CREATE EXTENSION postgis');
# the helpers of the regression tests (srm_index_check and its parts)
$node->safe_psql('postgres',
	slurp_file(dirname(__FILE__) . '/../../sql/05_helpers.sql'));

# what every session of the test sets: srmsort's external sort at 1MB on
# four disks, its trace to the client
my $set = q{
SET client_min_messages = log;
SET maintenance_work_mem = '1MB';
SET srmsort.min_input_size = 0;
SET srmsort.tablespaces = 'srm_d0, srm_d1, srm_d2, srm_d3';
SET srmsort.random_seed = 1;
SET srmsort.trace = on;
SET extra_float_digits = 3;
};

sub lit
{
	my ($s) = @_;
	$s =~ s/'/''/g;
	return "'$s'";
}

# gd: distinct keys.  Coordinates are multiples of 1/64 below 1563, exact
# in the float4 boxes GiST keeps, and no two rows share an x (7919 and
# 104729 permute the residues of the prime 100003), so no two points and
# no two polygons' centres are equal: no ties in the sort.
$node->safe_psql('postgres', q{
CREATE TABLE gd AS
SELECT i, ST_MakePoint(x, y) AS pt,
       CASE WHEN i % 2 = 0 THEN ST_Expand(ST_MakePoint(x, y), (i % 4 + 1) / 8.0)
            ELSE ST_Buffer(ST_MakePoint(x, y), (i % 5 + 1) / 8.0, 2) END AS poly
  FROM (SELECT i, (i::int8 * 7919 % 100003) / 64.0 AS x, (i::int8 * 104729 % 100003) / 64.0 AS y
          FROM generate_series(1, 80000) i) s;
VACUUM ANALYZE gd;
});
is( $node->safe_psql('postgres',
		'SELECT count(DISTINCT ST_X(pt)) = count(*) AND count(DISTINCT (ST_XMin(poly) + ST_XMax(poly), ST_YMin(poly) + ST_YMax(poly))) = count(*) FROM gd'),
	't', 'gd: every point and every polygon centre differ');

# gm: mixed points and polygons, every 13th row NULL, every 29th an empty
# geometry, every 7th one of three geometries repeated (keys equal)
$node->safe_psql('postgres', q{
SELECT setseed(0.4);
CREATE TABLE gm AS
SELECT i,
       CASE WHEN i % 13 = 0 THEN NULL
            WHEN i % 29 = 0 THEN (ARRAY['POINT EMPTY', 'POLYGON EMPTY'])[1 + i % 2]::geometry
            WHEN i % 7 = 0 THEN (ARRAY['POINT(500 500)', 'POINT(10 990)',
                                       'POLYGON((100 100, 120 100, 110 130, 100 100))'])[1 + i % 3]::geometry
            WHEN i % 2 = 0 THEN ST_MakePoint(random() * 1000, random() * 1000)
            ELSE ST_Expand(ST_MakePoint(random() * 1000, random() * 1000), random() * 3) END AS g
  FROM generate_series(1, 80000) i;
VACUUM ANALYZE gm;
});

my $env = "ST_MakeEnvelope(200, 300, 260, 340)";
# a point inside row 4242's polygon, near its centre
my $inside = sprintf("ST_MakePoint(%.6f, %.6f)",
	(4242 * 7919 % 100003) / 64.0 + 0.01, (4242 * 104729 % 100003) / 64.0 - 0.01);
my $poly = "'POLYGON((600 600, 700 610, 650 700, 600 600))'::geometry";

# Build with srm_index_check, then make sure the comparison meant
# something: every query returns rows, and uses the index.
sub check
{
	my ($name, $stmt, $queries, %opt) = @_;
	my $want = $opt{want} // 't|t|t';
	my $arr = 'ARRAY[' . join(', ', map { lit($_) } @$queries) . ']::text[]';
	my ($ret, $out, $err) = $node->psql('postgres',
		"$set SELECT via_srmsort, identical, answers FROM srm_index_check("
		  . lit($stmt) . ", $arr, seqscan => true)");
	is($ret, 0, "$name: built") or diag($err);
	# '*': not asserted (two of PostgreSQL's own builds of one PostGIS
	# index differ when they are not sorted ones)
	my $re = join('\\|', map { $_ eq '*' ? '[tf]' : $_ } split /\|/, $want);
	like($out, qr/^$re$/, "$name: via srmsort, page-identical, same answers (via|identical|answers)");
	my @built = $err =~ /srmsort: built index "([^"]+)"/g;
	is( join(' ', @built),
		$want =~ /^t/ ? 'srm_idx_srm' : '',
		"$name: srmsort's trace names " . ($want =~ /^t/ ? 'its build alone' : 'no build'));

	my $idx = $stmt;
	$idx =~ s/%I/srm_probe/;
	$idx =~ s/%%/%/g;
	my $counts = join(', ', map { "(SELECT count(*) > 0 FROM ($_) t)" } @$queries);
	is( $node->safe_psql('postgres', "SET srmsort.create_index = off; $idx; SELECT $counts"),
		join('|', ('t') x @$queries), "$name: every query returns rows");
	for my $q (@$queries)
	{
		my $plan = $node->safe_psql('postgres', "SET enable_seqscan = off; SET enable_bitmapscan = off;
SET enable_sort = off; EXPLAIN (COSTS OFF) $q");
		like($plan, qr/Index (?:Only )?Scan (?:Backward )?using srm_probe/,
			"$name: the index answers: $q") or diag($plan);
	}
	$node->safe_psql('postgres', 'DROP INDEX srm_probe');
}

# distinct points and polygons: bounding boxes, containment both ways,
# distance, nearest neighbours (distances only: ties make ids ambiguous)
check('points', 'CREATE INDEX %I ON gd USING gist (pt)', [
	"SELECT i FROM gd WHERE pt && $env ORDER BY i",
	"SELECT i FROM gd WHERE ST_Contains($poly, pt) ORDER BY i",
	"SELECT i FROM gd WHERE ST_Within(pt, $poly) ORDER BY i",
	"SELECT i FROM gd WHERE ST_DWithin(pt, 'POINT(1000 400)'::geometry, 25) ORDER BY i",
	"SELECT pt <-> 'POINT(777 333)'::geometry AS d FROM gd ORDER BY pt <-> 'POINT(777 333)'::geometry LIMIT 300",
]);
check('polygons', 'CREATE INDEX %I ON gd USING gist (poly)', [
	"SELECT i FROM gd WHERE poly && $env ORDER BY i",
	"SELECT i FROM gd WHERE ST_Contains(poly, $inside) ORDER BY i",
	"SELECT i FROM gd WHERE ST_Within(poly, $poly) ORDER BY i",
	"SELECT i FROM gd WHERE ST_Contains($poly, poly) ORDER BY i",
	"SELECT poly <-> 'POINT(10 1500)'::geometry AS d FROM gd ORDER BY poly <-> 'POINT(10 1500)'::geometry LIMIT 300",
]);
# two columns, an expression, a partial index
check('two columns', 'CREATE INDEX %I ON gd USING gist (pt, poly)', [
	"SELECT i FROM gd WHERE pt && ST_MakeEnvelope(0, 0, 400, 400) AND poly && $env ORDER BY i",
	"SELECT i FROM gd WHERE ST_Within(pt, $poly) ORDER BY i",
]);
check('an expression', 'CREATE INDEX %I ON gd USING gist (ST_Centroid(poly))', [
	"SELECT i FROM gd WHERE ST_Centroid(poly) && $env ORDER BY i",
	"SELECT i FROM gd WHERE ST_Within(ST_Centroid(poly), $poly) ORDER BY i",
	"SELECT ST_Centroid(poly) <-> 'POINT(5 5)'::geometry AS d FROM gd ORDER BY ST_Centroid(poly) <-> 'POINT(5 5)'::geometry LIMIT 100",
]);
check('a partial index', 'CREATE INDEX %I ON gd USING gist (pt) WHERE i %% 3 = 0', [
	"SELECT i FROM gd WHERE i % 3 = 0 AND pt && $env ORDER BY i",
	"SELECT i FROM gd WHERE i % 3 = 0 AND ST_Within(pt, $poly) ORDER BY i",
	"SELECT pt <-> 'POINT(700 700)'::geometry AS d FROM gd WHERE i % 3 = 0 ORDER BY pt <-> 'POINT(700 700)'::geometry LIMIT 100",
]);

# NULLs, empty geometries and duplicates
my @gm = (
	"SELECT i FROM gm WHERE g && $env ORDER BY i",
	"SELECT i FROM gm WHERE ST_Contains($poly, g) ORDER BY i",
	"SELECT i FROM gm WHERE ST_Within(g, $poly) ORDER BY i",
	"SELECT i FROM gm WHERE ST_Contains(g, 'POINT(110 110)'::geometry) ORDER BY i",
	"SELECT i FROM gm WHERE g && 'POINT(500 500)'::geometry ORDER BY i",
	"SELECT i FROM gm WHERE g IS NULL ORDER BY i",
	"SELECT g <-> 'POINT(490 510)'::geometry AS d FROM gm ORDER BY g <-> 'POINT(490 510)'::geometry LIMIT 500",
);
check('NULLs, empties, duplicates', 'CREATE INDEX %I ON gm USING gist (g)', \@gm);
check('partial, NULLs and duplicates', 'CREATE INDEX %I ON gm USING gist (g) WHERE i %% 2 = 0',
	[ map { my $q = $_; $q =~ s/ FROM gm WHERE / FROM gm WHERE i % 2 = 0 AND /
			  or $q =~ s/ FROM gm / FROM gm WHERE i % 2 = 0 /; $q } @gm ]);

# PostgreSQL's own builds: no sortsupport (gist_geometry_ops_nd), and
# buffering forced on; srmsort leaves them alone
check('n-d opclass (PostgreSQL builds)', 'CREATE INDEX %I ON gm USING gist (g gist_geometry_ops_nd)',
	[ "SELECT i FROM gm WHERE g &&& $env ORDER BY i" ], want => 'f|*|t');
check('buffering = on (PostgreSQL builds)', 'CREATE INDEX %I ON gm USING gist (g) WITH (buffering = on)',
	[ "SELECT i FROM gm WHERE g && $env ORDER BY i" ], want => 'f|*|t');

# With workers (forced by max_parallel_maintenance_workers = 2,
# min_parallel_table_scan_size = 0 and maintenance_work_mem for three
# participants) for the scan and sort (pbuild.c) and the leaf level's
# picksplit (gistsplit.c): the trace names each participant's share of
# the scan and the workers' divisions, the pages are PostgreSQL's, and
# index scans answer as sequential scans.
my $par = q{
SET client_min_messages = log;
SET maintenance_work_mem = '96MB';
SET max_parallel_maintenance_workers = 2;
SET min_parallel_table_scan_size = 0;
SET srmsort.min_input_size = 0;
SET srmsort.trace = on;
SET srmsort.debug_scan_barrier = on;
SET extra_float_digits = 3;
};
for my $c (['points', 'gd', 'pt', "SELECT i FROM gd WHERE pt && $env ORDER BY i"],
	['polygons', 'gd', 'poly', "SELECT i FROM gd WHERE poly && $env ORDER BY i"],
	['NULLs, empties, duplicates', 'gm', 'g', "SELECT i FROM gm WHERE g && $env ORDER BY i"])
{
	my ($name, $tab, $col, $q) = @$c;
	$node->safe_psql('postgres',
		"SET srmsort.create_index = off; CREATE INDEX gp_native ON $tab USING gist ($col)");
	my ($ret, $out, $err) = $node->psql('postgres',
		"$par CREATE INDEX gp_par ON $tab USING gist ($col)");
	is($ret, 0, "$name with workers: built") or diag($err);
	my ($w0, $w1) = $err =~ /built index "gp_par".*\n.*leaf batches divided by 2 workers \(worker 0 (\d+), worker 1 (\d+)\)/;
	ok(defined $w1 && $w0 >= 4 && $w1 >= 4, "$name with workers: both divided batches")
	  or diag($err);
	my ($total, $shares) = $err =~
	  /built index "gp_par": (\d+) tuples.*\n.*participants 3 \(2 workers and the leader\), runs per participant [^;]*, tuples per participant ([^;]*);/;
	my @share = ($shares // '') =~ /(?:worker \d|leader) (\d+)/g;
	my $sum = 0;
	$sum += $_ for @share;
	ok(@share == 3 && !grep({ $_ == 0 } @share) && $sum == $total,
		"$name with workers: three participants scanned ($shares)")
	  or diag($err);
	is($node->safe_psql('postgres', "SELECT srm_gist_pages_diff('gp_native', 'gp_par')"),
		'0', "$name with workers: page-identical");
	$node->safe_psql('postgres', 'DROP INDEX gp_native');
	is($node->safe_psql('postgres',
			"SELECT srm_index_answers(ARRAY[" . lit($q) . "]) = srm_index_answers(ARRAY[" . lit($q) . "], seqscan => true)"),
		't', "$name with workers: the same answers");
	$node->safe_psql('postgres', 'DROP INDEX gp_par');
}

# CONCURRENTLY, with workers and without: srmsort's build, PostgreSQL's pages
$node->safe_psql('postgres',
	"SET srmsort.create_index = off; CREATE INDEX gp_native ON gd USING gist (poly)");
for my $c (['CREATE INDEX CONCURRENTLY gp_cc ON gd USING gist (poly)', 2, 'gp_cc'],
	['REINDEX INDEX CONCURRENTLY gp_cc', 0, 'gp_cc_ccnew'])
{
	my ($stmt, $w, $built) = @$c;
	my ($ret, $out, $err) = $node->psql('postgres',
		"$par SET max_parallel_maintenance_workers = $w; $stmt");
	is($ret, 0, "$stmt, $w workers: done") or diag($err);
	like($err, qr/built index "$built"/, "$stmt, $w workers: srmsort built it");
	is($node->safe_psql('postgres',
			"SELECT indisvalid AND indisready FROM pg_index WHERE indexrelid = 'gp_cc'::regclass;
			 SELECT srm_gist_pages_diff('gp_native', 'gp_cc')"),
		"t
0", "$stmt, $w workers: valid, page-identical");
}
$node->safe_psql('postgres', 'DROP INDEX gp_native, gp_cc');

# A build that fails in an expression on the table's last row, after the
# sort wrote its runs: PostgreSQL's error (the same text as its own
# build's), no index, no workfile.
$node->safe_psql('postgres', q{
CREATE TABLE gw AS SELECT i, ST_AsText(pt) AS wkt FROM gd;
INSERT INTO gw VALUES (80001, 'POINT(1 2');
});
my %fail;
for my $ci ('off', 'on')
{
	my ($ret, $out, $err) = $node->psql('postgres', "$set
SET srmsort.create_index = $ci;
SELECT sum(bytes_written) AS w0 FROM srmsort_disks \\gset
CREATE INDEX gw_fail ON gw USING gist (ST_GeomFromText(wkt));
SELECT sum(bytes_written) > :w0 FROM srmsort_disks;
SELECT count(*) FROM pg_class WHERE relname = 'gw_fail';", on_error_stop => 0);
	$fail{$ci} = join("\n", grep { /(ERROR|HINT|CONTEXT|DETAIL):/ } split /\n/, $err);
	like($fail{$ci}, qr/ERROR:  parse error - invalid geometry/,
		"bad expression (srmsort.create_index = $ci): the build fails with PostGIS's error");
	is($out, ($ci eq 'on' ? 't' : 'f') . "\n0", "bad expression ($ci): "
		  . ($ci eq 'on' ? 'srmsort had written runs; ' : '') . 'no index left');
	is_deeply([ SrmTest::temp_files($node) ], [], "bad expression ($ci): no workfile left");
}
is($fail{on}, $fail{off}, "bad expression: srmsort's build gives PostgreSQL's error");
# the same in the workers' scan (the leader scans nothing)
my ($pret, $pout, $perr) = $node->psql('postgres', "$par
SET parallel_leader_participation = off;
CREATE INDEX gw_fail ON gw USING gist (ST_GeomFromText(wkt));
SELECT count(*) FROM pg_class WHERE relname = 'gw_fail';", on_error_stop => 0);
# (psql's line numbers aside)
s/^psql:<stdin>:\d+: //mg for $fail{off}, $perr;
is(join("\n", grep { /(ERROR|HINT|CONTEXT|DETAIL):/ } split /\n/, $perr), $fail{off},
	"bad expression in a worker's scan: PostgreSQL's error, no parallel worker");
is($pout, '0', "bad expression in a worker's scan: no index left");
is_deeply([ SrmTest::temp_files($node) ], [], "bad expression in a worker's scan: no workfile left");

$node->stop;
done_testing();
