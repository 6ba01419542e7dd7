# CLUSTER's heap sort through srmsort, against PostgreSQL's own: on a table
# with TOAST values, a dropped column, and dead and recently dead row
# versions (an old snapshot held by another session), CLUSTER in a
# transaction rolled back gives the very same new heap (every line pointer,
# header -- xmin, xmax, ctid, infomask -- and data byte) and the same
# VERBOSE counts as PostgreSQL's, for unique keys of several kinds; with
# equal keys the same tuples, in key order.  Committed, the heap passes
# verify_heapam and the rebuilt indexes amcheck.  pg_stat_progress_cluster
# shows PostgreSQL's phases and counts; a cancel in the middle of the sort
# leaves the table as it was and no workfile; CLUSTER of every clustered
# table (a transaction each) sorts each.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use SrmTest;

my $node = SrmTest::node('cluster', extra_conf => qq{
maintenance_work_mem = '1MB'
srmsort.min_input_size = 0
srmsort.trace = on
srmsort.tablespaces = 'srm_d0, srm_d1, srm_d2, srm_d3'
random_page_cost = 100
autovacuum = off
});
$node->safe_psql('postgres', q{
CREATE EXTENSION amcheck;
CREATE EXTENSION pageinspect;
SELECT setseed(0.2);
CREATE TABLE x (i int, a int8, t text, gone text, g int, pad text);
ALTER TABLE x ALTER pad SET STORAGE external;
INSERT INTO x
SELECT i, (i::int8 * 2654435761) % 4294967291, md5(i::text), 'x', i % 100,
       CASE WHEN i % 50 = 0 THEN repeat(md5(i::text), 100) ELSE 'p' END
  FROM generate_series(1, 100000) i ORDER BY random();
CREATE UNIQUE INDEX x_i ON x (i);
CREATE INDEX x_a ON x (a DESC NULLS FIRST);
CREATE INDEX x_t ON x (upper(t), i);
CREATE INDEX x_g ON x (g);
ALTER TABLE x DROP COLUMN gone;
UPDATE x SET pad = 'u' WHERE i % 7 = 0;
DELETE FROM x WHERE i % 11 = 0;
CREATE TABLE other (z int);
VACUUM ANALYZE x;
-- every column of fixed length: srmsort copies the tuples rather than
-- re-forming them, but for those older than the column added last
CREATE TABLE f (k int8, a int4, b float8, c int2, u uuid, e bool);
INSERT INTO f
SELECT (i::int8 * 2654435761) % 4294967291, CASE WHEN i % 9 <> 0 THEN i END, i / 7.0,
       (i % 1000)::int2, CASE WHEN i % 5 <> 0 THEN md5(i::text)::uuid END, i % 2 = 0
  FROM generate_series(1, 60000) i ORDER BY random();
ALTER TABLE f ADD COLUMN late int8 DEFAULT 42;
INSERT INTO f
SELECT (i::int8 * 2654435761) % 4294967291, i, i / 3.0, (i % 10)::int2, NULL, NULL,
       CASE WHEN i % 4 = 0 THEN NULL ELSE i END
  FROM generate_series(60001, 90000) i ORDER BY random();
CREATE UNIQUE INDEX f_k ON f (k);
CREATE INDEX f_a ON f (a NULLS FIRST, k);
DELETE FROM f WHERE k % 10 = 3;
VACUUM ANALYZE f;
-- a key of two bytes and rows both sides of 127 bytes: the sorted record's
-- heap tuple starts right after the key, or at the next int boundary (keys
-- unique, one NULL among them: equal keys may come in any order)
CREATE TABLE w (c int2, v text);
INSERT INTO w
SELECT CASE WHEN i <> 777 THEN (i - 10000)::int2 END, repeat(md5(i::text), i % 9)
  FROM generate_series(1, 20000) i ORDER BY random();
CREATE INDEX w_c ON w (c);
VACUUM ANALYZE w;
});

# a snapshot older than the next changes, on another table: those rows'
# old versions are recently dead for CLUSTER
my $old = $node->background_psql('postgres');
$old->query_safe("BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM other;");
$node->safe_psql('postgres', q{
UPDATE x SET a = a + 4294967291 WHERE i % 13 = 0;
DELETE FROM x WHERE i % 17 = 0;
UPDATE x SET pad = repeat('v', 3000) WHERE i % 101 = 0;
UPDATE f SET b = -b WHERE k % 10 = 7;
DELETE FROM f WHERE k % 10 = 9;
});

