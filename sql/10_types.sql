-- Differential tests: every ORDER BY below runs once through PostgreSQL's
-- own sort and once through srmsort (external, many runs, several merge
-- passes at work_mem = 64kB, four disks), and must give the same ordered
-- keys and the same rows.
CREATE EXTENSION IF NOT EXISTS srmsort;
SET client_min_messages = warning;
SET work_mem = '64kB';
SET srmsort.tablespaces = 'srm_d0, srm_d1, srm_d2, srm_d3';
SET srmsort.random_seed = 1;
SET max_parallel_workers_per_gather = 0;
SET extra_float_digits = 3;

CREATE TYPE srm_pair AS (a int, b text);
SELECT setseed(0.25);
CREATE TABLE typ AS
SELECT i,
       nullif((random() * 65535 - 32768)::int2, 0) AS c_int2,
       CASE WHEN i % 37 = 0 THEN NULL ELSE (random() * 2e9 - 1e9)::int4 END AS c_int4,
       CASE WHEN i % 41 = 0 THEN NULL ELSE ((random() - 0.5) * 9e18)::int8 END AS c_int8,
       (CASE i % 50 WHEN 0 THEN 'NaN' WHEN 1 THEN '-0' WHEN 2 THEN 'Infinity'
                    WHEN 3 THEN '-Infinity' WHEN 4 THEN '0'
                    ELSE ((random() - 0.5) * 1e6)::text END)::float4 AS c_float4,
       (CASE i % 50 WHEN 5 THEN 'NaN' WHEN 6 THEN '-0' WHEN 7 THEN 'Infinity'
                    WHEN 8 THEN '-Infinity' WHEN 9 THEN '0' WHEN 10 THEN NULL
                    ELSE ((random() - 0.5) * 1e12)::text END)::float8 AS c_float8,
       CASE i % 7 WHEN 0 THEN 1.0 WHEN 1 THEN 1.00 ELSE round((random() * 1e6)::numeric, (i % 5)) END AS c_numeric,
       (ARRAY['apple', 'Apple', 'APPLE', 'äpple', 'banana', 'Banana', 'résumé',
              'resume', 'Zebra', 'zebra', '', ' ', 'a b', 'ab'])[1 + i % 14]
           || CASE WHEN i % 3 = 0 THEN '' ELSE md5(i::text) END AS c_text,
       substr(md5((i * 7)::text), 1, 1 + i % 20)::varchar(20) AS c_varchar,
       decode(md5((i % 997)::text), 'hex') AS c_bytea,
       md5((i % 1500)::text)::uuid AS c_uuid,
       DATE '2000-01-01' + (random() * 20000)::int AS c_date,
       TIMESTAMP '2000-01-01' + random() * INTERVAL '9000 days' AS c_timestamp,
       TIMESTAMPTZ '2000-01-01 00:00+02' + random() * INTERVAL '9000 days' AS c_timestamptz,
       random() * INTERVAL '3000 days' - INTERVAL '1500 days'
           + (i % 3) * INTERVAL '1 month' AS c_interval,
       CASE WHEN i % 11 = 0 THEN NULL ELSE random() < 0.5 END AS c_bool,
       ARRAY[(random() * 5)::int, (random() * 5)::int, i % 3] AS c_array,
       ROW((random() * 20)::int, md5((i % 13)::text))::srm_pair AS c_comp,
       jsonb_build_object('a', (random() * 50)::int, 'b', md5((i % 17)::text)) AS c_jsonb,
       repeat('p', (i % 200)) AS pad
  FROM generate_series(1, 5000) i;
ANALYZE typ;

-- the plan really uses srmsort
EXPLAIN (COSTS OFF) SELECT * FROM typ ORDER BY c_int4;

