#!/bin/bash
# bench/profile_build.sh — where an index build's CPU goes: instructions per
# row by phase from callgrind, PostgreSQL's build against srmsort's, and how
# much of PostgreSQL's hash, BRIN and GIN builds is sorting.
#
#   bench/profile_build.sh --cases gist_point --rows 2000000        # GiST both ways
#   bench/profile_build.sh --pg 19 --cases hash_int8,brin_int8,gin_int4arr --rows 2000000
#   bench/profile_build.sh --cases gist_postgis --systems srm --gist-workers 2 --mwm 1GB
#   bench/profile_build.sh --pg 19 --cases btree_date_int4,btree_int8 --mwm 1GB --btree-workers 2
#
# Cases (table, statement, settings):
#   btree_date_int4  a date of 2,500 values then a random int4 (the goals'
#                numeric case, bench.py's date_int4), CREATE INDEX ON (d, b)
#   btree_int8   random int8 (bench.py's int8), CREATE INDEX ON (k)
#                btree builds run both ways (native: srmsort.create_index
#                off), max_parallel_maintenance_workers --btree-workers
#                (default 0: serial; PostgreSQL then plans the workers as
#                for a build outside the profile)
#   gist_point   random core points, CREATE INDEX ... USING gist (p):
#                systems native (srmsort.create_index off) and srm
#   gist_postgis the same on PostGIS points (needs postgis)
#   hash_int8    random int8, USING hash (k), with shared_buffers 16MB:
#                PostgreSQL's hash build sorts its tuples by bucket only
#                when the index's initial buckets outnumber shared_buffers
#   brin_int8    random int8, USING brin (k), max_parallel_maintenance_workers
#                --workers (17 and later build BRIN in parallel and sort
#                the participants' summaries by block)
#   gin_int4arr  int4[] of 1-10 elements from 1..100000, USING gin (a),
#                --workers (18 and later build GIN in parallel and sort
#                key/TID-list tuples)
# hash, BRIN and GIN run with the system native only (srmsort does not
# build them).  GiST builds run without workers unless --gist-workers N
# (max_parallel_maintenance_workers for them; PostgreSQL's GiST build is
# serial, srmsort's uses the workers): phases.md then also lists each
# process's instructions, the backend's being the build's serial path.
#
# How: the tables are made on the benchmark cluster, which is then stopped;
# for each case and system the postmaster runs under
# `valgrind --tool=callgrind` (its children are forks, followed: one output
# per process), collecting only inside index_build and the parallel
# workers' build functions, with a dump at the entry and exit of the
# sort's perform step (tuplesort_performsort, SrmSorterPerform, and
# SrmParallelWaitMerge, where srmsort's leader waits for worker 0's
# merge), so that the costs fall into parts: before the sort is performed
# (scan, tuple forming, the sort's input), the perform step, after (the
# sort's output and the index's pages).  A worker that never performs a
# sort (srmsort's, but worker 0) has one part, its input.
# bench/profile_build.py sums every process's callgrind_annotate inclusive
# listing by phase and writes phases.md.
# Debian's postgres is stripped: exported functions have names
# (tuplesort_*, gistSplit, ...), static ones appear as addresses.  Results
# (run.md, callgrind/, phases.md) go to
# bench/results/YYYY-MM-DD-profile-build-pgN unless --out says otherwise.
set -euo pipefail
SRM_ARGV=("$@")

ROWS=2000000
CASES=gist_point
SYSTEMS=native,srm
MWM=64MB
WORKERS=2
GIST_WORKERS=0
BTREE_WORKERS=0
OUT_ARG=()
while [ $# -gt 0 ]; do
    case "$1" in
        --pg) export SRMSORT_PG=${2:?--pg needs a version}; shift ;;
        --rows) ROWS=${2:?}; shift ;;
        --cases) CASES=${2:?}; shift ;;
        --systems) SYSTEMS=${2:?}; shift ;;
        --mwm) MWM=${2:?}; shift ;;
        --workers) WORKERS=${2:?}; shift ;;
        --gist-workers) GIST_WORKERS=${2:?}; shift ;;
        --btree-workers) BTREE_WORKERS=${2:?}; shift ;;
        --out) OUT_ARG=(--out "${2:?}"); shift ;;
        *) echo "usage: $0 [--pg N] [--rows N] [--cases A,B] [--systems native,srm] [--mwm 64MB] [--workers N] [--gist-workers N] [--btree-workers N] [--out DIR]" >&2
           exit 2 ;;
    esac
    shift
done

. "$(dirname "$0")/../test/lib.sh"

srm_bench_cluster 4GB
srm_bench_outdir "profile-build-pg$SRM_PG_MAJOR" ${OUT_ARG[@]+"${OUT_ARG[@]}"}
srm_need_valgrind
OUT=$SRM_BENCH_OUT
mkdir -p "$OUT/callgrind"
chmod 777 "$OUT/callgrind"

XY="random() * 1e6 AS x, random() * 1e6 AS y"
IFS=, read -r -a CASE_LIST <<<"$CASES"
IFS=, read -r -a SYS_LIST <<<"$SYSTEMS"

