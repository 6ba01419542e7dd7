# The rule for Citus-managed tables, without Citus: a CREATE INDEX or
# REINDEX on a table listed in pg_catalog.pg_dist_partition, while an
# extension named citus exists, is left to core (and Citus): srmsort does
# not build it; REINDEX SCHEMA, VACUUM FULL and CLUSTER decide per table.  A stand-in catalog and extension row are made inside a
# transaction that is rolled back.  test/citus/run_citus.sh checks the same
# rule with a real Citus cluster.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SrmTest;

my $node = SrmTest::node('citus_rule', tablespaces => 2);
$node->safe_psql('postgres', q{
CREATE EXTENSION amcheck;
CREATE TABLE dist AS SELECT (random() * 1e9)::int8 AS a, i FROM generate_series(1, 50000) i;
CREATE TABLE plain AS SELECT * FROM dist;
});

# The indexes srmsort built (and tables it sorted for CLUSTER) while
# running $sql in one session.
sub built
{
	my ($sql) = @_;
	my ($out, $err) = ('', '');
	$node->psql('postgres', qq{
SET srmsort.trace = on;
SET srmsort.min_input_size = 0;
SET srmsort.tablespaces = 'srm_d0, srm_d1';
SET client_min_messages = log;
$sql
}, stdout => \$out, stderr => \$err, on_error_die => 1);
	my @names = $err =~ /srmsort: (?:built index|sorted table) "([^"]+)"/g;
	return join(' ', sort @names);
}

# The stand-in: the catalog Citus creates (its key column) and the row of
# an extension named citus.
my $standin = q{
SET LOCAL allow_system_table_mods = on;
CREATE TABLE pg_catalog.pg_dist_partition (logicalrelid regclass NOT NULL, partmethod "char" NOT NULL);
INSERT INTO pg_dist_partition VALUES ('dist', 'h');
};
my $extension = q{
INSERT INTO pg_extension (oid, extname, extowner, extnamespace, extrelocatable, extversion)
VALUES (999999, 'citus', 10, 'pg_catalog'::regnamespace, false, '0');
};

is(built(q{CREATE INDEX dist_a0 ON dist (a); DROP INDEX dist_a0;}),
	'dist_a0', 'without the stand-in srmsort builds the index');

is( built(qq{
BEGIN;
$standin
$extension
CREATE INDEX dist_a ON dist (a);
CREATE UNIQUE INDEX dist_i ON public.dist (i);
REINDEX INDEX dist_a;
REINDEX TABLE dist;
CREATE INDEX plain_a ON plain (a);
REINDEX INDEX plain_a;
SELECT bt_index_parent_check('dist_a', true, true), bt_index_parent_check('dist_i', true, true),
       bt_index_parent_check('plain_a', true, true);
ROLLBACK;
}),
	'plain_a plain_a',
	'a listed table: CREATE INDEX and REINDEX left to core; an unlisted one built by srmsort');

is( built(qq{
BEGIN;
$standin
CREATE INDEX dist_a ON dist (a);
ROLLBACK;
}),
	'dist_a', 'the catalog without the citus extension: srmsort builds');

is(built(q{CREATE INDEX dist_a ON dist (a); REINDEX TABLE dist;}),
	'dist_a dist_a', 'after the rollback srmsort builds again');
is($node->safe_psql('postgres', "SELECT bt_index_parent_check('dist_a', true, true)"),
	'', 'and the index is valid');

# Statements that reach many tables, or run in transactions of their own,
# decide per table: with the stand-in committed, REINDEX SCHEMA, VACUUM FULL
# and CLUSTER leave dist's builds and sort to core, and take plain's.
$node->safe_psql('postgres', qq{
CREATE INDEX plain_a ON plain (a);
BEGIN;
$standin
$extension
COMMIT;
});
is(built('REINDEX SCHEMA public'), 'plain_a', 'REINDEX SCHEMA: only the unlisted table\'s index');
is(built('VACUUM FULL dist, plain'), 'plain_a', 'VACUUM FULL: likewise');
is( built(q{
SET random_page_cost = 100;
SET srmsort.create_index = off;
CLUSTER dist USING dist_a;
CLUSTER plain USING plain_a;
}),
	'plain', 'CLUSTER: only the unlisted table is sorted by srmsort');
$node->safe_psql('postgres', q{
SET allow_system_table_mods = on;
DELETE FROM pg_extension WHERE oid = 999999;
DROP TABLE pg_catalog.pg_dist_partition;
});
is(built('REINDEX SCHEMA public'), 'dist_a plain_a', 'the stand-in gone, srmsort builds both');
$node->stop;
done_testing();
