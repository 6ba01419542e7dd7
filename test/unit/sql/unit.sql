-- Unit tests of srmsort's pure parts (test/unit/unit_*.c): each
-- query lists the checks that failed, so a pass is "(0 rows)".
CREATE EXTENSION srmsort_unit;
SELECT * FROM srmsort_unit_settings() AS failed;
SELECT * FROM srmsort_unit_mergeplan() AS failed;
SELECT * FROM srmsort_unit_record() AS failed;
SELECT * FROM srmsort_unit_radix() AS failed;
DROP EXTENSION srmsort_unit;
