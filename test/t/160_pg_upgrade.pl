# pg_upgrade from 18 to 19 with srmsort installed, preloaded and used: an
# index srmsort built and srmsort settings set per role and per database
# survive the upgrade; on 19 the index passes amcheck, srmsort sorts as
# PostgreSQL does and builds the index again, and amcheck passes again.
# Runs with 19 where 18's server is installed beside it (the sid root);
# srmsort is built for 18 here, into a staged install that 18's
# extension_control_path and dynamic_library_path point at.
use strict;
use warnings;
use FindBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SrmTest;

my $old_prefix = '/usr/lib/postgresql/18';
plan skip_all => 'pg_upgrade from 18 runs under 19 with 18 installed beside it'
  unless ($ENV{SRMSORT_PG} // '') eq '19' && -x "$old_prefix/bin/postgres"
  && -x "$old_prefix/bin/pg_config";

my $repo = "$FindBin::RealBin/../..";
my $src = PostgreSQL::Test::Utils::tempdir('srmsort18');
my $stage = SrmTest::abs_tempdir();
system("cd '$repo' && tar cf - --exclude='*.o' --exclude='*.so' --exclude='*.bc' Makefile ./*.control ./*.sql src | (cd '$src' && tar xf -)") == 0
  or die "cannot copy the sources";
my $make = "make -s -C '$src' PG_CONFIG=$old_prefix/bin/pg_config with_llvm=no";
ok(system("$make -j2 >'$src/build.log' 2>&1 && $make install DESTDIR='$stage' >>'$src/build.log' 2>&1") == 0,
	'srmsort builds for 18') or diag(slurp_file("$src/build.log"));
my $share18 = `$old_prefix/bin/pg_config --sharedir`;
my $lib18 = `$old_prefix/bin/pg_config --pkglibdir`;
chomp($share18, $lib18);

my $old = PostgreSQL::Test::Cluster->new('old18', install_path => $old_prefix);
$old->init;
my $common = "fsync = off\nmaintenance_work_mem = '1MB'\nsrmsort.min_input_size = 0\n"
  . "srmsort.min_work_mem = '64kB'\nmax_parallel_maintenance_workers = 0\n";
$old->append_conf('postgresql.conf', $common
	  . "extension_control_path = '$stage$share18:\$system'\n"
	  . "dynamic_library_path = '$stage$lib18:\$libdir'\n"
	  . "shared_preload_libraries = 'srmsort'\n");
$old->start;
my $ts = SrmTest::abs_tempdir();
$old->safe_psql('postgres', qq{
CREATE TABLESPACE srm_d0 LOCATION '$ts';
CREATE ROLE alice LOGIN;
CREATE DATABASE app;
ALTER ROLE alice SET srmsort.block_size = '128kB';
ALTER DATABASE app SET srmsort.tablespaces = 'srm_d0';
ALTER ROLE alice IN DATABASE app SET srmsort.max_merge_order = 7;
});
$old->safe_psql('app', q{
CREATE EXTENSION srmsort;
CREATE EXTENSION amcheck;
SELECT setseed(0.5);
CREATE TABLE t AS SELECT i, (random() * 1e9)::int8 AS a, md5(i::text) AS b
  FROM generate_series(1, 200000) i;
CREATE INDEX t_a ON t (a);
CREATE UNIQUE INDEX t_b ON t (b, i);
});
is($old->safe_psql('app', 'SELECT sum(bytes_written) > 0 FROM srmsort_disks'), 't',
	'18: srmsort built the indexes through its workfile disk');
is($old->safe_psql('app', "SELECT bt_index_parent_check('t_a', true), bt_index_parent_check('t_b', true)"),
	'|', '18: the indexes pass amcheck');
my $old_ext = $old->safe_psql('app', "SELECT extversion FROM pg_extension WHERE extname = 'srmsort'");
$old->stop;

# 19: the same settings, srmsort as test/run_tests.sh installed it
my $new = SrmTest::node('new19', tablespaces => 0, no_preload => 1);
$new->stop;
# pg_upgrade wants an empty new cluster: no srmsort extension in it
$new->append_conf('postgresql.conf', $common
	  . "shared_preload_libraries = '" . SrmTest::so_path() . "'\n");

my $newbin = $new->config_data('--bindir');
my $rundir = PostgreSQL::Test::Utils::tempdir('upgrade');
my @cmd = (
	"$newbin/pg_upgrade", '--no-sync',
	'-d', $old->data_dir, '-D', $new->data_dir,
	'-b', "$old_prefix/bin", '-B', $newbin,
	'-s', $new->host, '-p', $old->port, '-P', $new->port);
ok(run_log([ 'sh', '-c', 'cd "$0" && exec "$@"', $rundir, @cmd ]), 'pg_upgrade 18 -> 19')
  or do
{
	for my $f (glob("$rundir/*.log"), glob($new->data_dir . '/pg_upgrade_output.d/*/log/*.log'))
	{
		diag("---- $f ----\n" . slurp_file($f));
	}
};
$new->start;

is($new->safe_psql('app', "SELECT extversion FROM pg_extension WHERE extname = 'srmsort'"),
	$old_ext, "19: the extension came over at SQL version $old_ext");
is($new->safe_psql('app', "SELECT bt_index_parent_check('t_a', true), bt_index_parent_check('t_b', true)"),
	'|', '19: the index srmsort built on 18 passes amcheck');
is($new->safe_psql('app', 'SHOW srmsort.tablespaces'), 'srm_d0',
	"19: the database's srmsort setting came over");
is($new->safe_psql('app', 'SHOW srmsort.block_size', extra_params => [ '-U', 'alice' ]), '128kB',
	"19: the role's srmsort setting came over");
is($new->safe_psql('app', 'SHOW srmsort.max_merge_order', extra_params => [ '-U', 'alice' ]), '7',
	"19: the role's setting in the database came over");

# sorts on 19 as PostgreSQL sorts (small work_mem: external)
# (a key no index has: a Sort node)
my $q = "SELECT md5(string_agg(x, ',')) FROM (SELECT reverse(b) || ':' || a AS x FROM t ORDER BY 1 OFFSET 0) s";
my $w0 = $new->safe_psql('app', 'SELECT coalesce(sum(bytes_written), 0) FROM srmsort_disks');
my $srm = $new->safe_psql('app', "SET work_mem = '1MB'; $q");
my $w1 = $new->safe_psql('app', 'SELECT coalesce(sum(bytes_written), 0) FROM srmsort_disks');
ok($w1 > $w0, '19: srmsort sorted through its workfile disk');
is($srm, $new->safe_psql('app', "SET srmsort.enabled = off; SET work_mem = '1MB'; $q"),
	"19: srmsort's sort equals PostgreSQL's");

# and builds the index again on 19
$new->safe_psql('app', 'REINDEX INDEX t_a; REINDEX INDEX t_b');
ok($new->safe_psql('app', 'SELECT coalesce(sum(bytes_written), 0) FROM srmsort_disks') > $w1,
	'19: REINDEX went through srmsort');
is($new->safe_psql('app', "SELECT bt_index_parent_check('t_a', true), bt_index_parent_check('t_b', true)"),
	'|', '19: the rebuilt indexes pass amcheck');
$new->safe_psql('app', 'ALTER EXTENSION srmsort UPDATE');
$new->stop;
done_testing();
