# Disk full on one of the workfile disks, while writing runs and during a
# merge: PostgreSQL's usual "could not write" error naming the file, every
# workfile on every disk removed, the server keeps running, the next sort
# works.  Needs a small filesystem, which test/run_tests.sh mounts when it
# runs as root (SRMSORT_SMALLFS).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SrmTest;

my $small = $ENV{SRMSORT_SMALLFS};
plan skip_all => 'needs a small filesystem: run test/run_tests.sh as root to mount one'
  unless $small && -d $small && -w $small;

my $node = SrmTest::node('diskfull', extra_conf => "work_mem = '1MB'\n");
$node->safe_psql('postgres', "CREATE TABLESPACE tiny LOCATION '$small'");
$node->safe_psql('postgres', q{
SELECT setseed(0.3);
CREATE TABLE d AS SELECT (random() * 1e9)::int8 AS k, repeat(md5(i::text), 3) AS t
  FROM generate_series(1, 200000) i;
ANALYZE d;
});
my $q = "SELECT count(*) FROM (SELECT * FROM d ORDER BY t) s";
my $check = "SELECT sum(k) = (SELECT sum(k) FROM d) FROM (SELECT * FROM d ORDER BY t) s";

for my $io ('io_uring', 'sync')
{
	my ($ret, $out, $err) = $node->psql('postgres',
		"SET srmsort.io_method = $io; SET srmsort.tablespaces = 'srm_d0, tiny, srm_d1'; $q");
	isnt($ret, 0, "$io: the sort fails when a disk fills up");
	like($err, qr/could not write to file "[^"]*pgsql_tmp[^"]*": No space left on device/,
		"$io: PostgreSQL's error names the file");
	is_deeply([ SrmTest::temp_files($node) ], [], "$io: no workfile left on any disk");
	is($node->safe_psql('postgres', "SELECT count(*) FROM srmsort_activity"), '0',
		"$io: no job left");
	is($node->safe_psql('postgres', "SET srmsort.tablespaces = 'srm_d0, srm_d1'; $check"), 't',
		"$io: the next sort works");
}
my ($ret, $out, $err) = $node->psql('postgres',
	"SET srmsort.tablespaces = 'srm_d0, tiny';\n\\set VERBOSITY verbose\n$q");
like($err, qr/ERROR:  53100/, "the error is ERRCODE_DISK_FULL");

$node->stop;
done_testing();