SELECT * FROM srm_diff('SELECT * FROM typ ORDER BY c_int2', 'c_int2');
SELECT * FROM srm_diff('SELECT * FROM typ ORDER BY c_int4', 'c_int4');
SELECT * FROM srm_diff('SELECT * FROM typ ORDER BY c_int8 DESC', 'c_int8');
SELECT * FROM srm_diff('SELECT * FROM typ ORDER BY c_float4', 'c_float4');
SELECT * FROM srm_diff('SELECT * FROM typ ORDER BY c_float8 DESC NULLS LAST', 'c_float8');
SELECT * FROM srm_diff('SELECT * FROM typ ORDER BY c_numeric', 'c_numeric');
SELECT * FROM srm_diff('SELECT * FROM typ ORDER BY c_text COLLATE "C"', 'c_text');
SELECT * FROM srm_diff('SELECT * FROM typ ORDER BY c_text COLLATE "en-x-icu"', 'c_text');
SELECT * FROM srm_diff('SELECT * FROM typ ORDER BY c_text COLLATE "sv-x-icu" DESC', 'c_text');
SELECT * FROM srm_diff('SELECT * FROM typ ORDER BY c_text COLLATE "C.utf8"', 'c_text');
SELECT * FROM srm_diff('SELECT * FROM typ ORDER BY c_varchar COLLATE "en-x-icu"', 'c_varchar');
SELECT * FROM srm_diff('SELECT * FROM typ ORDER BY c_bytea', 'c_bytea');
SELECT * FROM srm_diff('SELECT * FROM typ ORDER BY c_uuid', 'c_uuid');
SELECT * FROM srm_diff('SELECT * FROM typ ORDER BY c_date', 'c_date');
SELECT * FROM srm_diff('SELECT * FROM typ ORDER BY c_timestamp', 'c_timestamp');
SELECT * FROM srm_diff('SELECT * FROM typ ORDER BY c_timestamptz DESC', 'c_timestamptz');
SELECT * FROM srm_diff('SELECT * FROM typ ORDER BY c_interval', 'c_interval');
SELECT * FROM srm_diff('SELECT * FROM typ ORDER BY c_bool NULLS FIRST', 'c_bool');
SELECT * FROM srm_diff('SELECT * FROM typ ORDER BY c_array', 'c_array');
SELECT * FROM srm_diff('SELECT * FROM typ ORDER BY c_comp', 'c_comp');
SELECT * FROM srm_diff('SELECT * FROM typ ORDER BY c_jsonb', 'c_jsonb');

-- multi-column keys mixing ASC/DESC and NULLS FIRST/LAST
SELECT * FROM srm_diff(
  'SELECT * FROM typ ORDER BY c_bool DESC NULLS LAST, c_int4 NULLS FIRST, c_text COLLATE "en-x-icu" DESC',
  'c_bool', 'c_int4', 'c_text');
SELECT * FROM srm_diff(
  'SELECT * FROM typ ORDER BY c_int2 % 10 DESC, c_float8 NULLS FIRST, c_uuid DESC',
  'c_int2 % 10', 'c_float8', 'c_uuid');
-- a first key of 32 bits or fewer carries the second key's leading 32 bits
-- in its normalized key: few values of the first key, NULLs in either,
-- DESC either way, second keys that share their leading bits (small int8s:
-- every tie goes to the full comparison), second keys of every kind
SELECT * FROM srm_diff('SELECT * FROM typ ORDER BY (i % 7)::int4 DESC, c_int8 NULLS FIRST',
                       '(i % 7)::int4', 'c_int8');
SELECT * FROM srm_diff('SELECT * FROM typ ORDER BY nullif(i % 5, 0) NULLS FIRST, c_int8 DESC NULLS LAST, i',
                       'nullif(i % 5, 0)', 'c_int8', 'i');
SELECT * FROM srm_diff('SELECT * FROM typ ORDER BY (i % 4)::int2, (i * 7919 % 5000)::int8 DESC',
                       '(i % 4)::int2', '(i * 7919 % 5000)::int8');
SELECT * FROM srm_diff('SELECT * FROM typ ORDER BY c_int4 NULLS FIRST, c_int2 DESC',
                       'c_int4', 'c_int2');
SELECT * FROM srm_diff('SELECT * FROM typ ORDER BY c_bool NULLS FIRST, c_text COLLATE "C" DESC, i',
                       'c_bool', 'c_text', 'i');
SELECT * FROM srm_diff('SELECT * FROM typ ORDER BY (i % 9)::oid, c_bytea, i', '(i % 9)::oid', 'c_bytea', 'i');
SELECT * FROM srm_diff('SELECT * FROM typ ORDER BY (i % 6)::int4, c_uuid DESC, i', '(i % 6)::int4', 'c_uuid', 'i');
SELECT * FROM srm_diff('SELECT * FROM typ ORDER BY DATE ''2000-01-01'' + i % 10, c_float4 DESC',
                       'DATE ''2000-01-01'' + i % 10', 'c_float4');
