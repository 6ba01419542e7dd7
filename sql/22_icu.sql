-- Text under ICU collations: srmsort's normalized key is the first 8 bytes
-- of the primary level of ICU's sort key, made from a table of the ASCII
-- characters' one-byte primary weights where the collation allows it and
-- by ICU otherwise (src/keys/icukey.c).  A wrong key would misorder the radix
-- sort and the merges, so each ORDER BY below runs through PostgreSQL's
-- sort and srmsort (srm_diff: same ordered keys, same rows), spilled at
-- 64kB on four disks and in memory at 64MB, under collations made here:
-- root and English, Danish (the contraction "aa"), traditional Spanish
-- ("ch", "ll"), numeric ordering of digits, punctuation and spaces shifted
-- to the quaternary level, upper case first, and a nondeterministic one.
CREATE EXTENSION IF NOT EXISTS srmsort;
SET client_min_messages = warning;
SET work_mem = '64kB';
SET srmsort.tablespaces = 'srm_d0, srm_d1, srm_d2, srm_d3';
SET srmsort.random_seed = 1;
SET max_parallel_workers_per_gather = 0;
-- the table at a collation's first key (by default a backend makes a
-- collation's first 20000 keys through ICU before building it)
SET srmsort.debug_icu_table_after = 0;

CREATE COLLATION srm_icu_und (provider = icu, locale = 'und');
CREATE COLLATION srm_icu_en (provider = icu, locale = 'en');
CREATE COLLATION srm_icu_da (provider = icu, locale = 'da');
CREATE COLLATION srm_icu_trad (provider = icu, locale = 'es-u-co-trad');
CREATE COLLATION srm_icu_num (provider = icu, locale = 'en-u-kn-true');
CREATE COLLATION srm_icu_shift (provider = icu, locale = 'en-u-ka-shifted');
CREATE COLLATION srm_icu_upper (provider = icu, locale = 'en-u-kf-upper');
CREATE COLLATION srm_icu_ci (provider = icu, locale = 'und-u-ks-level2',
                             deterministic = false);
CREATE COLLATION srm_icu_late (provider = icu, locale = 'en-GB');