# A case's table, its index (what follows ON <table>), shared_buffers and
# workers.
table_of() {
    case "$1" in
        gist_point) echo "SELECT point(x, y) AS p, i::int8 AS v FROM (SELECT $XY, i FROM generate_series(1, $ROWS) i) s" ;;
        gist_postgis) echo "SELECT ST_MakePoint(x, y) AS p, i::int8 AS v FROM (SELECT $XY, i FROM generate_series(1, $ROWS) i) s" ;;
        btree_date_int4) echo "SELECT DATE '2020-01-01' + floor(random() * 2500)::int AS d, (random() * 4e9 - 2e9)::int4 AS b, i::int8 AS v FROM generate_series(1, $ROWS) i" ;;
        btree_int8 | hash_int8 | brin_int8) echo "SELECT (random() * 9e18)::int8 AS k, i::int8 AS v FROM generate_series(1, $ROWS) i" ;;
        # i * 0 ties the subquery to the row, so that it runs for each
        gin_int4arr) echo "SELECT ARRAY(SELECT (random() * 99999)::int4 + 1 FROM generate_series(1, 1 + (random() * 9)::int + i * 0)) AS a, i::int8 AS v FROM generate_series(1, $ROWS) i" ;;
        *) srm_die "unknown case $1" ;;
    esac
}
index_of() {
    case "$1" in
        gist_*) echo "USING gist (p)" ;;
        btree_date_int4) echo "(d, b)" ;;
        btree_int8) echo "(k)" ;;
        hash_int8) echo "USING hash (k)" ;;
        brin_int8) echo "USING brin (k)" ;;
        gin_int4arr) echo "USING gin (a)" ;;
    esac
}
buffers_of() {
    case "$1" in
        hash_*) echo 16MB ;;
        *) echo 1GB ;;
    esac
}
workers_of() {
    case "$1" in
        brin_* | gin_*) echo "$WORKERS" ;;
        gist_*) echo "$GIST_WORKERS" ;;
        btree_*) echo "$BTREE_WORKERS" ;;
        *) echo 0 ;;
    esac
}

for c in "${CASE_LIST[@]}"; do
    [ "$c" != gist_postgis ] || srm_psql -qc "CREATE EXTENSION IF NOT EXISTS postgis" >/dev/null
    srm_log "making t_$c: $ROWS rows"
    srm_psql -q >/dev/null <<SQL
SELECT setseed(0.42);
CREATE TABLE IF NOT EXISTS t_$c AS $(table_of "$c");
VACUUM ANALYZE t_$c;
SQL
done
srm_as_user "$SRM_BIN/pg_ctl" -D "$SRM_PGDATA" -m fast -w stop >/dev/null

# The postmaster under callgrind, in the background, until it accepts
# connections.
cg_start() {
    local tag=$1 sb=$2 i
    srm_as_user valgrind --tool=callgrind --trace-children=yes \
        --toggle-collect=index_build --toggle-collect=_brin_parallel_build_main \
        --toggle-collect=_gin_parallel_build_main --toggle-collect=_bt_parallel_build_main \
        --toggle-collect=srm_parallel_build_main --toggle-collect=srm_gist_split_main \
        --dump-before=tuplesort_performsort --dump-after=tuplesort_performsort \
        --dump-before=SrmSorterPerform --dump-after=SrmSorterPerform \
        --dump-before=SrmParallelWaitMerge --dump-after=SrmParallelWaitMerge \
        --callgrind-out-file="$OUT/callgrind/$tag.%p.out" \
        "$SRM_BIN/postgres" -D "$SRM_PGDATA" -c shared_buffers="$sb" -c autovacuum=off \
        >"$OUT/callgrind/$tag.server.log" 2>&1 &
    for i in $(seq 1 300); do
        srm_as_user "$SRM_BIN/pg_isready" -q -h "$SRM_TMP/sock" -p "$SRM_PORT" && return 0
        sleep 1
    done
    srm_die "the server under valgrind did not start ($OUT/callgrind/$tag.server.log)"
}

for c in "${CASE_LIST[@]}"; do
    for sys in "${SYS_LIST[@]}"; do
        case "$c" in gist_* | btree_*) ;; *) [ "$sys" = native ] || continue ;; esac
        tag=$c-$sys
        srm_log "callgrind $tag"
        cg_start "$tag" "$(buffers_of "$c")"
        if [ "$sys" = native ]; then on=off; else on=on; fi
        srm_psql >"$OUT/callgrind/$tag.psql.log" 2>&1 <<SQL
SET maintenance_work_mem = '$MWM';
SET max_parallel_maintenance_workers = $(workers_of "$c");
SET srmsort.create_index = $on;
SET srmsort.min_input_size = 0;
SET client_min_messages = log;
SET srmsort.trace = on;
\\timing on
CREATE INDEX prof_idx ON t_$c $(index_of "$c");
\\timing off
SELECT pg_relation_size('prof_idx') / 8192 AS index_pages;
DROP INDEX prof_idx;
SQL
        srm_as_user "$SRM_BIN/pg_ctl" -D "$SRM_PGDATA" -m fast -w -t 600 stop >/dev/null
        wait
        # the processes that collected nothing (checkpointer, ...)
        grep -l '^totals: 0$' "$OUT/callgrind/$tag".*.out* 2>/dev/null | xargs -r rm -f
    done
done

"$SRM_PYTHON" "$SRM_REPO/bench/profile_build.py" --rows "$ROWS" --dir "$OUT" \
    >"$OUT/phases.md"
cat "$OUT/phases.md"
