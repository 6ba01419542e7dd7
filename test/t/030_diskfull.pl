# Disk full on one of the workfile disks, while writing runs and during a
# merge: PostgreSQL's usual "could not write" error naming the file, every
# workfile on every disk removed, the server keeps running, the next sort
# works.  The same for btree and GiST index builds, and for a full index
# tablespace.  Needs a small filesystem, which test/run_tests.sh mounts
# when it runs as root (SRMSORT_SMALLFS).
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

# At 16MB the blocks are 256kB, which reach the kernel in pieces (aio.c):
# a piece that fails must still give the real error.
like($node->safe_psql('postgres',
		"SET work_mem = '16MB'; SET srmsort.tablespaces = 'srm_d0, srm_d2, srm_d1'; "
		  . "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM d ORDER BY t"),
	qr/Block Size: 256kB/, "at 16MB over three disks the blocks are 256kB");
for my $io ('io_uring', 'sync')
{
	for my $wm ('1MB', '16MB')
	{
		my $t = "$io, work_mem $wm";
		my ($ret, $out, $err) = $node->psql('postgres',
			"SET work_mem = '$wm'; SET srmsort.io_method = $io; "
			  . "SET srmsort.tablespaces = 'srm_d0, tiny, srm_d1'; $q");
		isnt($ret, 0, "$t: the sort fails when a disk fills up");
		like($err, qr/could not write to file "[^"]*pgsql_tmp[^"]*": No space left on device/,
			"$t: PostgreSQL's error names the file");
		is_deeply([ SrmTest::temp_files($node) ], [], "$t: no workfile left on any disk");
		is($node->safe_psql('postgres', "SELECT count(*) FROM srmsort_activity"), '0',
			"$t: no job left");
		is($node->safe_psql('postgres', "SET srmsort.tablespaces = 'srm_d0, srm_d1'; $check"), 't',
			"$t: the next sort works");
	}
}
my ($ret, $out, $err) = $node->psql('postgres',
	"SET srmsort.tablespaces = 'srm_d0, tiny';\n\\set VERBOSITY verbose\n$q");
like($err, qr/ERROR:  53100/, "the error is ERRCODE_DISK_FULL");

