-- The extension installs and the library it points at is the one loaded.
CREATE EXTENSION srmsort;
SELECT srmsort_version();
SELECT extname, extversion FROM pg_extension WHERE extname = 'srmsort';
-- settings live under a reserved prefix: a typo is an error, not a placeholder
SET srmsort.no_such_setting = 1;