# CLUSTER in a transaction rolled back: the new heap's pages and VERBOSE's
# counts (srmsort.create_index off: the index rebuilds are PostgreSQL's)
sub pages
{
	my ($table) = @_;
	return "SELECT md5(string_agg(format('%s %s %s %s %s %s %s %s %s %s %s', b, lp, lp_off, lp_flags,
                  lp_len, t_xmin, t_xmax, t_field3, t_ctid, t_infomask2 || ' ' || t_infomask,
                  t_data), E'\\n' ORDER BY b, lp)), count(*)
               FROM generate_series(0, pg_relation_size('$table') / 8192 - 1) b,
                    heap_page_items(get_raw_page('$table', b::int))";
}
sub cluster_in_xact
{
	my ($mode, $index, $table, $settings) = @_;
	$table //= 'x';
	$settings //= '';
	my $pages = pages($table);
	my ($ret, $out, $err) = $node->psql('postgres', qq{
SET srmsort.create_index = off;
SET srmsort.cluster = $mode;
$settings
BEGIN;
CLUSTER VERBOSE $table USING $index;
$pages;
ROLLBACK;
});
	$err =~ s/^CPU: .*$//mg;
	return ($out, $err);
}

for my $index (qw(x_i x_a x_t))
{
	# the first run sets the hint bits the next ones copy
	cluster_in_xact('off', $index);
	my ($core, $core_info) = cluster_in_xact('off', $index);
	my ($srm, $srm_info) = cluster_in_xact('on', $index);
	like($core_info, qr/using sequential scan and sort/, "$index: PostgreSQL sorts");
	like($core_info, qr/ [1-9]\d* dead row versions cannot be removed yet/,
		"$index: with recently dead row versions") or diag($core_info);
	is($srm, $core, "$index: the same new heap, page by page, as PostgreSQL's CLUSTER");
	is($srm_info, $core_info, "$index: the same messages");
}
my @sorted = slurp_file($node->logfile) =~ /srmsort: sorted table "x" for CLUSTER: (\d+) tuples/g;
is_deeply(\@sorted, [ 98750, 98750, 98750 ], 'srmsort sorted the table each time it was on');

# fixed-length columns: tuples copied as they are where re-forming them
# would give the same bytes, re-formed where not (NULLs, the added column)
for my $index (qw(f_k f_a))
{
	cluster_in_xact('off', $index, 'f');
	my ($core, $core_info) = cluster_in_xact('off', $index, 'f');
	my ($srm, $srm_info) = cluster_in_xact('on', $index, 'f');
	like($core_info, qr/ [1-9]\d* dead row versions cannot be removed yet/,
		"$index: with recently dead row versions") or diag($core_info);
	is($srm, $core, "$index: the same new heap, page by page, as PostgreSQL's CLUSTER");
	is($srm_info, $core_info, "$index: the same messages");
}
like(slurp_file($node->logfile), qr/srmsort: sorted table "f" for CLUSTER/, 'srmsort sorted f');
{
	cluster_in_xact('off', 'w_c', 'w');
	my ($core, $core_info) = cluster_in_xact('off', 'w_c', 'w');
	my ($srm, $srm_info) = cluster_in_xact('on', 'w_c', 'w');
	is($srm, $core, "w_c: the same new heap, page by page, as PostgreSQL's CLUSTER");
	is($srm_info, $core_info, "w_c: the same messages");
	like(slurp_file($node->logfile), qr/srmsort: sorted table "w" for CLUSTER/, 'srmsort sorted w');
}

