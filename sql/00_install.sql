-- The tests' four workfile disks, tablespaces srm_d0..srm_d3:
-- test/run_tests.sh makes them in four directories; against another
-- server (make installcheck) they are made here, in place, when missing.
SELECT count(*) = 0 AS need FROM pg_tablespace WHERE spcname = 'srm_d0' \gset
\if :need
SET allow_in_place_tablespaces = on;
CREATE TABLESPACE srm_d0 LOCATION '';
RESET allow_in_place_tablespaces;
\endif
SELECT count(*) = 0 AS need FROM pg_tablespace WHERE spcname = 'srm_d1' \gset
\if :need
SET allow_in_place_tablespaces = on;
CREATE TABLESPACE srm_d1 LOCATION '';
RESET allow_in_place_tablespaces;
\endif
SELECT count(*) = 0 AS need FROM pg_tablespace WHERE spcname = 'srm_d2' \gset
\if :need
SET allow_in_place_tablespaces = on;
CREATE TABLESPACE srm_d2 LOCATION '';
RESET allow_in_place_tablespaces;
\endif
SELECT count(*) = 0 AS need FROM pg_tablespace WHERE spcname = 'srm_d3' \gset
\if :need
SET allow_in_place_tablespaces = on;
CREATE TABLESPACE srm_d3 LOCATION '';
RESET allow_in_place_tablespaces;
\endif
-- The extension installs and the library it points at is the one loaded.
CREATE EXTENSION srmsort;
SELECT srmsort_version();
SELECT extname, extversion FROM pg_extension WHERE extname = 'srmsort';
-- settings live under a reserved prefix: a typo is an error, not a placeholder
SET srmsort.no_such_setting = 1;
-- bad settings are refused when they are set
SET srmsort.block_size = '48kB';
\set VERBOSITY sqlstate
SET srmsort.block_size = '16kB';   -- below the range (its wording varies by version)
\set VERBOSITY default
SET srmsort.block_size = '64kB';
SET srmsort.partitions = 0;
SET srmsort.partitions = 'many';
SET srmsort.partitions = 2;
SET srmsort.tablespaces = 'no_such_tablespace';
SET srmsort.tablespaces = 'srm_d0, srm_d0';
SET srmsort.tablespaces = 'pg_global';
SET srmsort.tablespaces = 'srm_d0, "srm_d1"';
SHOW srmsort.tablespaces;
SET srmsort.io_method = 'aio';
SET srmsort.disk_weights = 'srm_d0:2, srm_d1';
SET srmsort.disk_weights = 'srm_d0:-1';
SET srmsort.disk_weights = 'srm_d0:2, "srm_d1":1.5';
SHOW srmsort.disk_weights;
SET srmsort.disk_weights = equal;
SET srmsort.direct_io = maybe;
SET srmsort.direct_io = true;
SHOW srmsort.direct_io;
SET srmsort.random_seed = 5;
RESET ALL;
-- every setting, with its unit and who may set it
SELECT name, setting, unit, context FROM pg_settings
 WHERE name LIKE 'srmsort.%' ORDER BY name;
-- but for the developer options (srmsort.debug_*, for the tests):
-- hidden from SHOW ALL and pg_settings, named by SHOW, superuser-only
SELECT name, pg_settings_get_flags(name) AS flags
  FROM (VALUES ('srmsort.debug_fail_io_uring'), ('srmsort.debug_icu_table_after'),
               ('srmsort.debug_merge_pause'), ('srmsort.debug_no_slot_reuse'),
               ('srmsort.debug_slow_disk'), ('srmsort.debug_sorter_misuse')) v(name);
SHOW srmsort.debug_merge_pause;
SET ROLE pg_monitor;
SET srmsort.debug_merge_pause = '1s';
RESET ROLE;
-- the tests sort at budgets down to 64kB, below the default of
-- srmsort.min_work_mem (512kB) under which srmsort leaves sorts to PostgreSQL;
-- and they stripe round robin: the default srmsort.disk_weights = auto
-- measures the four tablespaces, which share one disk here, and the figures
-- move with the machine's load -- the stripe with them, and with the stripe
-- the runs, the passes and whether bookkeeping is paged, which the tests
-- assert (test/t/140_weights.pl tests the weights, setting its own)
DO $$
BEGIN
  EXECUTE format('ALTER DATABASE %I SET srmsort.min_work_mem = %L',
                 current_database(), '64kB');
  EXECUTE format('ALTER DATABASE %I SET srmsort.disk_weights = equal',
                 current_database());
END
$$;
