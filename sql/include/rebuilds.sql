-- The body of 56_rebuilds, run once with srmsort's builds and CLUSTER sort
-- off and once on: everything it prints must be the same both times.  Each
-- step runs one command on a table with plain, expression, partial,
-- unique, multi-column and INCLUDE btree indexes, then checks every index
-- (rb_check: valid and ready flags, bt_index_parent_check with
-- heapallindexed, its size in pages -- srmsort writes PostgreSQL's pages --
-- and the answers of scans through it); rb_step notes in rb_log whether
-- srmsort's disks were written, which 56_rebuilds prints at the end.
SELECT setseed(0.36);
CREATE SCHEMA rbs;
CREATE TABLE rbs.rb AS
SELECT i,
       (i::int8 * 2654435761) % 4294967291 AS a,
       (i % 500)::int4 AS g,
       md5(i::text) AS t,
       CASE WHEN i % 17 = 0 THEN NULL ELSE (random() * 1e5)::int4 END AS n,
       repeat('x', i % 40) AS pad
  FROM generate_series(1, 60000) i;
ALTER TABLE rbs.rb OWNER TO regress_rb_owner;
GRANT USAGE ON SCHEMA rbs TO regress_rb_owner;
VACUUM ANALYZE rbs.rb;

-- CREATE INDEX CONCURRENTLY: every kind of index
SELECT rb_written() AS w0 \gset
CREATE INDEX CONCURRENTLY rb_a ON rbs.rb (a);
CREATE UNIQUE INDEX CONCURRENTLY rb_i ON rbs.rb (i);
CREATE INDEX CONCURRENTLY rb_expr ON rbs.rb (lower(t), rb_owner_fn(a));
CREATE INDEX CONCURRENTLY rb_part ON rbs.rb (a) WHERE g < 100;
CREATE INDEX CONCURRENTLY rb_multi ON rbs.rb (g, a DESC);
CREATE INDEX CONCURRENTLY rb_incl ON rbs.rb (g) INCLUDE (pad, i);
SELECT rb_step(:'mode', 'create index concurrently', :w0);
SELECT * FROM rb_check();

-- REINDEX CONCURRENTLY: an index, the table, its schema
SELECT rb_written() AS w0 \gset
REINDEX INDEX CONCURRENTLY rbs.rb_expr;
SELECT rb_step(:'mode', 'reindex index concurrently', :w0);
SELECT rb_written() AS w0 \gset
REINDEX TABLE CONCURRENTLY rbs.rb;
SELECT rb_step(:'mode', 'reindex table concurrently', :w0);
SELECT rb_written() AS w0 \gset
REINDEX SCHEMA CONCURRENTLY rbs;
SELECT rb_step(:'mode', 'reindex schema concurrently', :w0);
SELECT * FROM rb_check();

-- REINDEX SCHEMA, in a transaction per table
SELECT rb_written() AS w0 \gset
REINDEX SCHEMA rbs;
SELECT rb_step(:'mode', 'reindex schema', :w0);
SELECT * FROM rb_check();

-- ALTER TABLE that rewrites: an unindexed column's type, an indexed one's
-- (its indexes are recreated), the access method, the persistence
SELECT rb_written() AS w0 \gset
ALTER TABLE rbs.rb ALTER COLUMN n TYPE int8;
SELECT rb_step(:'mode', 'alter column type (rewrite)', :w0);
SELECT * FROM rb_check();
SELECT rb_written() AS w0 \gset
ALTER TABLE rbs.rb ALTER COLUMN g TYPE int8;
SELECT rb_step(:'mode', 'alter indexed column type', :w0);
SELECT * FROM rb_check();
SELECT rb_written() AS w0 \gset
ALTER TABLE rbs.rb SET ACCESS METHOD rb_heap2;
SELECT rb_step(:'mode', 'set access method', :w0);
SELECT * FROM rb_check();
SELECT rb_written() AS w0 \gset
ALTER TABLE rbs.rb SET ACCESS METHOD heap;
SELECT rb_step(:'mode', 'set access method back', :w0);
SELECT rb_written() AS w0 \gset
ALTER TABLE rbs.rb SET UNLOGGED;
SELECT rb_step(:'mode', 'set unlogged', :w0);
SELECT rb_written() AS w0 \gset
ALTER TABLE rbs.rb SET LOGGED;
SELECT rb_step(:'mode', 'set logged', :w0);
SELECT * FROM rb_check();

