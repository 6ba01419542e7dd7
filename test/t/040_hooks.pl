# srmsort beside other extensions that hook the planner and executor:
# auto_explain logs the SRMSort plan with its facts, pg_stat_statements
# sees the query and the temporary blocks srmsort wrote, and results stay
# right.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SrmTest;

my $so = SrmTest::so_path();
my $node = SrmTest::node('hooks', extra_conf => qq{
shared_preload_libraries = 'pg_stat_statements, $so, auto_explain'
auto_explain.log_min_duration = 0
auto_explain.log_analyze = on
auto_explain.log_timing = off
work_mem = '64kB'
client_min_messages = warning
});
$node->safe_psql('postgres', q{
CREATE EXTENSION pg_stat_statements;
SELECT setseed(0.4);
CREATE TABLE h AS SELECT (random() * 1e6)::int AS k, md5(i::text) AS t FROM generate_series(1, 20000) i;
ANALYZE h;
});
my $q = "SELECT count(*), sum(k::bigint * r) FROM (SELECT k, row_number() OVER () AS r FROM (SELECT k FROM h ORDER BY k, t) o) s";
my $native = $node->safe_psql('postgres', "SET srmsort.enabled = off; $q");
my $srm = $node->safe_psql('postgres', "SET srmsort.tablespaces = 'srm_d0, srm_d1'; $q");
is($srm, $native, "same result with auto_explain and pg_stat_statements loaded");
ok($node->log_contains(qr/Custom Scan \(SRMSort\)/), "auto_explain logs the SRMSort node");
ok($node->log_contains(qr/Sort Method: external SRM merge/), "with its sort facts");
my $blks = $node->safe_psql('postgres',
	"SELECT max(temp_blks_written) FROM pg_stat_statements WHERE query LIKE '%ORDER BY k, t%'");
ok($blks > 0, "pg_stat_statements counts srmsort's temporary blocks ($blks)");
$node->stop;
done_testing();
