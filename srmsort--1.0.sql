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
-- needs shared_preload_libraries).
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
    OUT busy_ms double precision)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'srmsort_disks'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

CREATE VIEW srmsort_disks AS SELECT * FROM srmsort_disks();

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

GRANT SELECT ON srmsort_disks, srmsort_activity TO PUBLIC;
REVOKE ALL ON FUNCTION srmsort_stats_reset() FROM PUBLIC;
