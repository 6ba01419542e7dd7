-- The record format of runs (src/keys/record.c) at its edges, external (64kB,
-- four disks) and in memory (64MB): records of 1 byte to several blocks,
-- all-NULL rows, NULLs before the first key, many columns, dropped and
-- added columns (values the tuple lacks), compressed and TOASTed keys,
-- expanded values, first keys whose normalized form is stored or re-derived
-- from the column, random access; and the bytes written, against
-- PostgreSQL's own sort.
CREATE EXTENSION IF NOT EXISTS srmsort;
SET client_min_messages = warning;
SET srmsort.random_seed = 7;
SET max_parallel_workers_per_gather = 0;
SET srmsort.tablespaces = 'srm_d0, srm_d1, srm_d2, srm_d3';
SELECT setseed(0.25);

-- widths from an empty value to records over several 16kB-32kB blocks,
-- built in the query so that they reach the sort uncompressed
CREATE TABLE fw AS
SELECT i, (random() * 1000)::int AS k,
       CASE WHEN i % 97 = 0 THEN 70000 + i % 5000
            WHEN i % 13 = 0 THEN 1000 + i % 3000
            ELSE i % 40 END AS w
  FROM generate_series(1, 3000) i;
ANALYZE fw;
-- all NULL
CREATE TABLE fnull AS
SELECT CASE WHEN i % 3 = 0 THEN i END AS a, CASE WHEN i % 5 = 0 THEN md5(i::text) END AS b,
       CASE WHEN i % 7 = 0 THEN i::float8 / 3 END AS c
  FROM generate_series(1, 6000) i;
CREATE TABLE fallnull AS
SELECT NULL::int8 AS a, NULL::text AS b FROM generate_series(1, 6000) i;
-- many columns (a null bitmap of 16 bytes), every tenth one NULL in some rows
SELECT format('CREATE TABLE fwide AS SELECT %s FROM generate_series(1, 4000) i',
              string_agg(format('CASE WHEN (i + %s) %% 10 = 0 THEN NULL ELSE (i * %s) %% 1009 END::int8 AS c%s',
                                j, j, j), ', '))
  FROM generate_series(1, 120) j \gexec
ALTER TABLE fwide ADD COLUMN t text;
UPDATE fwide SET t = md5(c1::text) WHERE c2 % 3 = 0;
-- dropped columns, and columns added later (with a default: stored tuples
-- lack them, deforming supplies the default)
CREATE TABLE fdrop (a int4, b text, c int8, d float8);
INSERT INTO fdrop SELECT i, md5(i::text), (i * 7) % 1000, i / 7.0 FROM generate_series(1, 5000) i;
ALTER TABLE fdrop DROP COLUMN b;
ALTER TABLE fdrop ADD COLUMN e int8 DEFAULT 42;
ALTER TABLE fdrop ADD COLUMN f text DEFAULT 'x';
INSERT INTO fdrop SELECT i, (i * 7) % 1000, i / 7.0, i % 100, md5(i::text) FROM generate_series(5001, 7000) i;
ALTER TABLE fdrop DROP COLUMN a;
-- compressed and TOASTed keys
CREATE TABLE ftoast (i int, t text);
ALTER TABLE ftoast ALTER COLUMN t SET STORAGE external;
INSERT INTO ftoast SELECT i, md5(i::text) || repeat('y', 3000 + i % 50) FROM generate_series(1, 300) i;
ALTER TABLE ftoast ALTER COLUMN t SET STORAGE extended;
INSERT INTO ftoast SELECT i, md5(i::text) || repeat('z', 5000) FROM generate_series(301, 600) i;
INSERT INTO ftoast SELECT i, md5(i::text) FROM generate_series(601, 3000) i;
-- expanded arrays from PL/pgSQL
CREATE FUNCTION fexp(n int) RETURNS int[] LANGUAGE plpgsql AS $$
DECLARE a int[] := '{}';
BEGIN
    FOR j IN 1 .. n % 20 LOOP a := a || j; END LOOP;
    RETURN a;
END $$;
ANALYZE fnull, fallnull, fwide, fdrop, ftoast;