-- CLUSTER: the heap sorted in the order of the index, its indexes rebuilt;
-- the same tuples in the same places (unique keys) and a sound heap
SET random_page_cost = 100;
SELECT rb_written() AS w0 \gset
CLUSTER rbs.rb USING rb_multi;
SELECT rb_step(:'mode', 'cluster (multi-column)', :w0);
SELECT * FROM rb_check();
SELECT * FROM rb_heap();
SELECT rb_written() AS w0 \gset
CLUSTER rbs.rb USING rb_expr;
SELECT rb_step(:'mode', 'cluster (expression)', :w0);
SELECT * FROM rb_heap();
-- again, the table now in that order: PostgreSQL scans the index, srmsort
-- only rebuilds the indexes
SELECT rb_written() AS w0 \gset
CLUSTER rbs.rb;
SELECT rb_step(:'mode', 'cluster (index scan)', :w0);
SELECT * FROM rb_heap();
RESET random_page_cost;

-- VACUUM FULL: the heap in its order, every index rebuilt
DELETE FROM rbs.rb WHERE i % 10 = 0;
SELECT rb_written() AS w0 \gset
VACUUM FULL rbs.rb;
SELECT rb_step(:'mode', 'vacuum full', :w0);
SELECT * FROM rb_check();
SELECT * FROM rb_heap();

-- REFRESH MATERIALIZED VIEW: its indexes rebuilt after the new contents
CREATE MATERIALIZED VIEW rbs.rbmv AS SELECT i, a, t FROM rbs.rb WHERE g < 300;
CREATE UNIQUE INDEX rbmv_i ON rbs.rbmv (i);
CREATE INDEX rbmv_t ON rbs.rbmv (t);
SET ROLE regress_rb_owner;
INSERT INTO rbs.rb SELECT i, i, 1, md5(i::text), NULL, '' FROM generate_series(60001, 62000) i;
RESET ROLE;
SELECT rb_written() AS w0 \gset
REFRESH MATERIALIZED VIEW rbs.rbmv;
SELECT rb_step(:'mode', 'refresh materialized view', :w0);
SELECT c.relname, bt_index_parent_check(c.oid, true, true),
       pg_relation_size(c.oid) / 8192 AS pages
  FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid
 WHERE x.indrelid = 'rbs.rbmv'::regclass ORDER BY 1;

-- temporary tables: CONCURRENTLY builds them in place
CREATE TEMP TABLE rbt AS SELECT * FROM rbs.rb;
SELECT rb_written() AS w0 \gset
CREATE INDEX CONCURRENTLY rbt_a ON rbt (a);
REINDEX TABLE CONCURRENTLY rbt;
SELECT rb_step(:'mode', 'concurrently, temporary table', :w0);
SELECT bt_index_parent_check('rbt_a', true, true),
       pg_relation_size('rbt_a') / 8192 AS pages;
DROP TABLE rbt;

-- without max_parallel_maintenance_workers too (PostgreSQL's concurrent
-- build then asks the planner nothing)
SET max_parallel_maintenance_workers = 0;
SELECT rb_written() AS w0 \gset
CREATE INDEX CONCURRENTLY rb_t ON rbs.rb (t);
SELECT rb_step(:'mode', 'concurrently, no maintenance workers', :w0);
SET max_parallel_maintenance_workers = 2;
SELECT bt_index_parent_check('rbs.rb_t', true, true);

-- the event triggers saw every command as usual (REINDEX, which fires
-- them from PostgreSQL 17 on, is compared at the end)
SELECT tag, count(*) FROM rb_events WHERE mode = :'mode' AND tag <> 'REINDEX'
 GROUP BY tag ORDER BY tag;
DROP SCHEMA rbs CASCADE;
