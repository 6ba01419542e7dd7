-- Parallel CREATE INDEX and REINDEX through srmsort (pbuild.c),
-- differential as 50_index: with workers planned (max_parallel_maintenance_workers
-- = 2, min_parallel_table_scan_size = 0, maintenance_work_mem = 96MB: 32MB
-- per participant, as plan_create_index_workers wants) PostgreSQL's build
-- and srmsort's both run with workers; srmsort's index must pass amcheck,
-- hold the same items on every page as PostgreSQL's and answer the same.
-- Merge order 2 makes the leader's merge of the participants' runs take
-- several passes; the leader scans too, then not
-- (parallel_leader_participation).  The server log shows the participants
-- (t/085_index_parallel.pl checks it).
CREATE EXTENSION IF NOT EXISTS srmsort;
SET client_min_messages = warning;
SET maintenance_work_mem = '96MB';
SET max_parallel_maintenance_workers = 2;
SET min_parallel_table_scan_size = 0;
SET srmsort.min_input_size = 0;
SET srmsort.tablespaces = 'srm_d0, srm_d1, srm_d2, srm_d3';
SET srmsort.random_seed = 1;
SET extra_float_digits = 3;
-- which participant meets an error first (PostgreSQL's workers check
-- uniqueness too; its leader always scans) shows only in CONTEXT
\set SHOW_CONTEXT never

SELECT setseed(0.25);
CREATE TABLE px AS
SELECT i,
       (random() * 1e9)::int8 AS a,
       (i % 1000)::int4 AS dup,
       CASE WHEN i % 23 = 0 THEN NULL ELSE (random() * 1e5)::int4 END AS n,
       (ARRAY['apple', 'Apple', 'äpple', 'résumé', 'resume', 'Zebra', ''])[1 + i % 7]
           || md5((i % 5000)::text) AS t,
       repeat('x', i % 50) AS pad
  FROM generate_series(1, 200000) i;
VACUUM ANALYZE px;

-- keys, duplicates (posting lists), NULLs, DESC / NULLS FIRST, collations
SELECT * FROM srm_index_check('CREATE INDEX %I ON px (a)',
  ARRAY['SELECT a FROM px WHERE a BETWEEN 1e8 AND 2e8 ORDER BY a']);
SELECT * FROM srm_index_check('CREATE INDEX %I ON px (dup)',
  ARRAY['SELECT dup, i FROM px WHERE dup = 42 ORDER BY dup']);
SELECT * FROM srm_index_check('CREATE INDEX %I ON px (n DESC NULLS FIRST)',
  ARRAY['SELECT n FROM px ORDER BY n DESC NULLS FIRST LIMIT 5000']);
SELECT * FROM srm_index_check('CREATE INDEX %I ON px (t COLLATE "C")',
  ARRAY['SELECT t FROM px WHERE t > ''r'' COLLATE "C" ORDER BY t COLLATE "C" LIMIT 1000']);
SELECT * FROM srm_index_check('CREATE INDEX %I ON px (t COLLATE "en-x-icu")',
  ARRAY['SELECT t FROM px ORDER BY t COLLATE "en-x-icu" LIMIT 2000']);
SELECT * FROM srm_index_check('CREATE INDEX %I ON px (dup, a DESC) INCLUDE (pad)');
-- expressions and predicates are evaluated by every participant
SELECT * FROM srm_index_check('CREATE INDEX %I ON px (lower(t), (a %% 1000))',
  ARRAY['SELECT lower(t), a % 1000 FROM px WHERE lower(t) LIKE ''apple%'' ORDER BY lower(t), a % 1000 LIMIT 300']);
SELECT * FROM srm_index_check('CREATE INDEX %I ON px (a) WHERE dup < 500',
  ARRAY['SELECT a FROM px WHERE dup < 500 AND a < 1e8 ORDER BY a']);
-- unique indexes
SELECT * FROM srm_index_check('CREATE UNIQUE INDEX %I ON px (i)',
  ARRAY['SELECT i FROM px WHERE i BETWEEN 500 AND 700 ORDER BY i']);
SELECT * FROM srm_index_check('CREATE UNIQUE INDEX %I ON px (dup, i DESC) INCLUDE (a)');

-- the leader's merge in several passes over the participants' runs
SET srmsort.max_merge_order = 2;
SELECT * FROM srm_index_check('CREATE INDEX %I ON px (t COLLATE "C", a)');
SELECT * FROM srm_index_check('CREATE UNIQUE INDEX %I ON px (i DESC)');

-- the workers alone scan
SET parallel_leader_participation = off;
SELECT * FROM srm_index_check('CREATE INDEX %I ON px (a)');
SELECT * FROM srm_index_check('CREATE INDEX %I ON px (t COLLATE "en-x-icu", dup)');
SELECT * FROM srm_index_check('CREATE UNIQUE INDEX %I ON px (i)');
RESET parallel_leader_participation;
RESET srmsort.max_merge_order;

