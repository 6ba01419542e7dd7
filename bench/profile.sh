#!/bin/bash
# bench/profile.sh — where a sort's CPU goes: instructions per row from
# callgrind and the backend's user/sys CPU time, srmsort against
# PostgreSQL's own sort and the scan floor, on one query.
#
#   bench/profile.sh --pg 19                       # 2M int8 rows, 4MB and 1GB
#   bench/profile.sh --pg 19 --rows 1000000 --work-mem 4MB,64MB,1GB
#   bench/profile.sh --pg 19 --systems srm --reps 0   # callgrind of srmsort only
#   bench/profile.sh --pg 19 --dataset text_icu --rows 500000 --work-mem 1GB
#   bench/profile.sh --pg 19 --rows 50000000 --work-mem 64MB --perf --no-callgrind
#
# Wall time on a busy 2-core VM without hardware counters says little, so
# this measures what moves less with the hour:
#
# * CPU time: each query runs --reps times (default 3) in a session with
#   log_statement_stats on; the backend's getrusage user and system
#   seconds for the statement (what `perf stat -e task-clock` counts for
#   the process, split into user and kernel) are the medians.
# * Instructions: the cluster is stopped, and each query runs once more in
#   `postgres --single` under `valgrind --tool=callgrind`, collecting only
#   inside standard_ExecutorRun (no startup, parsing or planning).
#   bench/profile_phases.py reads callgrind_annotate's inclusive costs and
#   splits them into phases (input copy, run formation, run writing,
#   merge, output); both systems' rows are divided by the table's rows.
#   Debian's postgres binary is stripped: PostgreSQL's exported functions
#   have names, its static ones (qsort_tuple, mergeonerun, ...) appear as
#   addresses, but inclusive costs through them stay exact.
# * CPU time by phase (--perf): one more run of each query with the
#   host's `perf record -e cpu-clock -g` attached to the backend
#   (bench/perf_watch.sh, started before a Debian root is entered;
#   bench/perf_phases.py sorts the samples into phases by their stacks).
#   Unlike callgrind it runs at full speed, so it takes the real row
#   counts, and it counts what instructions do not: cache misses, page
#   faults, the kernel's copies.  Needs perf on the host.
#
# Systems: scan (SELECT * FROM t OFFSET 1e12, the floor), native
# (srmsort.enabled off), srm.  The table is one of bench.py's data sets
# (--dataset: int8, int8 key + int8 payload, the default; text_c,
# text_icu, random text keys of 16-32 characters sorted with collation
# "C" or ICU en), setseed 0.42.  Results: run.md, rusage.csv,
# explain/, callgrind/ (the raw outputs and callgrind_annotate's
# inclusive and exclusive listings) and phases.md, in
# bench/results/YYYY-MM-DD-profile-pgN unless --out says otherwise.
set -euo pipefail
SRM_ARGV=("$@")

ROWS=2000000
WORK_MEMS=4MB,1GB
SYSTEMS=scan,native,srm
REPS=3
DATASET=int8
PERF=0
CALLGRIND=1
OUT_ARG=()
while [ $# -gt 0 ]; do
    case "$1" in
        --pg) export SRMSORT_PG=${2:?--pg needs a version}; shift ;;
        --rows) ROWS=${2:?}; shift ;;
        --work-mem) WORK_MEMS=${2:?}; shift ;;
        --systems) SYSTEMS=${2:?}; shift ;;
        --reps) REPS=${2:?}; shift ;;
        --dataset) DATASET=${2:?}; shift ;;
        --out) OUT_ARG=(--out "${2:?}"); shift ;;
        --perf) PERF=1 ;;
        --no-callgrind) CALLGRIND=0 ;;
        *) echo "usage: $0 [--pg N] [--rows N] [--work-mem A,B] [--systems scan,native,srm] [--reps N] [--dataset int8|text_c|text_icu] [--perf] [--no-callgrind] [--out DIR]" >&2
           exit 2 ;;
    esac
    shift
done

. "$(dirname "$0")/../test/lib.sh"

# perf runs on the host: its watcher starts before a Debian root is
# entered, on a queue inside the repository, which the root sees too
if [ "$PERF" = 1 ] && [ -z "${SRM_PERF_QUEUE:-}" ]; then
    command -v perf >/dev/null || srm_die "--perf needs perf on the host (apt-get install linux-perf)"
    SRM_PERF_QUEUE=$(mktemp -d "$SRM_REPO/.perf-queue.XXXXXX")
    chmod 777 "$SRM_PERF_QUEUE"
    export SRM_PERF_QUEUE
    setsid "$SRM_REPO/bench/perf_watch.sh" "$SRM_PERF_QUEUE" $$ \
        >"$SRM_PERF_QUEUE/watch.log" 2>&1 </dev/null &
fi

srm_bench_cluster 4GB
srm_bench_outdir "profile-$DATASET-pg$SRM_PG_MAJOR" ${OUT_ARG[@]+"${OUT_ARG[@]}"}
srm_need_valgrind
OUT=$SRM_BENCH_OUT
mkdir -p "$OUT/explain" "$OUT/callgrind"
chmod 777 "$OUT/explain" "$OUT/callgrind"

# the data sets and sort keys of bench/bench.py
case "$DATASET" in
    int8) MAKE="SELECT (random() * 9e18)::int8 AS k, i::int8 AS v
                FROM generate_series(1, $ROWS) i"
          KEY=k ;;
    text_c|text_icu)
          MAKE="SELECT substr(md5(random()::text) || md5(random()::text), 1,
                       16 + (random() * 16)::int) AS k
                FROM generate_series(1, $ROWS) i"
          if [ "$DATASET" = text_c ]; then KEY='k COLLATE "C"'; else KEY='k COLLATE "en-x-icu"'; fi ;;
    *) srm_die "unknown --dataset $DATASET (int8, text_c, text_icu)" ;;
