# Weighted striping: one disk much slower than the others.  With weights
# given (srmsort.disk_weights) and with weights measured (auto, the first
# use of each tablespace measures it; srmsort.debug_slow_disk makes one of
# the test's directories, all on one disk, measure as an eighth of its
# speed), for SRM and DSM, buffered and direct: the result is PostgreSQL's,
# and the slow disk receives its share of the blocks, proportionally fewer
# than the others.
use strict;
use warnings;
use File::Basename;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SrmTest;

my $node = SrmTest::node('weights',
	extra_conf => "client_min_messages = warning\nsrmsort.debug_slow_disk = 'srm_d0'\n");
my $helpers = PostgreSQL::Test::Utils::slurp_file(dirname(__FILE__) . '/../../sql/05_helpers.sql');
$node->safe_psql('postgres', $helpers);
$node->safe_psql('postgres', q{
CREATE FUNCTION explain_verbose(q text) RETURNS json LANGUAGE plpgsql AS $$
DECLARE p json;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, VERBOSE, COSTS OFF, TIMING OFF, SUMMARY OFF, FORMAT JSON) ' || q INTO p;
  RETURN p;
END $$;
SELECT setseed(0.35);
CREATE TABLE w AS SELECT (random() * 1e9)::int8 AS k, md5(i::text) AS t
  FROM generate_series(1, 200000) i;
ANALYZE w;
});

my $set = "SET work_mem = '1MB'; SET srmsort.block_size = '32kB'; "
  . "SET srmsort.tablespaces = 'srm_d0, srm_d1, srm_d2, srm_d3'; SET srmsort.min_input_size = 0;";