-- Strings of 0 to 15 fragments picked by md5 bytes: letters of both cases,
-- contractions and their parts, accents precomposed and combining, ß, CJK,
-- an emoji, digit runs, spaces, punctuation, control characters; every
-- string three times or so (i % 7000), one row in three upper-cased, one
-- in five a 32-digit hex string, one in 97 NULL.
CREATE TABLE icu_t AS
SELECT i,
       CASE WHEN i % 97 = 0 THEN NULL
            WHEN i % 5 = 0 THEN md5((i % 7000)::text)
            WHEN i % 3 = 0 THEN upper(s)
            ELSE s END AS t
  FROM (SELECT i,
               coalesce((SELECT string_agg(f[1 + get_byte(h, j) % array_length(f, 1)], '' ORDER BY j)
                           FROM generate_series(0, get_byte(h, 15) % 16 - 1) j), '') AS s
          FROM (SELECT i, decode(md5((i % 7000)::text), 'hex') AS h,
                       ARRAY['a', 'b', 'c', 'e', 'l', 'L', 'o', 'u', 'z', 'A', 'B', 'Z',
                             'aa', 'Aa', 'AA', 'å', 'æ', 'ø', 'ö', 'ü', 'é', 'É',
                             'e' || U&'\0301', 'ß', 'ss', 'ch', 'Ch', 'll', 'ñ', 'n',
                             '0', '1', '2', '9', '10', '007', '4', ' ', '  ', '-', '_',
                             ',', '.', '''', '!', E'\t', chr(1), '·', 'l·l', '日本', '語',
                             U&'\+01F600', 'x', 'deadbeef', 'c0ffee42', 'abcdefgh'] AS f
                  FROM generate_series(1, 21000) i) x) y;
ALTER TABLE icu_t ADD COLUMN v varchar;
UPDATE icu_t SET v = t;
ANALYZE icu_t;

EXPLAIN (COSTS OFF) SELECT * FROM icu_t ORDER BY t COLLATE srm_icu_en;

-- spilled
SELECT * FROM srm_diff('SELECT * FROM icu_t ORDER BY t COLLATE srm_icu_und', 't');
SELECT * FROM srm_diff('SELECT * FROM icu_t ORDER BY t COLLATE srm_icu_en', 't');
SELECT * FROM srm_diff('SELECT * FROM icu_t ORDER BY t COLLATE srm_icu_en DESC NULLS LAST', 't');
SELECT * FROM srm_diff('SELECT * FROM icu_t ORDER BY t COLLATE srm_icu_en NULLS FIRST', 't');
SELECT * FROM srm_diff('SELECT * FROM icu_t ORDER BY v COLLATE srm_icu_en DESC, i', 'v', 'i');
SELECT * FROM srm_diff('SELECT * FROM icu_t ORDER BY t COLLATE srm_icu_da', 't');
SELECT * FROM srm_diff('SELECT * FROM icu_t ORDER BY t COLLATE srm_icu_da DESC, i', 't', 'i');
SELECT * FROM srm_diff('SELECT * FROM icu_t ORDER BY t COLLATE srm_icu_trad', 't');
SELECT * FROM srm_diff('SELECT * FROM icu_t ORDER BY t COLLATE srm_icu_num', 't');
SELECT * FROM srm_diff('SELECT * FROM icu_t ORDER BY t COLLATE srm_icu_shift NULLS FIRST', 't');
SELECT * FROM srm_diff('SELECT * FROM icu_t ORDER BY t COLLATE srm_icu_upper DESC', 't');
-- equal keys of a nondeterministic collation may come in any order: the
-- key sequence is compared under that collation
SELECT * FROM srm_diff('SELECT * FROM icu_t ORDER BY t COLLATE srm_icu_ci',
                       't COLLATE srm_icu_ci');
SELECT * FROM srm_diff('SELECT * FROM icu_t ORDER BY t COLLATE srm_icu_ci DESC, i',
                       't COLLATE srm_icu_ci', 'i');

-- in memory (radix sort)
SET work_mem = '64MB';
SELECT * FROM srm_diff('SELECT * FROM icu_t ORDER BY t COLLATE srm_icu_en', 't');
SELECT * FROM srm_diff('SELECT * FROM icu_t ORDER BY t COLLATE srm_icu_da DESC NULLS LAST', 't');
SELECT * FROM srm_diff('SELECT * FROM icu_t ORDER BY t COLLATE srm_icu_num, i DESC', 't', 'i');
SELECT * FROM srm_diff('SELECT * FROM icu_t ORDER BY t COLLATE srm_icu_shift', 't');
SELECT * FROM srm_diff('SELECT * FROM icu_t ORDER BY t COLLATE srm_icu_ci',
                       't COLLATE srm_icu_ci');
SET work_mem = '64kB';

-- Strings whose first eight primary weights are the same: their keys tie,
-- and the full comparison orders them (in the radix sort's groups of
-- equal keys and in every merge).
CREATE TABLE icu_tie AS
SELECT i, (ARRAY['abcdefgh', 'ABCDEFGH', 'Abcdefgh', 'abcdéfgh', 'abcdefgh ',
                 'abcdefgh-', 'abcdefgha', 'abcdefghé', 'abcdefgh' || U&'\0301',
                 'abcdefgh0', 'abcdefgh!', 'abcdefghZ', 'abcdefgh' || chr(1),
                 'abcdefghl·', 'abcdefgl', 'abcdefglé', 'abcdefglL'])[1 + i % 17]
          || CASE WHEN i % 5 = 0 THEN '' ELSE (i % 37)::text END AS t
  FROM generate_series(1, 40000) i;
ANALYZE icu_tie;
SELECT * FROM srm_diff('SELECT * FROM icu_tie ORDER BY t COLLATE srm_icu_en', 't');
SELECT * FROM srm_diff('SELECT * FROM icu_tie ORDER BY t COLLATE srm_icu_und DESC', 't');
SELECT * FROM srm_diff('SELECT * FROM icu_tie ORDER BY t COLLATE srm_icu_shift', 't');
SELECT * FROM srm_diff('SELECT * FROM icu_tie ORDER BY t COLLATE srm_icu_ci, i',
                       't COLLATE srm_icu_ci', 'i');

-- every key through ICU (no table), then a collation whose table is built
-- in the middle of a sort: the keys made by ICU before it and those from
-- the table after it must be the same
SET srmsort.debug_icu_table_after = -1;
SELECT * FROM srm_diff('SELECT * FROM icu_t ORDER BY t COLLATE srm_icu_en', 't');
SELECT * FROM srm_diff('SELECT * FROM icu_tie ORDER BY t COLLATE srm_icu_da', 't');
SET srmsort.debug_icu_table_after = 5000;
SELECT * FROM srm_diff('SELECT * FROM icu_t ORDER BY t COLLATE srm_icu_late', 't');
SET srmsort.debug_icu_table_after = 0;

-- a long toasted value and a compressed one
CREATE TABLE icu_toast (i int, t text);
ALTER TABLE icu_toast ALTER COLUMN t SET STORAGE external;
INSERT INTO icu_toast
SELECT i, CASE i % 4 WHEN 0 THEN repeat(md5(i::text), 200)
                     WHEN 1 THEN 'é' || repeat(md5(i::text), 200)
                     WHEN 2 THEN substr(md5(i::text), 1, 3) || repeat(' ', 3000) || 'z'
                     ELSE md5(i::text) END
  FROM generate_series(1, 3000) i;
CREATE TABLE icu_comp (i int, t text);
INSERT INTO icu_comp SELECT i, t FROM icu_toast;
ANALYZE icu_toast, icu_comp;
SELECT * FROM srm_diff('SELECT * FROM icu_toast ORDER BY t COLLATE srm_icu_en', 't');
SELECT * FROM srm_diff('SELECT * FROM icu_comp ORDER BY t COLLATE srm_icu_shift DESC', 't');

-- CREATE INDEX: the same pages as PostgreSQL's build, amcheck
SET maintenance_work_mem = '1MB';
SET srmsort.min_input_size = 0;
SET max_parallel_maintenance_workers = 0;
SELECT * FROM srm_index_check('CREATE INDEX %I ON icu_t (t COLLATE srm_icu_en)',
  ARRAY['SELECT t FROM icu_t ORDER BY t COLLATE srm_icu_en LIMIT 3000']);
SELECT * FROM srm_index_check('CREATE INDEX %I ON icu_t (t COLLATE srm_icu_da DESC NULLS LAST, i)');
SELECT * FROM srm_index_check('CREATE INDEX %I ON icu_t (v COLLATE srm_icu_num)');
SELECT * FROM srm_index_check('CREATE INDEX %I ON icu_tie (t COLLATE srm_icu_en)');
SELECT * FROM srm_index_check('CREATE INDEX %I ON icu_t (t COLLATE srm_icu_ci)');

DROP TABLE icu_t, icu_tie, icu_toast, icu_comp;
DROP COLLATION srm_icu_und, srm_icu_en, srm_icu_da, srm_icu_trad, srm_icu_num,
  srm_icu_shift, srm_icu_upper, srm_icu_ci, srm_icu_late;
RESET srmsort.debug_icu_table_after;
SELECT srm_temp_files();
