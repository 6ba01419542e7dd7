/* srmsort--1.0.sql */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION srmsort" to load this file. \quit

-- Sorting itself needs no SQL objects: it works as soon as the library is
-- loaded.  The extension adds functions and views to look at it.

CREATE FUNCTION srmsort_version()
RETURNS text
AS 'MODULE_PATHNAME', 'srmsort_version'
LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE;