# with the workers PostgreSQL would give building the index (two at 128MB,
# one at 64MB): scanned and sorted by every participant, merged by worker
# 0, written by the leader -- the same tuples (versions of one row share
# their key: those may come in another order), in key order, and the same
# messages
sub tuples
{
	my ($table) = @_;
	return "SELECT md5(string_agg(format('%s %s %s %s %s', t_xmin, t_xmax, t_infomask2, t_infomask, t_data),
                  E'\\n' ORDER BY t_data, t_xmin::text::bigint)), count(*)
               FROM generate_series(0, pg_relation_size('$table') / 8192 - 1) b,
                    heap_page_items(get_raw_page('$table', b::int))";
}
for my $case (['128MB', 'x', 'x_a', 3, 'a >= lead(a) OVER (ORDER BY ctid)'],
			  ['64MB', 'x', 'x_i', 2, 'i <= lead(i) OVER (ORDER BY ctid)'],
			  ['128MB', 'f', 'f_k', 3, 'k <= lead(k) OVER (ORDER BY ctid)'])
{
	my ($mem, $table, $index, $np, $inorder) = @$case;
	my $check = tuples($table) . ";\nSELECT bool_and(o) FROM (SELECT $inorder AS o FROM $table) s";
	my %r;
	my $log_pos = -s $node->logfile;
	for my $mode ('off', 'on')
	{
		my ($ret, $out, $err) = $node->psql('postgres', qq{
SET srmsort.create_index = off;
SET srmsort.cluster = $mode;
SET maintenance_work_mem = '$mem';
SET max_parallel_maintenance_workers = 2;
SET min_parallel_table_scan_size = 0;
BEGIN;
CLUSTER VERBOSE $table USING $index;
$check;
ROLLBACK;
});
		$err =~ s/^CPU: .*$//mg;
		$r{$mode} = [ $out, $err ];
	}
	like($r{off}[0], qr/^[0-9a-f]{32}\|[1-9]\d*\n/, "$index at $mem: PostgreSQL's tuples") or diag($r{off}[1]);
	is($r{on}[0], $r{off}[0], "$index at $mem, parallel: the same tuples as PostgreSQL's CLUSTER");
	like($r{on}[0], qr/\nt$/, "$index at $mem, parallel: in key order");
	is($r{on}[1], $r{off}[1], "$index at $mem, parallel: the same messages");
	like(slurp_file($node->logfile, $log_pos),
		qr/sorted table "$table" for CLUSTER: \d+ tuples, [\d.]+ s\n[^\n]*DETAIL:  participants $np \(\d workers and the leader\)/,
		"$index at $mem: $np participants");
}
# an expression index: PostgreSQL's CLUSTER runs no user code in a worker,
# nor does srmsort's (an error there would say "parallel worker")
{
	my $log_pos = -s $node->logfile;
	my $settings = "SET maintenance_work_mem = '128MB'; SET max_parallel_maintenance_workers = 2;
		SET min_parallel_table_scan_size = 0;";
	my ($core, $core_info) = cluster_in_xact('off', 'x_t', 'x', $settings);
	my ($srm, $srm_info) = cluster_in_xact('on', 'x_t', 'x', $settings);
	is($srm, $core, "x_t at 128MB: the same new heap as PostgreSQL's CLUSTER");
	my $log = slurp_file($node->logfile, $log_pos);
	like($log, qr/sorted table "x" for CLUSTER/, 'x_t at 128MB: srmsort sorted');
	unlike($log, qr/participants/, 'x_t at 128MB: in one process');
}

# equal keys: the same tuples, in key order
my $tuples = "SELECT md5(string_agg(format('%s %s %s %s', t_xmin, t_xmax, t_infomask, t_data),
                  E'\\n' ORDER BY t_data)), count(*)
               FROM generate_series(0, pg_relation_size('x') / 8192 - 1) b,
                    heap_page_items(get_raw_page('x', b::int))";
my %dup;
for my $mode ('off', 'on')
{
	$dup{$mode} = $node->safe_psql('postgres', qq{
SET srmsort.cluster = $mode;
BEGIN;
CLUSTER x USING x_g;
$tuples;
SELECT bool_and(g >= pg) FROM (SELECT g, lag(g) OVER (ORDER BY ctid) AS pg FROM x) s;
ROLLBACK;
});
}
is($dup{on}, $dup{off}, 'equal keys: the same tuples as PostgreSQL\'s CLUSTER');
like($dup{on}, qr/\nt$/, 'in key order');
$old->quit;

# committed: a sound heap with every row, sound indexes
my $rows = "SELECT count(*), md5(string_agg(x::text, ',' ORDER BY i)) FROM x";
my $before = $node->safe_psql('postgres', $rows);
$node->safe_psql('postgres', "CLUSTER x USING x_t");
is($node->safe_psql('postgres', "SELECT count(*) FROM verify_heapam('x')"), '0', 'verify_heapam finds nothing');
is($node->safe_psql('postgres', $rows), $before, 'every row is there');
is($node->safe_psql('postgres', q{
SELECT bt_index_parent_check('x_i', true, true), bt_index_parent_check('x_a', true, true),
       bt_index_parent_check('x_t', true, true), bt_index_parent_check('x_g', true, true)}),
	'|||', 'the rebuilt indexes are sound');
is($node->safe_psql('postgres',
		"SELECT bool_and((upper(t), i) > (pu, pi)) FROM (SELECT t, i, lag(upper(t)) OVER (ORDER BY ctid) AS pu,
		        lag(i) OVER (ORDER BY ctid) AS pi FROM x) s"),
	't', 'the heap is in the index\'s order');

