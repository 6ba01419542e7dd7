# SrmTest.pm — helpers for srmsort's TAP tests.
#
#   my $node = SrmTest::node('name', tablespaces => 4, extra_conf => "...",
#                            allows_streaming => 0);
#   SrmTest::temp_files($node)   # workfiles left in every pgsql_tmp dir
#
# Run through test/run_tests.sh, which stages the install and exports
# SRMSORT_INSTALL, or with "make prove_installcheck" against an installed
# srmsort.
package SrmTest;

use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use File::Spec;
use Time::HiRes;

# The staged install test/run_tests.sh made (SRMSORT_INSTALL), or undef
# when the tests run against an installed srmsort (make
# prove_installcheck).
sub install
{
	return $ENV{SRMSORT_INSTALL};
}

# The srmsort.so to preload (or LOAD): the staged one test/run_tests.sh
# picks for the server version under test, else the server's own.
sub so_path
{
	return $ENV{SRMSORT_SO} // 'srmsort';
}

# postgresql.conf lines that let the server find the staged install
# (extension_destdir on Debian's servers, extension_control_path and
# dynamic_library_path on 18 and later), or none for an installed srmsort.
sub ext_conf
{
	return $ENV{SRMSORT_EXT_CONF} // '';
}

# A started node with srmsort preloaded (unless no_preload), its extension
# created, and N tablespaces srm_d0.. in separate directories.
sub node
{
	my ($name, %opts) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init(allows_streaming => $opts{allows_streaming} // 0);
	my $conf = ext_conf() . "\n"
	  . "log_temp_files = 0\n"
	  . "fsync = off\n"
	  . "max_parallel_workers_per_gather = 0\n"
	  # the tests sort at budgets down to 64kB, below the default of
	  # srmsort.min_work_mem, where srmsort leaves sorts to PostgreSQL
	  . "srmsort.min_work_mem = '64kB'\n"
	  # round robin: measured weights (auto, the default) move with the
	  # machine's load, and the stripe with them, and the runs and passes
	  # the tests assert; a test of weights sets them (140_weights)
	  . "srmsort.disk_weights = equal\n";
	$conf .= "shared_preload_libraries = '" . so_path() . "'\n"
	  unless $opts{no_preload};
	$conf .= $opts{extra_conf} if $opts{extra_conf};
	$node->append_conf('postgresql.conf', $conf);
	$node->start;
	my $n = $opts{tablespaces} // 4;
	for my $i (0 .. $n - 1)
	{
		my $dir = abs_tempdir();
		$node->safe_psql('postgres',
			"CREATE TABLESPACE srm_d$i LOCATION '$dir'");
	}
	$node->safe_psql('postgres', 'CREATE EXTENSION srmsort')
	  unless $opts{no_preload};
	return $node;
}

# A new temporary directory, as an absolute path (17 and later hand out
# paths relative to the test's directory; tablespaces need absolute ones).
sub abs_tempdir
{
	return File::Spec->rel2abs(PostgreSQL::Test::Utils::tempdir());
}

# Files left in base/pgsql_tmp and in every tablespace's pgsql_tmp.
sub temp_files
{
	my ($node) = @_;
	my $dd = $node->data_dir;
	my @files;
	for my $dir (glob("$dd/base/pgsql_tmp"), glob("$dd/pg_tblspc/*/PG_*/pgsql_tmp"))
	{
		next unless -d $dir;
		opendir(my $dh, $dir) or next;
		push @files, map { "$dir/$_" } grep { !/^\.\.?$/ } readdir($dh);
		closedir($dh);
	}
	return @files;
}

# The distinct non-empty values of query $sql, run again and again from
# another session until it returns nothing after having returned something
# (a statement's progress row, watched until the statement ends).
sub watch_query
{
	my ($node, $sql) = @_;
	my %seen;
	for (1 .. 3000)
	{
		my $p = $node->safe_psql('postgres', $sql);
		last if $p eq '' && %seen;
		$seen{$p} = 1 if $p ne '';
		Time::HiRes::usleep(20_000);
	}
	return %seen;
}

# What pg_stat_progress_create_index shows for the build on table $rel
# until it ends, watched from another session: a hash of the distinct
# "command|phase|tuples_total" seen.
sub watch_progress
{
	my ($node, $rel) = @_;
	return watch_query($node,
		"SELECT command || '|' || phase || '|' || tuples_total
		   FROM pg_stat_progress_create_index WHERE relid = '$rel'::regclass");
}

# The first non-empty value of query $sql, polled every 10ms for up to 30
# seconds ('' if none): waits for a statement to reach a phase.
sub first_value
{
	my ($node, $sql) = @_;
	for (1 .. 3000)
	{
		my $v = $node->safe_psql('postgres', $sql);
		return $v if $v ne '';
		Time::HiRes::usleep(10_000);
	}
	return '';
}

# A slow btree opclass on int (every comparison sleeps), so that sorts take
# long enough to be caught in each phase.
sub create_slow_opclass
{
	my ($node) = @_;
	$node->safe_psql('postgres', q{
CREATE FUNCTION slow_cmp(int, int) RETURNS int LANGUAGE plpgsql IMMUTABLE AS
$$ BEGIN PERFORM count(*) FROM generate_series(1, 10); RETURN btint4cmp($1, $2); END $$;
CREATE FUNCTION slow_lt(int, int) RETURNS bool LANGUAGE sql IMMUTABLE AS 'SELECT $1 < $2';
CREATE FUNCTION slow_le(int, int) RETURNS bool LANGUAGE sql IMMUTABLE AS 'SELECT $1 <= $2';
CREATE FUNCTION slow_eq(int, int) RETURNS bool LANGUAGE sql IMMUTABLE AS 'SELECT $1 = $2';
CREATE FUNCTION slow_ge(int, int) RETURNS bool LANGUAGE sql IMMUTABLE AS 'SELECT $1 >= $2';
CREATE FUNCTION slow_gt(int, int) RETURNS bool LANGUAGE sql IMMUTABLE AS 'SELECT $1 > $2';
CREATE OPERATOR <<< (LEFTARG = int, RIGHTARG = int, FUNCTION = slow_lt);
CREATE OPERATOR <<<= (LEFTARG = int, RIGHTARG = int, FUNCTION = slow_le);
CREATE OPERATOR === (LEFTARG = int, RIGHTARG = int, FUNCTION = slow_eq);
CREATE OPERATOR >>>= (LEFTARG = int, RIGHTARG = int, FUNCTION = slow_ge);
CREATE OPERATOR >>> (LEFTARG = int, RIGHTARG = int, FUNCTION = slow_gt);
CREATE OPERATOR CLASS slow_int_ops FOR TYPE int USING btree AS
  OPERATOR 1 <<<, OPERATOR 2 <<<=, OPERATOR 3 ===, OPERATOR 4 >>>=, OPERATOR 5 >>>,
  FUNCTION 1 slow_cmp(int, int);
});
}

1;
