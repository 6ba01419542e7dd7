#!/bin/bash
# bench/run_citus_bench.sh — srmsort in a Citus cluster: a distributed
# CREATE INDEX with srmsort on and off on the workers, and the coordinator's
# ORDER BY with srmsort on and off on the coordinator.
#
# Starts the cluster of test/citus/cluster.sh (a coordinator and two workers
# on this machine, each with srmsort's settings in its own configuration),
# distributes a table over 4 shards (2 per worker) and times, from the
# coordinator (psql's \timing: the whole distributed statement):
#   - CREATE INDEX on an int8 and on a text ("C") column: every shard's
#     index is built on its worker, two at a time per worker; systems
#     "native" and "srm" are srmsort.create_index off and on in the
#     workers' configuration (ALTER SYSTEM + reload),
#   - SELECT * FROM dist ORDER BY <key> OFFSET 1e12 (every row through the
#     coordinator's sort, none returned) under EXPLAIN (ANALYZE, TIMING ON):
#     "native" and "srm" are srmsort.enabled off and on in the coordinator's
#     session; reported are the execution time and the sort node's own time
#     (its total minus that of Citus's scan below it, which fetches the rows
#     from the workers and varies with the machine's load).
# Systems alternate (native srm, srm native, ...); one untimed warm-up each,
# then the median of --reps with min and max.
#
#   bench/run_citus_bench.sh [--pg N] [--rows N] [--reps N] [--out DIR]
# Defaults: PostgreSQL 15, 10M rows, 3 reps, bench/results/YYYY-MM-DD-citus-pgN
# (with a run.md that says what ran where).
set -euo pipefail
SRM_ARGV=("$@")

ROWS=10000000
REPS=3
OUT=
while [ $# -gt 0 ]; do
    case "$1" in
        --pg) export SRMSORT_PG=$2; shift 2 ;;
        --rows) ROWS=$2; shift 2 ;;
        --reps) REPS=$2; shift 2 ;;
        --out) OUT=$2; shift 2 ;;
        *) echo "usage: $0 [--pg N] [--rows N] [--reps N] [--out DIR]" >&2; exit 2 ;;
    esac
done
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../test/lib.sh"
. "$HERE/../test/citus/cluster.sh"

srm_packages
why=$(citus_missing)
[ -z "$why" ] || srm_die "$why"
srm_setup_tmp
trap 'citus_cluster_stop; srm_cluster_stop' EXIT
srm_build
srm_bench_outdir "citus-pg$SRM_PG_MAJOR" ${OUT:+--out "$OUT"}
OUT=$SRM_BENCH_OUT

CITUS_COORD_CONF="work_mem = '64MB'
max_parallel_workers_per_gather = 0"
CITUS_WORKER_CONF="maintenance_work_mem = '64MB'
max_parallel_maintenance_workers = 0
srmsort.trace = on
max_wal_size = '8GB'"
citus_cluster_start "$SRM_TMP/citus"
C=$CITUS_C
version=$(citus_psql "$C" -Atc "SELECT extversion FROM pg_extension WHERE extname = 'citus'")
srm_log "PostgreSQL $SRM_PG_MAJOR, Citus $version: loading $ROWS rows"
citus_psql "$C" <<EOF >/dev/null
SELECT setseed(0.5);
CREATE TABLE dist AS
SELECT (random() * 1e12)::int8 AS a, g::int8 AS i, md5(g::text) COLLATE "C" AS t
  FROM generate_series(1, $ROWS) g;
SET citus.shard_count = 4;
SET client_min_messages = warning;
SELECT create_distributed_table('dist', 'i');
SELECT truncate_local_data_after_distributing_table('dist');
VACUUM ANALYZE dist;
EOF

# milliseconds of the last statement of "$@" run on the coordinator
timed() {
    citus_psql "$C" -c '\timing on' "$@" | grep -E '^Time: ' | tail -n 1 |
        sed -E 's/^Time: ([0-9.]+) ms.*/\1/'
}
workers_set() {
    local p
    for p in $CITUS_W1 $CITUS_W2; do
        citus_psql "$p" -c "ALTER SYSTEM SET $1 = $2" -c "SELECT pg_reload_conf()" >/dev/null
    done
}
# median, min and max (in seconds) of the numbers (ms) on stdin
stats() {
    sort -n | awk '{v[NR] = $1 / 1000} END {
        m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
        printf "%.2f %.2f %.2f", m, v[1], v[NR] }'
}