SELECT * FROM srm_diff('SELECT * FROM typ ORDER BY (i % 8)::int4 DESC, c_float8 NULLS FIRST',
                       '(i % 8)::int4', 'c_float8');
SELECT * FROM srm_diff('SELECT * FROM typ ORDER BY (i % 3)::int2 DESC, c_timestamptz DESC, c_bool',
                       '(i % 3)::int2', 'c_timestamptz', 'c_bool');
-- two keys of 32 bits or fewer share the normalized key whole (an int8
-- second key, a summary of it): a NULL second key takes the low half's
-- least or greatest value, which its extreme values (INT_MIN, INT_MAX,
-- -infinity, infinity, oid 0 and 4294967295) share; ASC and DESC, NULLS
-- FIRST and LAST, NULL first keys, few first-key values (many ties on it)
-- and ties on both; the key columns first, so records derive the key
SELECT setseed(0.75);
CREATE TABLE pair AS
SELECT CASE WHEN i % 29 = 0 THEN NULL ELSE i % 5 - 2 END::int4 AS a,
       CASE i % 13 WHEN 0 THEN NULL WHEN 1 THEN -32768 WHEN 2 THEN 32767
            ELSE (random() * 200 - 100)::int END::int2 AS b2,
       CASE i % 17 WHEN 0 THEN NULL WHEN 1 THEN -2147483648 WHEN 2 THEN 2147483647
            WHEN 3 THEN -2147483647 WHEN 4 THEN 2147483646 WHEN 5 THEN 0
            ELSE (random() * 2000 - 1000)::int4 END AS b4,
       CASE i % 19 WHEN 0 THEN NULL WHEN 1 THEN '-infinity'::date WHEN 2 THEN 'infinity'::date
            WHEN 3 THEN '4713-01-01 BC'::date WHEN 4 THEN '5874897-12-31'::date
            ELSE DATE '2000-01-01' + (random() * 2000 - 1000)::int END AS bd,
       CASE i % 23 WHEN 0 THEN NULL WHEN 1 THEN 0 WHEN 2 THEN 4294967295 WHEN 3 THEN 2147483648
            WHEN 4 THEN 2147483647 ELSE (random() * 4e9)::int8 % 3000 END::oid AS bo,
       CASE WHEN i % 7 = 0 THEN NULL ELSE random() < 0.5 END AS bb,
       CASE i % 11 WHEN 0 THEN NULL WHEN 1 THEN -9223372036854775808 WHEN 2 THEN 9223372036854775807
            WHEN 3 THEN 1073741823 WHEN 4 THEN 1073741824 WHEN 5 THEN -1073741824
            WHEN 6 THEN -1073741825 WHEN 7 THEN ((random() - 0.5) * 9e18)::int8
            ELSE (random() * 2000 - 1000)::int8 END AS b8,
       i,
       repeat('p', i % 50) AS pad
  FROM generate_series(1, 6000) i;
