-- The builtin collation provider (PostgreSQL 17: ucs_basic and pg_c_utf8;
-- 18 adds pg_unicode_fast) orders text by code point, which srmsort
-- compares as bytes.  Differential, as 10_types (ORDER BY) and 50_index
-- (CREATE INDEX): explicit builtin collations, then a database whose
-- default collation is builtin.  Before 17 there is no builtin provider.
SELECT current_setting('server_version_num')::int >= 170000 AS builtin_provider,
       current_setting('server_version_num')::int >= 180000 AS unicode_fast,
       current_database() AS regress_db \gset
SELECT :'builtin_provider'::bool AS builtin_provider;
\if :builtin_provider
SET client_min_messages = warning;
SET work_mem = '64kB';
SET maintenance_work_mem = '1MB';
SET srmsort.min_input_size = 0;
SET srmsort.tablespaces = 'srm_d0, srm_d1, srm_d2, srm_d3';
SET srmsort.random_seed = 1;
SET max_parallel_workers_per_gather = 0;
SET max_parallel_maintenance_workers = 0;

-- one to four byte UTF-8 sequences, case pairs, combining marks, code points
-- whose UTF-16 order differs from their code point order (U+FF5E, U+1F600)
SELECT setseed(0.75);
CREATE TABLE btx AS
SELECT i,
       (ARRAY['a', 'A', 'ä', 'Ä', 'z', 'é', 'e' || chr(769), 'ß', 'ss', 'Ω', 'ω',
              'ﾝ', '～', '😀', '𝔘', '中', '', ' ', 'a b', 'ab'])[1 + i % 20]
           || CASE WHEN i % 4 = 0 THEN '' ELSE chr(32 + (random() * 95)::int) END
           || CASE WHEN i % 3 = 0 THEN '' ELSE md5((i % 4000)::text) END AS t
  FROM generate_series(1, 20000) i;
ANALYZE btx;

SELECT * FROM srm_diff('SELECT * FROM btx ORDER BY t COLLATE ucs_basic', 't COLLATE ucs_basic');
SELECT * FROM srm_diff('SELECT * FROM btx ORDER BY t COLLATE pg_c_utf8 DESC', 't COLLATE pg_c_utf8');
SELECT * FROM srm_diff('SELECT * FROM btx ORDER BY lower(t COLLATE pg_c_utf8), i',
                       'lower(t COLLATE pg_c_utf8)', 'i');
SELECT * FROM srm_index_check('CREATE INDEX %I ON btx (t COLLATE pg_c_utf8)',
  ARRAY['SELECT t FROM btx WHERE t COLLATE pg_c_utf8 > ''ä'' ORDER BY t COLLATE pg_c_utf8']);
SELECT * FROM srm_index_check('CREATE UNIQUE INDEX %I ON btx (t COLLATE ucs_basic, i)');
\if :unicode_fast
SELECT * FROM srm_diff('SELECT * FROM btx ORDER BY t COLLATE pg_unicode_fast', 't COLLATE pg_unicode_fast');
SELECT * FROM srm_index_check('CREATE INDEX %I ON btx (t COLLATE pg_unicode_fast DESC)',
  ARRAY['SELECT t FROM btx WHERE t COLLATE pg_unicode_fast < ''Ω'' ORDER BY t COLLATE pg_unicode_fast DESC']);
\endif

-- A database whose default collation is builtin C.UTF-8: srmsort reads
-- the default collation from the database, not from the server's locale.
CREATE DATABASE srm_builtin_db TEMPLATE template0 ENCODING 'UTF8'
    LOCALE_PROVIDER builtin BUILTIN_LOCALE 'C.UTF-8' LOCALE 'C';
\c srm_builtin_db
CREATE EXTENSION srmsort;
CREATE EXTENSION amcheck;
SET client_min_messages = warning;
SET work_mem = '64kB';
SET maintenance_work_mem = '1MB';
SET srmsort.min_work_mem = '64kB';
SET srmsort.min_input_size = 0;
SET srmsort.tablespaces = 'srm_d0, srm_d1, srm_d2, srm_d3';
SET max_parallel_workers_per_gather = 0;
SET max_parallel_maintenance_workers = 0;
SELECT datlocprovider FROM pg_database WHERE datname = current_database();
CREATE TABLE bdt AS
SELECT i, chr(160 + (i * 7919) % 3000) || chr(65 + i % 58) || md5((i % 3000)::text) AS t
  FROM generate_series(1, 20000) i;
ANALYZE bdt;
EXPLAIN (COSTS OFF) SELECT t FROM bdt ORDER BY t;
SET srmsort.enabled = off;
CREATE TABLE bdt_n AS SELECT row_number() OVER () AS r, t FROM (SELECT t FROM bdt ORDER BY t) s;
SET srmsort.enabled = on;
SELECT coalesce(sum(bytes_written), 0) AS w0 FROM srmsort_disks \gset
CREATE TABLE bdt_s AS SELECT row_number() OVER () AS r, t FROM (SELECT t FROM bdt ORDER BY t) s;
SELECT sum(bytes_written) > :w0 AS external FROM srmsort_disks;
SELECT count(*) AS rows, count(*) FILTER (WHERE n.t IS DISTINCT FROM s.t) AS differences
  FROM bdt_n n FULL JOIN bdt_s s USING (r);
-- its index, built by srmsort, against PostgreSQL's order
SELECT coalesce(sum(bytes_written), 0) AS w0 FROM srmsort_disks \gset
CREATE INDEX bdt_t ON bdt (t);
SELECT sum(bytes_written) > :w0 AS via_srmsort FROM srmsort_disks;
SELECT bt_index_parent_check('bdt_t', true, true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT t FROM bdt ORDER BY t;
CREATE TABLE bdt_i AS SELECT row_number() OVER () AS r, t FROM (SELECT t FROM bdt ORDER BY t) s;
RESET enable_seqscan;
RESET enable_bitmapscan;
RESET enable_sort;
SELECT count(*) FILTER (WHERE n.t IS DISTINCT FROM x.t) AS index_differences
  FROM bdt_n n FULL JOIN bdt_i x USING (r);
\c :regress_db
DROP DATABASE srm_builtin_db;
DROP TABLE btx;
SELECT srm_temp_files();
\endif
