#!/bin/bash
# bench/run_goals.sh — the CPU path's goals (issue #50) in one run: every
# case below, side by side with PostgreSQL's own sort on one throwaway
# cluster (as bench/run_bench.sh sets it up), each case in a directory of
# its own under --out (default bench/results/YYYY-MM-DD-goals-pgN, with a
# run.md that says what ran where).  Every case reports its floor, the same
# query without ORDER BY (for index builds the table's scan), measured in
# the same run.  Run it twice, an hour apart: the ratio that counts is the
# lower of the two runs' (bench/goals_table.py RUN1 RUN2 makes the table).
#
#   bench/run_goals.sh --pg 19
#   bench/run_goals.sh --pg 19 --cases int8,shapes   # some cases only
#   bench/run_goals.sh --pg 19 --out DIR --reps 5
#   bench/run_goals.sh --pg 19 --rows 20000 --reps 1 # every case, tiny: a
#                                                    # check of the script
#
# Cases, in this order (about an hour in all on 2 vCPU, estimated from the
# medians of the 2026-11-27 runs: int8 9 min, duckdb1 4, parallel 9, inmem
# 3, twokeys 7, numeric 13, shapes 4, records 12):
#   int8      50M (int8, int8) rows at 4MB, 64MB and 1GB, one process each
#   duckdb1   the same rows at 64MB and 1GB: srmsort in one process against
#             DuckDB with one thread (memory_limit = work_mem)
#   parallel  the same rows with max_parallel_workers_per_gather = 2 at 64MB
#             and 1GB: PostgreSQL, srmsort, srmsort in one process, and
#             DuckDB with two threads
#   inmem     10M int8 rows, 5M "C" and ICU text keys, sorted in memory (1GB)
#   twokeys   ORDER BY a, b on 10M rows, (int4, int4), (int4, date) and
#             (int4, int8), a of 1000 values, at 4MB and 64MB
#   numeric   10M rows, a date of 2,500 values then (numeric, numeric) or
#             int4: CREATE INDEX on (d, a, b) and (d, b), PostgreSQL's build
#             and srmsort's, with and without parallel workers, at
#             maintenance_work_mem 64MB and 1GB; the same ORDER BY at 4MB
#             and 64MB
#   shapes    descending, NULL, two-key, 20-column, 512-byte-row and TOASTed
#             sorts at 4MB, 64MB and 1GB (2M rows; 1M and 200k)
#   records   50M 100-byte records at 4MB and 64MB, one process each
# DuckDB's Python module is installed with pip when missing (duckdb1,
# parallel).  --rows N replaces every case's row count (a quick check).
set -euo pipefail
SRM_ARGV=("$@")

ALL_CASES=int8,duckdb1,parallel,inmem,twokeys,numeric,shapes,records
OUT= CASES=$ALL_CASES REPS=3 ROWS=
while [ $# -gt 0 ]; do
    case "$1" in
        --pg) export SRMSORT_PG=${2:?--pg needs a version}; shift ;;
        --pg=*) export SRMSORT_PG=${1#--pg=} ;;
        --out) OUT=${2:?--out needs a directory}; shift ;;
        --cases) CASES=${2:?--cases needs a list}; shift ;;
        --reps) REPS=${2:?--reps needs a number}; shift ;;
        --rows) ROWS=${2:?--rows needs a number}; shift ;;
        *) echo "usage: $0 [--pg N] [--out DIR] [--cases LIST] [--reps N] [--rows N]" >&2; exit 2 ;;
    esac
    shift
done

. "$(dirname "$0")/../test/lib.sh"

# max_wal_size 8GB as for bench/run_index_bench.sh: the index builds
srm_bench_cluster 8GB plots
srm_bench_outdir "goals-pg$SRM_PG_MAJOR" ${OUT:+--out "$OUT"}
OUT=$SRM_BENCH_OUT
case ",$CASES," in *,parallel,* | *,duckdb1,*) srm_bench_duckdb ;; esac

# the rows of a case, or --rows
rows() { echo "${ROWS:-$1}"; }

bench() {
    local dir=$OUT/$1
    shift
    srm_bench_mkdir "$dir"
    srm_log "$(date '+%H:%M') ${dir#$SRM_REPO/}: $*"
    srm_bench_py bench.py --tablespaces srm_d0,srm_d1,srm_d2,srm_d3 \
        --reps "$REPS" --out "$dir" "$@"
}

index_bench() {
    local dir=$OUT/$1
    shift
    srm_bench_mkdir "$dir"
    srm_log "$(date '+%H:%M') ${dir#$SRM_REPO/}: $*"
    srm_bench_py index_bench.py --reps "$REPS" --out "$dir" "$@"
}

# Drop the tables once done with them (the 50M records take 6GB), but the
# 50M int8 rows while a case still to run sorts them.
INT8_CASES=" int8 duckdb1 parallel "
drop_tables() {
    local keep=x c
    for c in $1; do
        case "$INT8_CASES" in *" $c "*) keep=bench_int8_$(rows 50000000) ;; esac
    done
    srm_psql -qAtc "SELECT format('DROP TABLE %I;', relname) FROM pg_class
        WHERE relkind = 'r' AND (relname LIKE 'bench\_%' OR relname LIKE 'ibench\_%')
          AND relname <> '$keep'" | srm_psql -q >/dev/null
}

todo=" ${CASES//,/ } "
for c in $todo; do
    todo=${todo/ $c / }
    case "$c" in
        int8) bench int8 --datasets int8 --rows "$(rows 50000000)" --work-mem 4MB,64MB,1GB \
                  --systems native,srm ;;
        duckdb1) bench duckdb1 --datasets int8 --rows "$(rows 50000000)" --work-mem 64MB,1GB \
                     --systems srm,duckdb ;;
        parallel) bench parallel --datasets int8 --rows "$(rows 50000000)" --work-mem 64MB,1GB \
                      --workers 2 --systems native,srm,srm_serial,duckdb ;;
        inmem) bench inmem_int8 --datasets int8 --rows "$(rows 10000000)" --work-mem 1GB \
                   --systems native,srm
               bench inmem_text --datasets text_c,text_icu --rows "$(rows 5000000)" --work-mem 1GB \
                   --systems native,srm ;;
        twokeys) bench twokeys --datasets multikey_int4,multikey_date,multikey \
                     --rows "$(rows 10000000)" --work-mem 4MB,64MB --systems native,srm ;;
        numeric) index_bench numeric_index --datasets date_numeric,date_int4 \
                     --rows "$(rows 10000000)" --mwm 64MB,1GB
                 bench numeric_sort --datasets date_numeric,date_int4 --rows "$(rows 10000000)" \
                     --work-mem 4MB,64MB --systems native,srm ;;
        shapes) bench shapes --datasets int8_desc,int8_nulls,multikey,many_cols --rows "$(rows 2000000)" \
                    --work-mem 4MB,64MB,1GB --systems native,srm
                bench shapes_wide --datasets wide --rows "$(rows 1000000)" --work-mem 4MB,64MB,1GB \
                    --systems native,srm
                bench shapes_toast --datasets toast --rows "$(rows 200000)" --work-mem 4MB,64MB,1GB \
                    --systems native,srm ;;
        records) bench records --datasets records --rows "$(rows 50000000)" --work-mem 4MB,64MB \
                     --systems native,srm ;;
        *) srm_die "unknown case $c (${ALL_CASES//,/, })" ;;
    esac
    drop_tables "$todo"
done
srm_log "$(date '+%H:%M') done: $OUT"