# Disk full while an index build writes the index's pages: srmsort's build
# fails with the error PostgreSQL's own build gives (its storage manager's
# "could not extend file"), and leaves nothing on the full disk.
for my $sys ('off', 'io_uring', 'sync')
{
	my $set = $sys eq 'off' ? 'SET srmsort.enabled = off;'
	  : "SET srmsort.io_method = $sys; SET srmsort.trace = on;";
	my ($iret, $iout, $ierr) = $node->psql('postgres',
		"$set SET max_parallel_maintenance_workers = 0;\n\\set VERBOSITY verbose\n"
		  . "CREATE INDEX d_t_tiny ON d (t) TABLESPACE tiny");
	isnt($iret, 0, "index build ($sys) fails when the index's disk fills up");
	like($ierr, qr/ERROR:  53100: could not extend file "pg_tblspc\/[^"]*": No space left on device/,
		"index build ($sys): the storage manager's error, naming the index's file");
	like($ierr, qr/HINT:  Check free disk space\./, "index build ($sys): its hint");
	# the first segment stays, truncated, until the next checkpoint
	is_deeply([ grep { -s $_ } glob("$small/PG_*/*/*") ], [],
		"index build ($sys): no data left on the full disk");
}
# The same for GiST's sorted build (point_ops): the sort's runs fill a
# workfile disk, or the index's pages fill its tablespace.  Each fails with
# the error PostgreSQL gives for the same fault (its own sort or build),
# after srmsort had written runs (proof that srmsort built it), and leaves
# no index, no workfile and nothing on the full disk.
$node->safe_psql('postgres', q{
SELECT setseed(0.7);
CREATE TABLE gp AS SELECT i, point(random() * 1000, random() * 1000) AS p
  FROM generate_series(1, 500000) i;
ANALYZE gp;
});
for my $case ('workfiles', 'index')
{
	my $where = $case eq 'workfiles'
	  ? "SET srmsort.tablespaces = 'srm_d0, tiny, srm_d1'; SET temp_tablespaces = tiny;"
	  : "SET srmsort.tablespaces = 'srm_d0, srm_d1';";
	my $space = $case eq 'index' ? ' TABLESPACE tiny' : '';
	for my $sys ('off', 'io_uring', 'sync')
	{
		my $set = $sys eq 'off' ? 'SET srmsort.enabled = off;' : "SET srmsort.io_method = $sys;";
		my ($gret, $gout, $gerr) = $node->psql('postgres', "$set $where
SET maintenance_work_mem = '1MB';
\\set VERBOSITY verbose
SELECT coalesce(sum(bytes_written), 0) AS w0 FROM srmsort_disks \\gset
CREATE INDEX gp_tiny ON gp USING gist (p)$space;
SELECT coalesce(sum(bytes_written), 0) > :w0 FROM srmsort_disks;
SELECT count(*) FROM pg_class WHERE relname = 'gp_tiny';", on_error_stop => 0);
		my $err = $case eq 'workfiles'
		  ? qr/ERROR:  53100: could not write to file "[^"]*pgsql_tmp[^"]*": No space left on device/
		  : qr/ERROR:  53100: could not extend file "pg_tblspc\/[^"]*": No space left on device/;
		like($gerr, $err, "GiST build ($sys), full $case disk: PostgreSQL's error");
		is($gout, ($sys eq 'off' ? 'f' : 't') . "\n0",
			"GiST build ($sys), full $case disk: "
			  . ($sys eq 'off' ? '' : 'srmsort had written runs; ') . 'no index left');
		is_deeply([ SrmTest::temp_files($node) ], [], "GiST build ($sys), full $case disk: no workfile left");
		is($node->safe_psql('postgres', "SELECT count(*) FROM srmsort_activity"), '0',
			"GiST build ($sys), full $case disk: no job left");
		is_deeply([ grep { -s $_ } glob("$small/PG_*/*/*") ], [],
			"GiST build ($sys), full $case disk: nothing left on the full disk");
	}
}
$node->safe_psql('postgres', "SET maintenance_work_mem = '1MB'; SET srmsort.tablespaces = 'srm_d0, srm_d1';
SET srmsort.trace = on; CREATE INDEX gp_p ON gp USING gist (p)");
like(slurp_file($node->logfile), qr/srmsort: built index "gp_p"/, "the next GiST build works, by srmsort");
$node->safe_psql('postgres', "DROP TABLE gp");

$node->safe_psql('postgres', "SET srmsort.trace = on; CREATE INDEX d_t ON d (t)");
$node->safe_psql('postgres', "CREATE EXTENSION IF NOT EXISTS amcheck");
is($node->safe_psql('postgres', "SELECT bt_index_parent_check('d_t', true)"), '',
	"the next index build works (amcheck)");
like(slurp_file($node->logfile), qr/srmsort: built index "d_t"/, "srmsort built it");
$node->safe_psql('postgres', "DROP INDEX d_t");

# Disk full during a merge: the sort pauses between its runs and its
# intermediate merges (srmsort.debug_merge_pause) and the test fills the
# small filesystem meanwhile.  A merge writes into the slots its own reads
# free, so it often still finishes (then in the right order); with slot
# reuse turned off (srmsort.debug_no_slot_reuse) its writes always need new
# space and fail.
$node->safe_psql('postgres', q{
CREATE TABLE m AS SELECT (random() * 1e9)::int8 AS k, repeat(md5(i::text), 3) AS t
  FROM generate_series(1, 15000) i;
ANALYZE m;
});
my $mq = "SELECT count(*), md5(string_agg(t, ',')) FROM (SELECT t FROM m ORDER BY t) s";
my $native = $node->safe_psql('postgres', "SET srmsort.enabled = off; $mq");
my $filler = "$small/filler";

# Start the sort, wait until it has written its runs, fill the disk, and
# return what the sort said.
sub merge_on_full_disk
{
	my ($io, $reuse) = @_;
	my $bg = $node->background_psql('postgres', on_error_stop => 0);
	$bg->query_safe("SET client_min_messages = warning; SET work_mem = '512kB'; SET srmsort.max_merge_order = 2; "
		  . "SET srmsort.io_method = $io; SET srmsort.tablespaces = 'srm_d0, tiny, srm_d1'; "
		  . "SET srmsort.debug_merge_pause = '3s'; "
		  . "SET srmsort.debug_no_slot_reuse = " . ($reuse ? 'off' : 'on') . ";");
	$bg->query_until(qr/started/, "\\echo started\n$mq;\n");
	ok( $node->poll_query_until('postgres',
			"SELECT count(*) > 0 FROM srmsort_activity WHERE phase = 'merging'"),
		"$io: the sort wrote its runs and is about to merge");
	my @onsmall = glob("$small/PG_*/pgsql_tmp/*");
	ok(@onsmall > 0, "$io: runs live on the small disk");
	system("dd if=/dev/zero of=$filler bs=64k 2>/dev/null");
	my $out = $bg->query("SELECT 1;");
	my $err = $bg->{stderr};
	$bg->quit;
	unlink $filler;
	is_deeply([ SrmTest::temp_files($node) ], [], "$io: no workfile left on any disk");
	is($node->safe_psql('postgres', "SELECT count(*) FROM srmsort_activity"), '0', "$io: no job left");
	return ($out, $err);
}

for my $reuse (1, 0)
{
	for my $io ('io_uring', 'sync')
	{
		my ($out, $err) = merge_on_full_disk($io, $reuse);
		if ($reuse)
		{
			# mostly the merges' output fits where their input was; when a
			# merge needs a few more blocks on the full disk, it fails cleanly
			ok( $out eq "$native\n1"
				  || $err =~ /could not write to file "[^"]*pgsql_tmp[^"]*": No space left on device/,
				"$io: a merge on a full disk returns the native order or PostgreSQL's error")
			  or diag("out: $out\nerr: $err");
		}
		else
		{
			like($err, qr/could not write to file "[^"]*pgsql_tmp[^"]*": No space left on device/,
				"$io: a merge that needs space fails with PostgreSQL's error naming the file");
		}
		is($node->safe_psql('postgres', "SET work_mem = '1MB'; "
			  . "SET srmsort.tablespaces = 'srm_d0, tiny, srm_d1'; $mq"), $native,
			"$io: the next sort works on the same disks once there is room");
	}
}

$node->stop;
done_testing();
