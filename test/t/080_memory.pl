# Out of memory inside a sort: the backends' address space is limited
# (prlimit on the postmaster; the backends it forks inherit the limit) and
# sorts of huge tuples under a tiny work_mem run into it -- copying a tuple
# into the sort, or holding one huge tuple per run while merging.  Every
# attempt either gives the native answer or fails with PostgreSQL's "out of
# memory" (53200); nothing is left behind and the server keeps running.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SrmTest;

plan skip_all => 'prlimit (util-linux) is not installed'
  unless system('prlimit --version >/dev/null 2>&1') == 0;

my $node = SrmTest::node('oom',
	extra_conf => "work_mem = '64kB'\nshared_buffers = '16MB'\nsrmsort.min_input_size = 0\n");
$node->safe_psql('postgres',
	"ALTER SYSTEM SET srmsort.tablespaces = 'srm_d0, srm_d1'; SELECT pg_reload_conf();");

# a backend's address space now, and a limit 300 MB above it
my $vm = $node->safe_psql('postgres',
	"SELECT substring(pg_read_file('/proc/self/status') FROM 'VmPeak:\\s+([0-9]+)')::bigint");
my $limit = ($vm + 300 * 1024) * 1024;
open(my $fh, '<', $node->data_dir . '/postmaster.pid') or die;
my $pm = <$fh>;
chomp $pm;
close $fh;
is(system("prlimit --pid $pm --as=$limit:$limit"), 0, "address space limited to $limit bytes");

# n rows of one huge key each: the child forms one at a time; the sort keeps
# a copy and, merging runs of one tuple each, one per run
my $small = "SELECT sum(k::bigint) = (SELECT sum(k::bigint) FROM generate_series(1, 50000) k) "
  . "FROM (SELECT k FROM generate_series(1, 50000) k ORDER BY md5(k::text)) s";
my ($oom, $in_sort) = (0, 0);
for my $mb (40, 120, 200)
{
	my $q = "SELECT count(*), sum(length(t)) FROM "
	  . "(SELECT repeat(k::text, $mb * 1024 * 1024) AS t FROM generate_series(1, 3) k ORDER BY t DESC) s";
	like($node->safe_psql('postgres', "EXPLAIN (COSTS OFF) $q"), qr/Custom Scan \(SRMSort\)/,
		"$mb MB keys: sorted by srmsort");
	my ($ret, $out, $err) = $node->psql('postgres', "\\set VERBOSITY verbose\n$q");
	if ($ret == 0)
	{
		is($out, "3|" . (3 * $mb * 1024 * 1024), "$mb MB keys: sorted within the limit");
	}
	else
	{
		like($err, qr/ERROR:  53200: out of memory/, "$mb MB keys: PostgreSQL's out-of-memory error");
		$oom++;
		$in_sort++ if $err =~ /Failed on request of size \d+ in memory context "srmsort/;
	}
	is_deeply([ SrmTest::temp_files($node) ], [], "$mb MB keys: no workfile left");
	is($node->safe_psql('postgres', "SELECT count(*) FROM srmsort_activity"), '0',
		"$mb MB keys: no job left");
	is($node->safe_psql('postgres',
		"SELECT coalesce(sum(active_jobs), 0) + coalesce(sum(bytes_in_flight), 0) FROM srmsort_disks"),
		'0', "$mb MB keys: nothing counted as active");
	is($node->safe_psql('postgres', $small), 't', "$mb MB keys: the next sort works");
}
ok($oom > 0, "$oom of 3 sorts ran out of memory");
ok($in_sort > 0, "$in_sort of them inside srmsort's own memory (copying a tuple in, or merging)");

my $log = slurp_file($node->logfile);
unlike($log, qr/temporary file leak|resource was not closed|PANIC|terminated by signal/,
	"no leaks, no crash");
$node->stop;
done_testing();
