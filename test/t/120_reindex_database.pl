# REINDEX DATABASE (plain, then CONCURRENTLY) on a database with three
# hundred small indexes and two large ones: srmsort builds the two large
# ones, PostgreSQL the small ones (below srmsort.min_input_size, decided
# from the tables' real sizes), the catalogs' and the TOAST tables'; every
# index is sound afterwards.  And an index on a table never vacuumed and
# empty is PostgreSQL's (the table AM's estimate of such a table assumes
# ten pages).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SrmTest;

my $node = SrmTest::node('reindexdb', extra_conf => qq{
srmsort.trace = on
srmsort.tablespaces = 'srm_d0, srm_d1, srm_d2, srm_d3'
autovacuum = off
});
$node->safe_psql('postgres', 'CREATE DATABASE rdb');
$node->safe_psql('rdb', q{
CREATE EXTENSION amcheck;
DO $$
BEGIN
  FOR n IN 1 .. 300 LOOP
    EXECUTE format('CREATE TABLE small%s AS SELECT i, md5(i::text) AS t FROM generate_series(1, 100) i', n);
    EXECUTE format('CREATE INDEX small%s_t ON small%s (t)', n, n);
  END LOOP;
END $$;
CREATE TABLE big1 AS SELECT i, (random() * 1e9)::int8 AS a FROM generate_series(1, 300000) i;
CREATE TABLE big2 AS SELECT i, md5(i::text) AS t, repeat('z', 3000) AS toasted FROM generate_series(1, 200000) i;
CREATE INDEX big1_a ON big1 (a);
CREATE UNIQUE INDEX big2_t ON big2 (t);
VACUUM ANALYZE;
});

# The indexes srmsort built while running $sql on rdb.
sub built
{
	my ($sql) = @_;
	my $pos = -s $node->logfile;
	$node->safe_psql('rdb', $sql);
	my @names = slurp_file($node->logfile, $pos) =~ /srmsort: built index "([^"]+)"/g;
	return join(' ', sort @names);
}

# btree indexes, and how many are valid, each one checked by amcheck
# (which raises an error for an index that is not sound)
my $check = q{
SELECT count(*), count(*) FILTER (WHERE valid)
  FROM (SELECT c.oid, x.indisvalid AS valid
          FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid
          JOIN pg_am am ON am.oid = c.relam
         WHERE am.amname = 'btree' AND c.relpersistence <> 't' OFFSET 0) s
 WHERE bt_index_check(s.oid, true) IS NOT NULL};

is(built('REINDEX DATABASE rdb'), 'big1_a big2_t',
	'REINDEX DATABASE: srmsort built the two large indexes, PostgreSQL the others');
my ($n, $ok) = split /\|/, $node->safe_psql('rdb', $check);
cmp_ok($n, '>', 300, "$n btree indexes");
is($ok, $n, 'every one valid and sound');

is(built('REINDEX DATABASE CONCURRENTLY rdb'), 'big1_a_ccnew big2_t_ccnew',
	'REINDEX DATABASE CONCURRENTLY: the same two through srmsort');
($n, $ok) = split /\|/, $node->safe_psql('rdb', $check);
is($ok, $n, 'every index valid and sound again');
is($node->safe_psql('rdb',
		"SELECT count(*) FROM big1 WHERE a >= 0; SET enable_seqscan = off; SET enable_bitmapscan = off;
		 SELECT count(*) FROM big1 WHERE a >= 0"),
	"300000\n300000", 'big1_a answers');

# an empty table, never vacuumed: PostgreSQL's build
is(built('CREATE TABLE x1 (i bigint, t text); CREATE INDEX ON x1 (t); CREATE INDEX ON x1 (i)'),
	'', 'an index on an empty table is PostgreSQL\'s');
# a small one, never vacuumed, with rows on one page: PostgreSQL's too
is(built('CREATE TABLE x2 AS SELECT i FROM generate_series(1, 200) i; CREATE INDEX ON x2 (i)'),
	'', 'and one on a table of one page');
is(built("SET srmsort.min_input_size = 0; CREATE INDEX x2_i0 ON x2 (i)"), 'x2_i0',
	'unless srmsort.min_input_size is 0');
$node->stop;
done_testing();
