# Randomized differential test: random schemas, data distributions, sort
# specifications and settings (disks, their weights, I/O method and mode,
# merge strategy, budget); srmsort's result against PostgreSQL's own
# (ordered keys by type equality + row multiset, see sql/05_helpers.sql).
# Seeded: SRMSORT_SEED=n reproduces a run; the seed is printed.  The test
# command runs 300 cases; --long (SRMSORT_LONG=1) runs 2000.
use strict;
use warnings;
use File::Basename;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SrmTest;

my $seed = $ENV{SRMSORT_SEED} // (time() % 1000000);
my $cases = $ENV{SRMSORT_LONG} ? 2000 : 300;
note("seed: $seed (rerun with SRMSORT_SEED=$seed)");
srand($seed);

my $node = SrmTest::node('random', extra_conf => "client_min_messages = warning\n");
my $helpers = PostgreSQL::Test::Utils::slurp_file(dirname(__FILE__) . '/../../sql/05_helpers.sql');
$node->safe_psql('postgres', $helpers);

# value expressions of each type from an integer v (may be NULL)
my @types = (
	[ 'int2',        'CASE WHEN v IS NULL THEN NULL ELSE (v % 32000)::int2 END' ],
	[ 'int4',        'v' ],
	[ 'int8',        '(v::int8 * 1000003 - 500000000000)' ],
	[ 'float4',      "(CASE v % 97 WHEN 0 THEN 'NaN' WHEN 1 THEN '-0' WHEN 2 THEN 'Infinity' ELSE (v / 7.0)::text END)::float4" ],
	[ 'float8',      "(CASE v % 89 WHEN 0 THEN 'NaN' WHEN 1 THEN '-Infinity' WHEN 2 THEN '-0' ELSE (v / 3.0 - 1000)::text END)::float8" ],
	[ 'numeric',     'round(v / 13.0, v % 4)' ],
	# specials, zeros of two scales, many magnitudes, both signs
	[ 'numericx',    "(CASE v % 53 WHEN 0 THEN 'NaN' WHEN 1 THEN 'Infinity' WHEN 2 THEN '-Infinity' WHEN 3 THEN '0.00' ELSE ((v % 2000 - 1000)::numeric * 10::numeric ^ (v % 61 - 30))::text END)::numeric" ],
	[ 'text',        "md5(v::text)" ],
	[ 'textC',       "substr(md5(v::text), 1, 1 + v % 12) COLLATE \"C\"" ],
	[ 'texticu',     "(ARRAY['a','B','b','é','É','z','Z'])[1 + v % 7] || (v % 50)::text COLLATE \"en-x-icu\"" ],
	[ 'bytea',       "decode(md5((v % 500)::text), 'hex')" ],
	[ 'uuid',        "md5((v % 700)::text)::uuid" ],
	[ 'date',        "DATE '2000-01-01' + v % 5000" ],
	[ 'timestamptz', "TIMESTAMPTZ '2001-01-01 00:00+00' + v * INTERVAL '1 minute'" ],
	[ 'interval',    "v * INTERVAL '1 hour' + (v % 3) * INTERVAL '1 month'" ],
	[ 'bool',        "v % 2 = 0" ],
);
my @dists = (
	[ 'uniform', '(random() * 1000000)::int' ],
	[ 'skewed',  '(power(random(), 4) * 30)::int' ],
	[ 'equal',   '42' ],
	[ 'sorted',  'i' ],
	[ 'reverse', 'n - i' ],
);
my @work_mem = ('64kB', '128kB', '256kB', '1MB');