SELECT * FROM srm_diff('SELECT * FROM pair ORDER BY a, b4', 'a', 'b4');
SELECT * FROM srm_diff('SELECT * FROM pair ORDER BY a DESC, b4 NULLS FIRST', 'a', 'b4');
SELECT * FROM srm_diff('SELECT * FROM pair ORDER BY a NULLS FIRST, b4 DESC', 'a', 'b4');
SELECT * FROM srm_diff('SELECT * FROM pair ORDER BY a, b4 DESC NULLS LAST', 'a', 'b4');
SELECT * FROM srm_diff('SELECT * FROM pair ORDER BY a, b2 NULLS FIRST', 'a', 'b2');
SELECT * FROM srm_diff('SELECT * FROM pair ORDER BY a DESC NULLS LAST, b2 DESC', 'a', 'b2');
SELECT * FROM srm_diff('SELECT * FROM pair ORDER BY a, bd', 'a', 'bd');
SELECT * FROM srm_diff('SELECT * FROM pair ORDER BY a DESC, bd DESC NULLS FIRST', 'a', 'bd');
SELECT * FROM srm_diff('SELECT * FROM pair ORDER BY a, bd NULLS FIRST', 'a', 'bd');
SELECT * FROM srm_diff('SELECT * FROM pair ORDER BY a, bo', 'a', 'bo');
SELECT * FROM srm_diff('SELECT * FROM pair ORDER BY a NULLS FIRST, bo DESC NULLS LAST', 'a', 'bo');
SELECT * FROM srm_diff('SELECT * FROM pair ORDER BY a, bb NULLS FIRST', 'a', 'bb');
SELECT * FROM srm_diff('SELECT * FROM pair ORDER BY a DESC, bb DESC NULLS LAST', 'a', 'bb');
SELECT * FROM srm_diff('SELECT * FROM pair ORDER BY b2, b4', 'b2', 'b4');
SELECT * FROM srm_diff('SELECT * FROM pair ORDER BY bb NULLS FIRST, b4 DESC', 'bb', 'b4');
SELECT * FROM srm_diff('SELECT * FROM pair ORDER BY bo DESC, bd', 'bo', 'bd');
SELECT * FROM srm_diff('SELECT * FROM pair ORDER BY bd, a NULLS FIRST', 'bd', 'a');
SELECT * FROM srm_diff('SELECT * FROM pair ORDER BY a, b8', 'a', 'b8');
SELECT * FROM srm_diff('SELECT * FROM pair ORDER BY a DESC, b8 DESC NULLS LAST', 'a', 'b8');
SELECT * FROM srm_diff('SELECT * FROM pair ORDER BY a, b4, i DESC', 'a', 'b4', 'i');
SELECT * FROM srm_diff('SELECT * FROM pair ORDER BY a, b4 NULLS FIRST, b2', 'a', 'b4', 'b2');
-- records derive such a key from the two columns as they do one integer
-- key: ORDER BY a, b writes no more than ORDER BY a (9 bytes a row more
-- when records store the key)
CREATE TABLE pair_fixed AS
SELECT (i % 5)::int4 AS a, (i * 7919 % 10007)::int4 AS b,
       DATE '2000-01-01' + i % 3000 AS d, (i * 7919)::int8 AS c
  FROM generate_series(1, 20000) i;
SELECT q, jsonb_path_query_first(srm_explain_json(q)::jsonb, 'strict $.**."Temp Written"') =
          jsonb_path_query_first(srm_explain_json('SELECT * FROM pair_fixed ORDER BY a')::jsonb,
                                 'strict $.**."Temp Written"') AS same_bytes
  FROM unnest(ARRAY['SELECT * FROM pair_fixed ORDER BY a, b',
                    'SELECT * FROM pair_fixed ORDER BY a DESC, d',
                    'SELECT * FROM pair_fixed ORDER BY a, c DESC']) q;
DROP TABLE pair, pair_fixed;
-- numeric keys: a prefix of sign, weight and four base-10000 digits (or,
-- as a second key after one of 32 bits, a weight in 4 bits and two digits);
-- NaN, the infinities, zeros and equal values of several scales, values
-- that differ only past the key's digits, weights at and past either end
-- of both keys' ranges (10000^255 = 1e1020, 10000^-256, 10000^7 = 1e28,
-- 10000^-8), short and long headers (a scale past 63), compressed and
-- toasted values, NULLs; alone and after int4 and date keys
SELECT setseed(0.125);
CREATE TABLE num AS
SELECT i, (i % 3)::int4 AS a, DATE '2020-01-01' + i % 4 AS d,
       CASE i % 41
         WHEN 0 THEN NULL WHEN 1 THEN 'NaN' WHEN 2 THEN 'Infinity' WHEN 3 THEN '-Infinity'
         WHEN 4 THEN 0 WHEN 5 THEN 0.000 WHEN 6 THEN 1.0 WHEN 7 THEN 1.00 WHEN 8 THEN -1.000
         WHEN 9 THEN (ARRAY[1e1019, 1e1020, 9.999e1023, 1e1024, 1e1025, 1e2000])[1 + i % 6]
         WHEN 10 THEN -(ARRAY[1e1019, 1e1020, 9.999e1023, 1e1024, 1e1025, 1e2000])[1 + i % 6]
         WHEN 11 THEN (ARRAY[1e-1019, 1e-1020, 9.99e-1021, 1e-1024, 1e-1025, 1e-2000])[1 + i % 6]
         WHEN 12 THEN -(ARRAY[1e-1019, 1e-1020, 9.99e-1021, 1e-1024, 1e-1025, 1e-2000])[1 + i % 6]
         WHEN 13 THEN (ARRAY[1e27, 1e28, 9.9e31, 1e32, 1e33, 1e-31, 1e-32, 9e-33, 1e-33])[1 + i % 9]
         WHEN 14 THEN -(ARRAY[1e27, 1e28, 9.9e31, 1e32, 1e33, 1e-31, 1e-32, 9e-33, 1e-33])[1 + i % 9]
         WHEN 15 THEN 1234567890123456.7890 + (i % 5) * 0.0001
         WHEN 16 THEN -1234567890123456 - (i % 5) * 1e-30
         WHEN 17 THEN 0.1234567890123456789 + (i % 5) * 1e-40
         WHEN 18 THEN 12345678.5 + (i % 5) * 0.00001
         WHEN 19 THEN round(random()::numeric, 70 + i % 5)
         WHEN 20 THEN 1e300 * (i % 7 - 3)
         WHEN 21 THEN (repeat('1234', 1500) || (i % 7))::numeric
         WHEN 22 THEN (((i % 3) || '.' ||
                       (SELECT string_agg((random() * 9)::int::text, '')
                          FROM generate_series(1, 9000 + i % 3)))::numeric)
         ELSE round(((random() - 0.5) * 10 ^ (random() * 24 - 12))::numeric, i % 8)
       END AS n,
       CASE WHEN i % 13 = 0 THEN NULL ELSE round((random() * 20)::numeric, 1) END AS n2,
       repeat('q', i % 30) AS pad
  FROM generate_series(1, 6000) i;
