/* test/unit/srmsort_unit--1.0.sql */

\echo Use "CREATE EXTENSION srmsort_unit" to load this file. \quit

-- Each function runs one area's checks and returns a line per failed check
-- (at most 100, then a line saying how many more), none when all pass.

CREATE FUNCTION srmsort_unit_settings() RETURNS SETOF text
AS 'MODULE_PATHNAME', 'srmsort_unit_settings' LANGUAGE C STRICT VOLATILE;

CREATE FUNCTION srmsort_unit_mergeplan() RETURNS SETOF text
AS 'MODULE_PATHNAME', 'srmsort_unit_mergeplan' LANGUAGE C STRICT VOLATILE;

CREATE FUNCTION srmsort_unit_record() RETURNS SETOF text
AS 'MODULE_PATHNAME', 'srmsort_unit_record' LANGUAGE C STRICT VOLATILE;

CREATE FUNCTION srmsort_unit_radix() RETURNS SETOF text
AS 'MODULE_PATHNAME', 'srmsort_unit_radix' LANGUAGE C STRICT VOLATILE;