# The facts of one sort under EXPLAIN (ANALYZE, VERBOSE): its disks' weights
# and bytes written, the stripe, and whether the result is PostgreSQL's.
sub sort_with
{
	my ($settings, $what) = @_;
	my $same = $node->safe_psql('postgres',
		"$set $settings SELECT same FROM srm_diff('SELECT * FROM w ORDER BY k', 'k')");
	is($same, 't', "$what: the result is PostgreSQL's");
	my $rows = $node->safe_psql('postgres', "$set $settings
		SELECT d ->> 'Tablespace', d ->> 'Weight', d ->> 'Written', p ->> 'Stripe Width', p ->> 'Weights From'
		  FROM explain_verbose('SELECT * FROM w ORDER BY k') j,
		       LATERAL (SELECT j -> 0 -> 'Plan') n(p),
		       json_array_elements(p -> 'Disk Usage') d");
	my %disk;
	my ($width, $from);
	for my $line (split /\n/, $rows)
	{
		my ($name, $weight, $written, $w, $f) = split /\|/, $line;
		$disk{$name} = { weight => $weight, written => $written };
		($width, $from) = ($w, $f);
	}
	is(scalar(keys %disk), 4, "$what: four disks") or diag($rows);
	return (\%disk, $width, $from);
}

# disk d's share of the blocks written is its weight's share of the stripe
sub check_shares
{
	my ($disk, $width, $what) = @_;
	my $total = 0;
	$total += $_->{written} for values %$disk;
	my $wsum = 0;
	$wsum += $_->{weight} for values %$disk;
	is($wsum, $width, "$what: the weights add up to the stripe's width");
	for my $name (sort keys %$disk)
	{
		my $want = $disk->{$name}{weight} / $width;
		my $got = $total > 0 ? $disk->{$name}{written} / $total : 0;
		ok($got > 0.6 * $want && $got < 1.4 * $want,
			sprintf("%s: %s wrote %.3f of the blocks, its weight's share is %.3f",
				$what, $name, $got, $want));
	}
	my $slow = $disk->{srm_d0}{written};
	ok($slow < $disk->{$_}{written}, "$what: the slow disk wrote less than $_")
	  for qw(srm_d1 srm_d2 srm_d3);
}

# weights given: the slow disk 1, the others 4
for my $direct ('off', 'on')
{
	for my $strategy ('srm', 'dsm')
	{
		my $what = "weights given, $strategy, direct_io $direct";
		my ($disk, $width, $from) = sort_with(
			"SET srmsort.disk_weights = 'srm_d0:1, srm_d1:4, srm_d2:4, srm_d3:4'; "
			  . "SET srmsort.direct_io = $direct; SET srmsort.merge_strategy = $strategy;",
			$what);
		# DSM's two periods per run may not fit the budget at the finest shares
		if ($strategy eq 'srm')
		{
			is($width, 13, "$what: a stripe of 13 blocks");
		}
		else
		{
			ok($width >= 4 && $width <= 13, "$what: a stripe of 4 to 13 blocks ($width)");
		}
		is($from, 'srmsort.disk_weights', "$what: weights from the setting");
		is($disk->{srm_d0}{weight}, 1, "$what: srm_d0 weighs 1");
		check_shares($disk, $width, $what);
	}
}

# equal weights: round robin, every disk a quarter
{
	my ($disk, $width, $from) = sort_with("SET srmsort.disk_weights = equal;", 'equal weights');
	is($width, 4, 'equal weights: a stripe of one block per disk');
	ok(abs($disk->{srm_d0}{written} - $disk->{srm_d1}{written}) <= 0.3 * $disk->{srm_d1}{written},
		'equal weights: srm_d0 wrote about as much as srm_d1');
}

# measured: the first sort measures the four disks once, srm_d0 as an
# eighth of its speed
my $before = $node->safe_psql('postgres',
	"SELECT count(*) FROM srmsort_disks WHERE read_mb_per_s IS NOT NULL");
is($before, 0, 'no disk measured before the first sort with auto weights');
for my $direct ('off', 'on')
{
	my $what = "measured weights, direct_io $direct";
	my ($disk, $width, $from) = sort_with("SET srmsort.disk_weights = auto; SET srmsort.direct_io = $direct;",
		$what);
	is($from, 'measured', "$what: weights from the measurement");
	is($disk->{srm_d0}{weight}, 1, "$what: the slow disk weighs 1");
	ok($disk->{$_}{weight} >= 2, "$what: $_ weighs more than the slow disk")
	  for qw(srm_d1 srm_d2 srm_d3);
	check_shares($disk, $width, $what);
}
my $measured = $node->safe_psql('postgres', q{
SELECT string_agg(tablespace || ':' || round(read_mb_per_s)::text || ':' || round(write_mb_per_s)::text, ' '
                  ORDER BY tablespace)
  FROM srmsort_disks WHERE tablespace LIKE 'srm_d%'});
note("measured (MB/s read:write): $measured");
my $slow_ratio = $node->safe_psql('postgres', q{
SELECT max(read_mb_per_s) FILTER (WHERE tablespace = 'srm_d0') /
       min(read_mb_per_s) FILTER (WHERE tablespace <> 'srm_d0')
  FROM srmsort_disks WHERE tablespace LIKE 'srm_d%'});
ok($slow_ratio < 0.5, "srm_d0 measured slower than every other disk ($slow_ratio)");
my $log = PostgreSQL::Test::Utils::slurp_file($node->logfile);
my @lines = ($log =~ /measured workfile disk "srm_d0"/g);
is(scalar(@lines), 1, 'srm_d0 was measured once');

# a parallel index build over the weighted disks: a valid index
$node->safe_psql('postgres', q{
SET maintenance_work_mem = '64MB'; SET max_parallel_maintenance_workers = 2;
SET srmsort.min_input_size = 0;
SET srmsort.tablespaces = 'srm_d0, srm_d1, srm_d2, srm_d3';
SET srmsort.disk_weights = 'srm_d0:1, srm_d1:3, srm_d2:2, srm_d3:4';
CREATE EXTENSION IF NOT EXISTS amcheck;
CREATE INDEX w_k ON w (k);
});
is($node->safe_psql('postgres', "SELECT bt_index_check('w_k', true)"), '',
	'index built over weighted disks passes amcheck');
is($node->safe_psql('postgres',
		"SET enable_seqscan = off; SELECT count(*) FROM (SELECT k FROM w ORDER BY k) s"),
	'200000', 'the index holds every row');

# bad settings are refused with the reason
my ($ret, $out, $err) = $node->psql('postgres', "SET srmsort.disk_weights = 'srm_d0:0'");
like($err, qr/invalid value for parameter "srmsort.disk_weights".*\n.*must be a number greater than 0/,
	'a weight of 0 is refused');
($ret, $out, $err) = $node->psql('postgres', "SET srmsort.disk_weights = 'srm_d0'");
like($err, qr/has no weight/, 'a tablespace without a weight is refused');
($ret, $out, $err) = $node->psql('postgres', "SET srmsort.disk_weights = 'srm_d0:1, srm_d0:2'");
like($err, qr/listed twice/, 'a tablespace listed twice is refused');

is(scalar(SrmTest::temp_files($node)), 0, 'no workfiles left');
$node->stop;
done_testing();