# "total_ms,sort_ms" from EXPLAIN ANALYZE: the execution time, and the
# sort's own time (the sort node's end minus its child's, the Citus scan)
sort_times() {
    awk '/actual time=/ && n < 2 { t = $0; sub(/.*actual time=[0-9.]+\.\./, "", t); sub(/ .*/, "", t);
                                   v[n++] = t }
         /^Execution Time:/ { e = $3 }
         END { printf "%s,%.3f", e, v[0] - v[1] }' \
        < <(grep -E 'actual time=|^Execution Time:' | grep -v '^Limit')
}

csv=$OUT/citus.csv
echo "case,system,rep,ms,sort_ms" >"$csv"
run_case() {
    local case=$1 a=$2 b=$3 r sys
    for r in $(seq 0 "$REPS"); do
        if [ $((r % 2)) -eq 0 ]; then set -- "$a" "$b"; else set -- "$b" "$a"; fi
        for sys in "$@"; do
            [ -n "$sys" ] || continue
            ms=$(measure "$case" "$sys")
            # rep 0 is the warm-up
            [ "$r" -eq 0 ] || echo "$case,$sys,$r,$ms" >>"$csv"
            printf '   %-16s %-7s rep %d: %s ms\n' "$case" "$sys" "$r" "$ms"
        done
    done
}
measure() {
    local case=$1 sys=$2 col
    case "$case" in
        create_index_*)
            col=${case#create_index_}
            if [ "$sys" = srm ]; then workers_set srmsort.create_index on; else workers_set srmsort.create_index off; fi
            echo "$(timed -c "CREATE INDEX dist_x ON dist ($col)" -c '\timing off' -c "DROP INDEX dist_x"),"
            ;;
        order_by_*)
            col=${case#order_by_}
            citus_psql "$C" -At -c "SET srmsort.enabled = $([ "$sys" = srm ] && echo on || echo off)" \
                -c "EXPLAIN (ANALYZE, COSTS OFF) SELECT * FROM dist ORDER BY $col OFFSET 1e12" |
                sort_times
            ;;
    esac
}

srm_log "CREATE INDEX on the distributed table (workers: native vs srm)"
run_case create_index_a native srm
run_case create_index_t native srm
workers_set srmsort.create_index on
built=$(grep -h 'srmsort: built index "dist_x_' "$CITUS_DIR"/node"$CITUS_W1".log "$CITUS_DIR"/node"$CITUS_W2".log | wc -l)
srm_log "shard index builds through srmsort in the workers' logs: $built"
srm_log "ORDER BY on the coordinator (native vs srm)"
plan=$(citus_psql "$C" -Atc "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT * FROM dist ORDER BY a OFFSET 1e12")
run_case order_by_a native srm
run_case order_by_t native srm

{
    echo "# srmsort in a Citus cluster"
    echo
    echo "$(date -u '+%Y-%m-%d %H:%M UTC'), PostgreSQL $("$SRM_PG_CONFIG" --version | sed 's/^PostgreSQL //'), Citus $version,"
    echo "a coordinator and two workers on one machine ($(nproc) cores), $ROWS rows"
    echo "(int8 a, int8 i, text t = md5 under \"C\") over 4 shards, 2 per worker."
    echo "Workers: maintenance_work_mem 64MB, no parallel build; coordinator:"
    echo "work_mem 64MB. Median of $REPS (min-max), seconds, from the coordinator."
    echo "Command: bench/run_citus_bench.sh --pg $SRM_PG_MAJOR --rows $ROWS --reps $REPS"
    echo
    echo "| case | native | srm | native / srm |"
    echo "|---|---|---|---|"
    row() {
        local label=$1 c=$2 col=$3 nm nlo nhi sm slo shi
        read -r nm nlo nhi <<<"$(awk -F, -v c="$c" -v k="$col" '$1 == c && $2 == "native" {print $k}' "$csv" | stats)"
        read -r sm slo shi <<<"$(awk -F, -v c="$c" -v k="$col" '$1 == c && $2 == "srm" {print $k}' "$csv" | stats)"
        printf '| %s | %s (%s-%s) | %s (%s-%s) | %.2f |\n' "$label" "$nm" "$nlo" "$nhi" "$sm" "$slo" "$shi" \
            "$(awk -v n="$nm" -v s="$sm" 'BEGIN {print n / s}')"
    }
    row "CREATE INDEX (a), int8" create_index_a 4
    row "CREATE INDEX (t), text" create_index_t 4
    row "ORDER BY a: execution" order_by_a 4
    row "ORDER BY a: the sort node alone" order_by_a 5
    row "ORDER BY t: execution" order_by_t 4
    row "ORDER BY t: the sort node alone" order_by_t 5
    echo
    echo "The coordinator's plan (srm):"
    echo
    echo '```'
    echo "$plan"
    echo '```'
} >"$OUT/citus.md"
cat "$OUT/citus.md"