esac
srm_log "making t: $ROWS rows of $DATASET"
srm_psql -q <<EOF >/dev/null
SELECT setseed(0.42);
CREATE TABLE t AS $MAKE;
VACUUM ANALYZE t;
EOF

# The settings of a system, one per line (SET statements).
settings() {
    local sys=$1 wm=$2
    echo "SET max_parallel_workers_per_gather = 0;"
    echo "SET work_mem = '$wm';"
    case "$sys" in
        native) echo "SET srmsort.enabled = off;" ;;
        *) echo "SET srmsort.enabled = on;" ;;
    esac
}
query() {
    case "$1" in
        scan) echo "SELECT * FROM t OFFSET 1e12" ;;
        *) echo "SELECT * FROM t ORDER BY $KEY OFFSET 1e12" ;;
    esac
}

IFS=, read -r -a WMS <<<"$WORK_MEMS"
IFS=, read -r -a SYSS <<<"$SYSTEMS"

# CPU time: rusage of the statement, REPS times after one untimed run,
# the systems alternated.
echo "system,work_mem,rep,user_s,sys_s,elapsed_s" >"$OUT/rusage.csv"
if [ "$REPS" -gt 0 ]; then
    for wm in "${WMS[@]}"; do
        for sys in "${SYSS[@]}"; do
            { settings "$sys" "$wm"; echo "EXPLAIN (ANALYZE, BUFFERS, TIMING OFF) $(query "$sys");"; } |
                srm_psql -q >"$OUT/explain/$sys-$wm.txt" 2>&1
        done
        for rep in $(seq 1 "$REPS"); do
            for sys in "${SYSS[@]}"; do
                stats=$({ settings "$sys" "$wm"
                          echo "SET client_min_messages = log;"
                          echo "SET log_statement_stats = on;"
                          echo "$(query "$sys");"; } | srm_psql -q 2>&1 >/dev/null |
                        grep -E '^!\s+[0-9.]+ s user' | tail -1)
                u=$(sed -E 's/^!\s+([0-9.]+) s user, ([0-9.]+) s system, ([0-9.]+) s elapsed.*/\1/' <<<"$stats")
                s=$(sed -E 's/^!\s+([0-9.]+) s user, ([0-9.]+) s system, ([0-9.]+) s elapsed.*/\2/' <<<"$stats")
                e=$(sed -E 's/^!\s+([0-9.]+) s user, ([0-9.]+) s system, ([0-9.]+) s elapsed.*/\3/' <<<"$stats")
                echo "$sys,$wm,$rep,$u,$s,$e" >>"$OUT/rusage.csv"
                srm_log "rusage $sys $wm rep $rep: user $u s, sys $s s, elapsed $e s"
            done
        done
    done
fi

# CPU time by phase: one more run of each query, perf attached to its
# backend by the host's watcher (the session waits until it is).
if [ "$PERF" = 1 ]; then
    mkdir -p "$OUT/perf"
    for wm in "${WMS[@]}"; do
        for sys in "${SYSS[@]}"; do
            name="$sys-$wm"
            srm_log "perf $sys $wm"
            { settings "$sys" "$wm"
              echo '\pset tuples_only on'
              echo '\pset format unaligned'
              echo "SELECT pg_backend_pid() \\g $SRM_PERF_QUEUE/$name.pid.tmp"
              echo "\\! mv $SRM_PERF_QUEUE/$name.pid.tmp $SRM_PERF_QUEUE/$name.pid; while [ ! -e $SRM_PERF_QUEUE/$name.attached ]; do sleep 0.1; done"
              echo "$(query "$sys");"; } | srm_psql -q >/dev/null
            while [ ! -e "$SRM_PERF_QUEUE/$name.done" ]; do sleep 0.2; done
            cp "$SRM_PERF_QUEUE/$name.json" "$OUT/perf/$name.json"
        done
    done
    touch "$SRM_PERF_QUEUE/stop"
    sleep 0.5
    rm -rf "$SRM_PERF_QUEUE"
fi

# Instructions: one backend in single-user mode under callgrind.
if [ "$CALLGRIND" = 1 ]; then
srm_as_user "$SRM_BIN/pg_ctl" -D "$SRM_PGDATA" -m fast -w stop >/dev/null
for wm in "${WMS[@]}"; do
    for sys in "${SYSS[@]}"; do
        srm_log "callgrind $sys $wm"
        { settings "$sys" "$wm" | tr -d ';'; query "$sys"; } >"$SRM_TMP/q.sql"
        srm_as_user valgrind --tool=callgrind --toggle-collect=standard_ExecutorRun \
            --callgrind-out-file="$OUT/callgrind/callgrind.$sys-$wm.out" \
            "$SRM_BIN/postgres" --single -D "$SRM_PGDATA" postgres \
            <"$SRM_TMP/q.sql" >"$OUT/callgrind/single.$sys-$wm.log" 2>&1 ||
            { tail -20 "$OUT/callgrind/single.$sys-$wm.log"; srm_die "callgrind run failed"; }
        callgrind_annotate --inclusive=yes --threshold=100 --auto=no \
            "$OUT/callgrind/callgrind.$sys-$wm.out" >"$OUT/callgrind/inclusive.$sys-$wm.txt"
        callgrind_annotate --inclusive=no --threshold=99 --auto=no \
            "$OUT/callgrind/callgrind.$sys-$wm.out" >"$OUT/callgrind/exclusive.$sys-$wm.txt"
    done
done
fi
"$SRM_PYTHON" "$SRM_REPO/bench/profile_phases.py" --rows "$ROWS" --dir "$OUT" \
    >"$OUT/phases.md"
cat "$OUT/phases.md"