# progress, watched from another session, of a sort slowed down by a slow
# opclass: PostgreSQL's phases, every tuple scanned before the sort
SrmTest::create_slow_opclass($node);
$node->safe_psql('postgres', q{
CREATE TABLE s AS SELECT i AS k, md5(i::text) AS v FROM generate_series(1, 5000) i ORDER BY random();
CREATE INDEX s_k ON s (k slow_int_ops);
VACUUM ANALYZE s;
});
my $bg = $node->background_psql('postgres', on_error_stop => 0);
$bg->query_until(qr/started/, "\\echo started\nCLUSTER s USING s_k;\n");
my %seen = SrmTest::watch_query($node,
	"SELECT command || '|' || phase || '|' || heap_tuples_scanned || '|' || heap_tuples_written
	        || '|' || (heap_blks_scanned = heap_blks_total)
	   FROM pg_stat_progress_cluster WHERE relid = 's'::regclass");
$bg->quit;
like(slurp_file($node->logfile), qr/sorted table "s" for CLUSTER: 5000 tuples/, 'srmsort sorted s');
ok($seen{'CLUSTER|sorting tuples|5000|0|true'}, 'progress: every tuple scanned, then sorted')
  or diag(join("\n", sort keys %seen));
ok(scalar(grep { !/^CLUSTER\|(seq scanning heap|sorting tuples|writing new heap|swapping relation files|rebuilding index|performing final cleanup)\|/ } keys %seen) == 0,
	'only the phases of PostgreSQL\'s sorting CLUSTER') or diag(join("\n", sort keys %seen));

# a cancel in the middle of the sort: the table as it was, no workfile, and
# the next CLUSTER sorts
$node->safe_psql('postgres', "CREATE TABLE s2 AS SELECT * FROM s ORDER BY random();
	CREATE INDEX s2_k ON s2 (k slow_int_ops); VACUUM ANALYZE s2");
my $s2 = "SELECT count(*), sum(k), md5(string_agg(v, ',' ORDER BY ctid)) FROM s2";
my $s2_before = $node->safe_psql('postgres', $s2);
$bg = $node->background_psql('postgres', on_error_stop => 0);
$bg->query_until(qr/started/, "\\echo started\nCLUSTER s2 USING s2_k;\n\\echo finished\n");
my $pid = SrmTest::first_value($node,
	"SELECT pid FROM pg_stat_progress_cluster WHERE relid = 's2'::regclass AND phase = 'sorting tuples'");
ok($pid ne '', 'the CLUSTER is sorting');
$node->safe_psql('postgres', "SELECT pg_cancel_backend($pid)");
$bg->query_until(qr/finished/, "");
$bg->quit;
like($bg->{stderr}, qr/ERROR:  canceling statement due to user request/, 'canceled');
is($node->safe_psql('postgres', $s2), $s2_before, 'the table is as it was');
is_deeply([ SrmTest::temp_files($node) ], [], 'no workfile left');
$node->safe_psql('postgres', "CLUSTER s2 USING s2_k");
like(slurp_file($node->logfile), qr/sorted table "s2" for CLUSTER: 5000 tuples/, 'the next CLUSTER sorts');

# CLUSTER without a table: every clustered table, a transaction each
$node->safe_psql('postgres', q{
INSERT INTO s SELECT k + 5000, v FROM s ORDER BY random();
INSERT INTO x (i, a, t, g, pad) SELECT i, i, md5(i::text), 1, 'q' FROM generate_series(200001, 300000) i ORDER BY random();
VACUUM ANALYZE s, x;
});
my $log_pos = -s $node->logfile;
$node->safe_psql('postgres', "CLUSTER");
my $log = slurp_file($node->logfile, $log_pos);
like($log, qr/sorted table "s" for CLUSTER: 10000 tuples/, 'CLUSTER sorted s');
like($log, qr/sorted table "x" for CLUSTER: \d+ tuples/, 'and x');
like($log, qr/built index "x_g"/, 'and rebuilt their indexes');
is($node->safe_psql('postgres', "SELECT count(*) FROM verify_heapam('x'); SELECT count(*) FROM verify_heapam('s')"),
	"0\n0", 'both heaps sound');

ok(!$node->log_contains(qr/temporary file leak|WARNING|PANIC|TRAP/), 'no warnings in the log');
$node->stop;
done_testing();
