#!/bin/bash
# demo/run_demo.sh — srmsort against PostgreSQL's own sort, on generated data.
#
# Sets up everything on a fresh Debian 12 machine (packages, build, a
# throwaway cluster with four tablespaces as workfile disks, the same
# machinery as the tests), generates a table of about --size bytes
# (default 2GB) of (int8 key, int8 payload, text), and runs
#
#     SELECT * FROM demo ORDER BY k OFFSET 1e12
#
# (every row goes through the sort, none is returned) with srmsort off and
# on, printing the wall time of each and the sort facts EXPLAIN ANALYZE
# reports.
#
#   demo/run_demo.sh [--size 2GB] [--work-mem 64MB] [--keep]
set -euo pipefail
SRM_ARGV=("$@")

SIZE=2GB
WORK_MEM=64MB
while [ $# -gt 0 ]; do
    case "$1" in
        --size) SIZE=$2; shift 2 ;;
        --work-mem) WORK_MEM=$2; shift 2 ;;
        --keep) export SRMSORT_KEEP=1; shift ;;
        *) echo "usage: $0 [--size 2GB] [--work-mem 64MB] [--keep]" >&2; exit 2 ;;
    esac
done

. "$(dirname "$0")/../test/lib.sh"

bytes=$(numfmt --from=iec "${SIZE%B}")
rows=$((bytes / 70))          # about 70 bytes per row on disk

srm_packages
srm_setup_tmp
srm_build
SRM_EXTRA_CONF="shared_buffers = '1GB'
max_wal_size = '8GB'" srm_cluster_start
srm_psql -qc "CREATE EXTENSION srmsort" >/dev/null

srm_log "generating $rows rows (about $SIZE)"
srm_psql -q <<SQL
DO \$\$ BEGIN PERFORM setseed(0.42); END \$\$;
CREATE TABLE demo AS
SELECT (random() * 9e18)::int8 AS k, i::int8 AS v, substr(md5(i::text), 1, 16) AS t
  FROM generate_series(1, $rows) i;
VACUUM ANALYZE demo;
SQL
srm_psql -Atc "SELECT 'table size: ' || pg_size_pretty(pg_total_relation_size('demo'))"

Q="SELECT * FROM demo ORDER BY k OFFSET 1e12"
SETUP="SET work_mem = '$WORK_MEM';
SET max_parallel_workers_per_gather = 0;
SET srmsort.tablespaces = 'srm_d0, srm_d1, srm_d2, srm_d3';
SET temp_tablespaces = srm_d0, srm_d1, srm_d2, srm_d3;"

srm_log "warming the cache"
srm_psql -qc "SELECT count(*) FROM demo" >/dev/null

for mode in off on; do
    srm_log "srmsort.enabled = $mode, work_mem = $WORK_MEM"
    srm_psql -q <<SQL | grep -E "Time:" | sed 's/^/  wall /'
$SETUP
SET srmsort.enabled = $mode;
\\timing on
$Q;
SQL
    srm_psql -q <<SQL | grep -E "Sort|SRMSort|Disk|Runs|Parallel Reads|Temp|Memory|Execution" | sed 's/^/  /'
$SETUP
SET srmsort.enabled = $mode;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) $Q;
SQL
done