ANALYZE num;
-- the wide values are stored compressed and toasted
SELECT count(*) FILTER (WHERE pg_column_size(n) < length(n::text) / 4) > 0 AS compressed,
       count(*) FILTER (WHERE pg_column_size(n) > 4000) > 0 AS toasted
  FROM num WHERE i % 41 IN (21, 22);
SELECT o AS order_by, r.*
  FROM (VALUES ('n', ARRAY['n']), ('n DESC', ARRAY['n']),
               ('n NULLS FIRST, i', ARRAY['n', 'i']),
               ('n DESC NULLS LAST, n2', ARRAY['n', 'n2']),
               ('a, n', ARRAY['a', 'n']), ('a DESC, n DESC NULLS FIRST', ARRAY['a', 'n']),
               ('d, n NULLS FIRST, i', ARRAY['d', 'n', 'i']),
               ('d, n, n2', ARRAY['d', 'n', 'n2']),
               ('d DESC, n2 DESC, n', ARRAY['d', 'n2', 'n']),
               ('d NULLS FIRST, n2 NULLS FIRST, n DESC', ARRAY['d', 'n2', 'n'])) v(o, k),
       LATERAL srm_diff('SELECT * FROM num ORDER BY ' || o, VARIADIC k) r;
-- in memory: the radix sort
SET work_mem = '64MB';
SELECT o AS order_by, r.*
  FROM (VALUES ('n', ARRAY['n']), ('d, n DESC, n2', ARRAY['d', 'n', 'n2'])) v(o, k),
       LATERAL srm_diff('SELECT * FROM num ORDER BY ' || o, VARIADIC k) r;
SET work_mem = '64kB';
DROP TABLE num;
-- sort expressions
SELECT * FROM srm_diff('SELECT i, c_text FROM typ ORDER BY lower(c_text) COLLATE "C", length(c_text) DESC',
                       'lower(c_text) COLLATE "C"', 'length(c_text)');
-- heavy duplicates, sorted, reverse-sorted and organ-pipe inputs
SELECT * FROM srm_diff('SELECT * FROM typ ORDER BY i % 3', 'i % 3');
SELECT * FROM srm_diff('SELECT * FROM typ ORDER BY c_bool', 'c_bool');
SELECT * FROM srm_diff('SELECT * FROM typ ORDER BY i', 'i');
SELECT * FROM srm_diff('SELECT * FROM typ ORDER BY i DESC', 'i');
SELECT * FROM srm_diff('SELECT * FROM typ ORDER BY CASE WHEN i < 2500 THEN i ELSE 5000 - i END',
                       'CASE WHEN i < 2500 THEN i ELSE 5000 - i END');

-- nothing is left in the temporary directories
SELECT srm_temp_files();