-- unequal weights, set (srm_d0 three times the others): the participants
-- write their runs with a third of the leader's budget, and the leader
-- reads them by the stripe each was written with (exported with the run,
-- not rebuilt from its own budget); the merge in passes too
SET srmsort.disk_weights = 'srm_d0:3, srm_d1:1, srm_d2:1, srm_d3:1';
SELECT * FROM srm_index_check('CREATE INDEX %I ON px (a)');
SET srmsort.max_merge_order = 2;
SELECT * FROM srm_index_check('CREATE INDEX %I ON px (t COLLATE "C", i)');
SELECT * FROM srm_index_check('CREATE UNIQUE INDEX %I ON px (i DESC)');
RESET srmsort.max_merge_order;
-- ... and with budgets far enough apart that the stripes differ: at 384kB
-- a participant's longest period is 4 blocks, so its stripe over the four
-- disks is 1:1:1:1, while the leader's own is 2:1:1:1 (5 blocks); runs of
-- many 32kB blocks, read by the leader's stripe, would be looked for on the
-- wrong disks from their third block on
SET srmsort.debug_participant_mem = '384kB';
SET srmsort.block_size = '32kB';
SELECT * FROM srm_index_check('CREATE INDEX %I ON px (a)');
SELECT * FROM srm_index_check('CREATE UNIQUE INDEX %I ON px (i DESC)');
RESET srmsort.block_size;
RESET srmsort.debug_participant_mem;
RESET srmsort.disk_weights;

-- uniqueness: PostgreSQL's error, word for word, from both builds
CREATE TABLE pq AS SELECT i, i % 150000 AS k, NULL::int AS z FROM generate_series(1, 150001) i;
VACUUM ANALYZE pq;
SET srmsort.create_index = off;
CREATE UNIQUE INDEX pq_k ON pq (k);
SET srmsort.create_index = on;
CREATE UNIQUE INDEX pq_k ON pq (k);
SET srmsort.create_index = off;
CREATE UNIQUE INDEX pq_z ON pq (z) NULLS NOT DISTINCT;
SET srmsort.create_index = on;
CREATE UNIQUE INDEX pq_z ON pq (z) NULLS NOT DISTINCT;
SELECT * FROM srm_index_check('CREATE UNIQUE INDEX %I ON pq (z, i)');
-- dead duplicates go into the index but not into the uniqueness check
BEGIN;
DELETE FROM pq WHERE k % 10 = 0;
INSERT INTO pq SELECT i, i % 150000, NULL FROM generate_series(1, 149999) i WHERE i % 10 = 0;
SELECT * FROM srm_index_check('CREATE UNIQUE INDEX %I ON pq (i)',
  ARRAY['SELECT i FROM pq WHERE i BETWEEN 100 AND 300 ORDER BY i']);
SET LOCAL parallel_leader_participation = off;
SELECT * FROM srm_index_check('CREATE UNIQUE INDEX %I ON pq (i)');
COMMIT;

-- the PRIMARY KEY and UNIQUE constraints ALTER TABLE adds are built by
-- srmsort too (here with workers), with PostgreSQL's pages and errors
SET srmsort.create_index = off;
CREATE UNIQUE INDEX px_native ON px (i);
SET srmsort.create_index = on;
SELECT coalesce(sum(bytes_written), 0) AS w0 FROM srmsort_disks \gset
ALTER TABLE px ADD CONSTRAINT px_pkey PRIMARY KEY (i);
SELECT sum(bytes_written) > :w0 AS via_srmsort FROM srmsort_disks;
SELECT bt_index_parent_check('px_pkey', true, true),
       srm_index_pages_diff('px_native', 'px_pkey') AS differences;
SELECT coalesce(sum(bytes_written), 0) AS w0 FROM srmsort_disks \gset
ALTER TABLE px ADD CONSTRAINT px_i_a_key UNIQUE (i, a);
SELECT sum(bytes_written) > :w0 AS via_srmsort FROM srmsort_disks;
SELECT bt_index_parent_check('px_i_a_key', true, true);
ALTER TABLE px DROP CONSTRAINT px_pkey, DROP CONSTRAINT px_i_a_key;
DROP INDEX px_native;
SET srmsort.create_index = off;
ALTER TABLE pq ADD PRIMARY KEY (k);
ALTER TABLE pq ADD PRIMARY KEY (z);
SET srmsort.create_index = on;
ALTER TABLE pq ADD PRIMARY KEY (k);
ALTER TABLE pq ADD PRIMARY KEY (z);

-- an error in a worker (the leader does not scan) ends the build
SET parallel_leader_participation = off;
SET srmsort.create_index = off;
CREATE INDEX px_err ON px ((1 / (i - 777)));
SET srmsort.create_index = on;
CREATE INDEX px_err ON px ((1 / (i - 777)));
RESET parallel_leader_participation;

-- REINDEX TABLE with workers; an empty table
CREATE INDEX px_a ON px (a);
CREATE UNIQUE INDEX px_i ON px (i);
SELECT coalesce(sum(bytes_written), 0) AS w0 FROM srmsort_disks \gset
REINDEX TABLE px;
SELECT sum(bytes_written) > :w0 AS via_srmsort FROM srmsort_disks;
SELECT bt_index_parent_check('px_a', true, true), bt_index_parent_check('px_i', true, true);
DROP INDEX px_a, px_i;
CREATE TABLE pempty (a int);
ALTER TABLE pempty SET (parallel_workers = 2);
SELECT via_srmsort, identical FROM srm_index_check('CREATE INDEX %I ON pempty (a)');

-- no workfile left behind
SELECT srm_temp_files();
DROP TABLE px, pq, pempty;
