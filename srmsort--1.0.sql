/* srmsort--1.0.sql */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION srmsort" to load this file. \quit

-- Sorting itself needs no SQL objects: it works as soon as the library is
-- loaded.  The extension adds functions and views to look at it.

CREATE FUNCTION srmsort_version()
RETURNS text
AS 'MODULE_PATHNAME', 'srmsort_version'
LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE;

-- The workfile disks srmsort has used since the last reset (shared memory;
-- needs shared_preload_libraries): their load, what srmsort moved on them,
-- the time its requests were in flight (busy_ms, summed over the sorts),
-- and the bandwidth learned for them, in MB/s (NULL until measured).
CREATE FUNCTION srmsort_disks(
    OUT tablespace text,
    OUT path text,
    OUT partition int,
    OUT active_jobs int,
    OUT bytes_in_flight bigint,
    OUT bytes_read bigint,
    OUT bytes_written bigint,
    OUT reads bigint,
    OUT writes bigint,
    OUT busy_ms double precision,
    OUT read_mb_per_s double precision,
    OUT write_mb_per_s double precision)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'srmsort_disks'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

CREATE VIEW srmsort_disks AS SELECT * FROM srmsort_disks();

-- Per partition: the disks grouped by the partition they were last used
-- in.  A job uses every disk of its partition, so the busiest disk's count
-- is the partition's number of active jobs.
CREATE VIEW srmsort_partitions AS
  SELECT partition,
         count(*)::int AS disks,
         string_agg(tablespace, ', ' ORDER BY tablespace) AS tablespaces,
         max(active_jobs) AS active_jobs,
         sum(bytes_in_flight)::bigint AS bytes_in_flight,
         sum(bytes_read)::bigint AS bytes_read,
         sum(bytes_written)::bigint AS bytes_written,
         sum(reads)::bigint AS reads,
         sum(writes)::bigint AS writes,
         sum(busy_ms) AS busy_ms
    FROM srmsort_disks
   GROUP BY partition;

-- One row per running srmsort sort.
CREATE FUNCTION srmsort_activity(
    OUT pid int,
    OUT phase text,
    OUT partition int,
    OUT disks int,
    OUT runs bigint,
    OUT bytes_written bigint,
    OUT merge_pass int,
    OUT started timestamptz)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'srmsort_activity'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

CREATE VIEW srmsort_activity AS SELECT * FROM srmsort_activity();

CREATE FUNCTION srmsort_stats_reset()
RETURNS void
AS 'MODULE_PATHNAME', 'srmsort_stats_reset'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

GRANT SELECT ON srmsort_disks, srmsort_partitions, srmsort_activity TO PUBLIC;
REVOKE ALL ON FUNCTION srmsort_stats_reset() FROM PUBLIC;