CREATE TABLE fresults (budget text, name text, same boolean, nrows bigint, method text);
CREATE FUNCTION fcheck(budget text, name text, q text, VARIADIC keys text[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM set_config('work_mem', budget, true);
    INSERT INTO fresults SELECT budget, name, d.* FROM srm_diff(q, VARIADIC keys) d;
END $$;

SELECT fcheck(b, 'widths', 'SELECT k, i, repeat(chr(65 + i % 26), w) AS v FROM fw ORDER BY k, i', 'k', 'i'),
       fcheck(b, 'wide key', 'SELECT * FROM (SELECT repeat(chr(65 + i % 26), w) || i AS v, k FROM fw) s ORDER BY v COLLATE "C"', 'v'),
       fcheck(b, 'wide key desc', 'SELECT * FROM (SELECT repeat(md5(i::text), w / 32) AS v, i FROM fw) s ORDER BY v COLLATE "C" DESC, i', 'v', 'i'),
       fcheck(b, 'one byte', 'SELECT i % 2 = 0 AS b FROM fw ORDER BY 1', 'b'),
       fcheck(b, 'null int first', 'SELECT * FROM fnull ORDER BY a NULLS FIRST, c, b', 'a', 'c', 'b'),
       fcheck(b, 'null text desc', 'SELECT * FROM fnull ORDER BY b COLLATE "C" DESC, a, c', 'b', 'a', 'c'),
       fcheck(b, 'null after null', 'SELECT c, a FROM fnull ORDER BY c NULLS FIRST, a', 'c', 'a'),
       fcheck(b, 'all null', 'SELECT * FROM fallnull ORDER BY a, b', 'a'),
       fcheck(b, 'wide c60', 'SELECT * FROM fwide ORDER BY c60, c1, c2', 'c60', 'c1', 'c2'),
       fcheck(b, 'wide text', 'SELECT * FROM fwide ORDER BY t COLLATE "C", c1, c3', 't', 'c1', 'c3'),
       fcheck(b, 'dropped c', 'SELECT * FROM fdrop ORDER BY c, d', 'c', 'd'),
       fcheck(b, 'added e', 'SELECT * FROM fdrop ORDER BY e DESC, d', 'e', 'd'),
       fcheck(b, 'added f', 'SELECT * FROM fdrop ORDER BY f COLLATE "C", d', 'f', 'd'),
       fcheck(b, 'toast', 'SELECT * FROM ftoast ORDER BY t COLLATE "C"', 't'),
       fcheck(b, 'toast numeric', 'SELECT i::numeric AS n, t FROM ftoast ORDER BY 1 DESC', 'n'),
       fcheck(b, 'expanded', 'SELECT i, fexp(i) AS a FROM fw ORDER BY 2, 1', 'a', 'i'),
       fcheck(b, 'uuid', 'SELECT md5(k::text)::uuid AS u, i FROM fw ORDER BY 1, 2', 'u', 'i'),
       fcheck(b, 'int2 float4', 'SELECT (k - 500)::int2 AS s, (i / 3.0)::float4 AS f FROM fw ORDER BY 1 DESC, 2', 's', 'f'),
       fcheck(b, 'widths numeric', 'SELECT k::numeric AS n, i, repeat(chr(65 + i % 26), w) AS v FROM fw ORDER BY 1, 2', 'n', 'i'),
       -- a first key without a normalized form (records carry no key)
       fcheck(b, 'toast interval', 'SELECT i * interval ''1 second'' AS n, t FROM ftoast ORDER BY 1 DESC', 'n'),
       fcheck(b, 'widths interval', 'SELECT k * interval ''1 second'' AS n, i, repeat(chr(65 + i % 26), w) AS v FROM fw ORDER BY 1, 2', 'n', 'i')
  FROM unnest(ARRAY['64kB', '64MB']) b;
-- the DSM baseline reads the same records
SET srmsort.merge_strategy = dsm;
SELECT fcheck('64kB', 'widths dsm', 'SELECT k, i, repeat(chr(65 + i % 26), w) AS v FROM fw ORDER BY k, i', 'k', 'i'),
       fcheck('64kB', 'null text dsm', 'SELECT * FROM fnull ORDER BY b COLLATE "C" DESC, a, c', 'b', 'a', 'c');
RESET srmsort.merge_strategy;
SELECT budget, name, same, nrows,
       CASE WHEN method LIKE 'external%' THEN 'external' ELSE method END AS method
  FROM fresults ORDER BY budget DESC, name;

-- random access over the format: an external result read both ways, and
-- an in-memory one (its tuples lent their t_len, runs.c)
SET work_mem = '64kB';
SELECT srm_cursor_diff('SELECT k, i, repeat(chr(65 + i % 26), w) AS v FROM fw ORDER BY k, i');
SELECT srm_cursor_diff('SELECT * FROM fdrop ORDER BY c, d, e');
SET work_mem = '64MB';
SELECT srm_cursor_diff('SELECT k, i, repeat(chr(65 + i % 26), w) AS v FROM fw ORDER BY k, i');
SELECT srm_cursor_diff('SELECT * FROM fdrop ORDER BY c, d, e');

-- bytes: srmsort's workfiles at their largest against PostgreSQL's Disk
-- figure for the same sort, (int8, int8) rows and 100-byte records
CREATE TABLE fbytes AS
SELECT (random() * 1e18)::int8 AS a, (random() * 1e18)::int8 AS b,
       decode(md5(i::text), 'hex') AS k, repeat('p', 80) AS p
  FROM generate_series(1, 100000) i;
ANALYZE fbytes;
SET work_mem = '1MB';
CREATE FUNCTION fspace(q text, srm boolean) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE j json;
BEGIN
    PERFORM set_config('srmsort.enabled', srm::text, true);
    j := srm_explain_json(q) -> 0 -> 'Plan' -> 'Plans' -> 0;
    PERFORM set_config('srmsort.enabled', 'on', true);
    RETURN CASE WHEN srm THEN (j ->> 'Peak Temp')::float8 ELSE (j ->> 'Sort Space Used')::float8 END;
END $$;
SELECT fspace(q, true) <= 1.05 * fspace(q, false) AS within_5pct
  FROM unnest(ARRAY['SELECT a, b FROM fbytes ORDER BY a OFFSET 1e12',
                    'SELECT k, p FROM fbytes ORDER BY k OFFSET 1e12']) q;
