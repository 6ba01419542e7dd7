#!/bin/bash
# throwaway: time srmsort variants side by side on one table
set -euo pipefail
SRM_ARGV=("$@")
export SRMSORT_PG=19
ROWS=${ROWS:-50000000}
cd /work/bench2
. test/lib.sh
srm_bench_cluster 4GB
OUT=/work/bench2/rf-out; mkdir -p $OUT; chmod 777 $OUT
srm_psql -qc "CREATE TABLE t AS SELECT (random() * 9e18)::int8 AS k, i::int8 AS v FROM generate_series(1, $ROWS) i"
srm_psql -qc "VACUUM ANALYZE t"
srm_psql -qc "SELECT count(*) FROM t" >/dev/null
TS="SET srmsort.merge_strategy = srm; SET srmsort.tablespaces = 'srm_d0,srm_d1,srm_d2,srm_d3'; SET temp_tablespaces = srm_d0,srm_d1,srm_d2,srm_d3; SET max_parallel_workers_per_gather = 0;"
for rep in $(seq ${REPS:-3}); do
  while IFS='|' read -r name set; do
    [ -n "$name" ] || continue
    echo "$name-$rep" > $OUT/tag
    { echo "$TS $set"; [ -z "${PERF:-}" ] || printf 'SELECT pg_backend_pid() \\g %s\nSELECT pg_sleep(2);\n' "$OUT/pid"; echo '\timing on'; echo "SELECT * FROM t ORDER BY k OFFSET 1e12;"; } > $OUT/v.sql
    chmod 644 $OUT/v.sql
    t=$(srm_psql -At -f $OUT/v.sql | grep Time | tail -1 | sed 's/Time: \([0-9.]*\) ms.*/\1/')
    echo "$rep $name $t"
  done < $OUT/variants
done
