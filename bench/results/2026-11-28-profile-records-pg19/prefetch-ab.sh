#!/bin/bash
# g4: alternate srmsort.so variants A (no change), B (middle-line prefetch),
# C (B, 32 ahead) on one cluster, records 5M rows; backend CPU per statement
set -euo pipefail
export SRMSORT_PG=15
. /work/g4/test/lib.sh
srm_bench_cluster 4GB
srm_psql -q <<SQL >/dev/null
SELECT setseed(0.42);
CREATE TABLE t AS SELECT decode(substr(md5(random()::text) || md5(random()::text), 1, 20), 'hex') AS k,
       repeat(substr(md5(i::text), 1, 30), 3) AS v FROM generate_series(1, 5000000) i;
VACUUM ANALYZE t;
SQL
echo "variant,round,work_mem,rep,user_s,sys_s,elapsed_s" > /tmp/g4-ab.csv
for round in 1 2 3; do
  for v in A B C; do
    srm_as_user "$SRM_BIN/pg_ctl" -D "$SRM_PGDATA" -m fast -w stop >/dev/null
    cp /tmp/g4-var/$v/srmsort.so "$SRM_SO"
    srm_as_user "$SRM_BIN/pg_ctl" -D "$SRM_PGDATA" -l "$SRM_TMP/server.log" -w -t 60 start >/dev/null
    for wm in 64MB 4MB; do
      for rep in 0 1 2 3; do
        stats=$({ echo "SET max_parallel_workers_per_gather = 0; SET work_mem = '$wm';"
                  echo "SET srmsort.tablespaces = 'srm_d0,srm_d1,srm_d2,srm_d3'; SET srmsort.debug_load_part = '1GB';"
                  echo "SET client_min_messages = log; SET log_statement_stats = on;"
                  echo "SELECT * FROM t ORDER BY k OFFSET 1e12;"; } | srm_psql -q 2>&1 >/dev/null |
                grep -E '^!\s+[0-9.]+ s user' | tail -1)
        [ "$rep" -gt 0 ] || continue
        echo "$v,$round,$wm,$rep,$(sed -E 's/^!\s+([0-9.]+) s user, ([0-9.]+) s system, ([0-9.]+) s elapsed.*/\1,\2,\3/' <<<"$stats")" >> /tmp/g4-ab.csv
      done
    done
  done
done