my $failures = 0;
for my $case (1 .. $cases)
{
	# a tenth of the cases carry up to 20000 rows of up to 6kB kept inline
	# (PLAIN storage), sorted serially at 192kB or 256kB: often hundreds of
	# runs, whose headers make the smallest runs merge early
	my $wide = rand() < 0.1;
	my $n = $wide ? 6000 + int(rand(14000)) : 200 + int(rand(4000));
	my $ncols = 1 + int(rand(3));
	my (@bases, @cols, @keys);
	for my $c (1 .. $ncols)
	{
		my $t = $types[ int(rand(@types)) ];
		my $d = $dists[ int(rand(@dists)) ];
		my $nullp = (rand() < 0.3) ? rand(0.3) : 0;
		(my $dexpr = $d->[1]) =~ s/\bn\b/$n/g;
		push @bases, "(CASE WHEN random() < $nullp THEN NULL ELSE $dexpr END) AS v$c";
		(my $expr = $t->[1]) =~ s/\bv\b/v$c/g;
		push @cols, "$expr AS c$c";
		my $spec = "c$c";
		$spec .= ' DESC' if rand() < 0.4;
		$spec .= (rand() < 0.5 ? ' NULLS FIRST' : ' NULLS LAST') if rand() < 0.5;
		push @keys, [ $spec, "c$c", "$t->[0]/$d->[0]" ];
	}
	my $wm = $wide ? (rand() < 0.5 ? '192kB' : '256kB') : $work_mem[ int(rand(@work_mem)) ];
	my $strategy = rand() < 0.3 ? 'dsm' : 'srm';
	my $io = rand() < 0.3 ? 'sync' : 'io_uring';
	my @dl = map { "srm_d$_" } 0 .. int(rand(4));
	my $disks = join(', ', @dl);
	# striping: measured, round robin, or by random weights
	my $r = rand();
	my $weights = $r < 0.3 ? 'auto' : $r < 0.5 ? 'equal'
	  : join(', ', map { "$_:" . (1 + int(rand(8))) } @dl);
	my $direct = rand() < 0.4 ? 'on' : 'off';
	my $order = join(', ', map { $_->[0] } @keys);
	my $keyargs = join(', ', map { "'$_->[1]'" } @keys);
	my $desc = "case $case: n=$n work_mem=$wm $strategy $io direct_io=$direct disks=[$disks] "
	  . "weights=[$weights] ORDER BY $order ("
	  . join(' ', map { $_->[2] } @keys) . ")";

	$desc .= ' wide' if $wide;
	my $select = "SELECT i, " . join(', ', @cols)
	  . ($wide ? ", repeat(md5(i::text), 1 + (i * 7919) % 190) AS pad" : "")
	  . " FROM (SELECT i, " . join(', ', @bases) . " FROM generate_series(1, $n) i) s";
	my $sql = "SELECT setseed(" . rand() . ");\n"
	  . "DROP TABLE IF EXISTS r;\n"
	  . ($wide
		? "CREATE TABLE r AS $select WITH NO DATA;\n"
		  . "ALTER TABLE r ALTER COLUMN pad SET STORAGE PLAIN;\n"
		  . "INSERT INTO r $select;\n"
		: "CREATE TABLE r AS $select;\n")
	  . "SET work_mem = '$wm'; SET srmsort.merge_strategy = $strategy; SET srmsort.io_method = $io;\n"
	  . ($wide ? "SET max_parallel_workers_per_gather = 0;\n" : "")
	  . "SET srmsort.tablespaces = '$disks'; SET srmsort.min_input_size = 0; SET srmsort.random_seed = $case;\n"
	  . "SET srmsort.disk_weights = '$weights'; SET srmsort.direct_io = $direct;\n"
	  . "SELECT same::text || ' ' || method FROM srm_diff('SELECT * FROM r ORDER BY $order', $keyargs);\n";
	my ($ret, $out, $err) = $node->psql('postgres', $sql);
	my $ok = ($ret == 0 && $out =~ /^true (external|quicksort|radix sort)/m);
	$failures++ unless $ok;
	ok($ok, $desc) or diag("seed $seed, $desc\nout: $out\nerr: $err");
	last if $failures >= 5;
}
is(scalar(SrmTest::temp_files($node)), 0, "no workfiles left");
$node->stop;
done_testing();
