#!/bin/bash
# bench/run_goals.sh — the CPU path's goals (issue #38) in one run: every
# case below, side by side with PostgreSQL's own sort on one throwaway
# cluster (as bench/run_bench.sh sets it up), each case in a directory of
# its own under --out (default bench/results/YYYY-MM-DD-goals-pgN, with a
# run.md that says what ran where).  Run it twice, an hour apart: the ratio
# that counts is the lower of the two runs'.
#
#   bench/run_goals.sh --pg 19
#   bench/run_goals.sh --pg 19 --cases int8,shapes   # some cases only
#   bench/run_goals.sh --pg 19 --out DIR --reps 5
#
# Cases (about 40 minutes in all on 2 vCPU):
#   int8      50M (int8, int8) rows at 4MB, 64MB and 1GB, one process each
#   records   50M 100-byte records at 4MB and 64MB, one process each
#   inmem     10M int8 rows, 5M "C" and ICU text keys, sorted in memory (1GB)
#   shapes    descending, NULL, two-key, 20-column, 512-byte-row and TOASTed
#             sorts at 4MB, 64MB and 1GB
#   parallel  50M int8 with max_parallel_workers_per_gather = 2 at 64MB and
#             1GB: PostgreSQL, srmsort, srmsort in one process, and DuckDB
#             with two threads (its Python module installed with pip when
#             missing)
set -euo pipefail
SRM_ARGV=("$@")

OUT= CASES=int8,parallel,inmem,shapes,records REPS=3
while [ $# -gt 0 ]; do
    case "$1" in
        --pg) export SRMSORT_PG=${2:?--pg needs a version}; shift ;;
        --pg=*) export SRMSORT_PG=${1#--pg=} ;;
        --out) OUT=${2:?--out needs a directory}; shift ;;
        --cases) CASES=${2:?--cases needs a list}; shift ;;
        --reps) REPS=${2:?--reps needs a number}; shift ;;
        *) echo "usage: $0 [--pg N] [--out DIR] [--cases LIST] [--reps N]" >&2; exit 2 ;;
    esac
    shift
done

. "$(dirname "$0")/../test/lib.sh"

srm_bench_cluster 4GB plots
srm_bench_outdir "goals-pg$SRM_PG_MAJOR" ${OUT:+--out "$OUT"}
OUT=$SRM_BENCH_OUT
case ",$CASES," in *,parallel,*) srm_bench_duckdb ;; esac

bench() {
    local dir=$OUT/$1
    shift
    srm_bench_mkdir "$dir"
    srm_log "$(date '+%H:%M') ${dir#$SRM_REPO/}: $*"
    srm_bench_py bench.py --tablespaces srm_d0,srm_d1,srm_d2,srm_d3 \
        --reps "$REPS" --out "$dir" "$@"
}

# drop the tables once done with them (the 50M records take 6GB); int8's
# stay for parallel
drop_tables() {
    srm_psql -qAtc "SELECT format('DROP TABLE %I;', relname) FROM pg_class
        WHERE relkind = 'r' AND relname LIKE 'bench\_%'" | srm_psql -q >/dev/null
}

for c in ${CASES//,/ }; do
    case "$c" in
        int8) bench int8 --datasets int8 --rows 50000000 --work-mem 4MB,64MB,1GB \
                  --systems native,srm ;;
        records) bench records --datasets records --rows 50000000 --work-mem 4MB,64MB \
                     --systems native,srm ;;
        inmem) bench inmem_int8 --datasets int8 --rows 10000000 --work-mem 1GB \
                   --systems native,srm
               bench inmem_text --datasets text_c,text_icu --rows 5000000 --work-mem 1GB \
                   --systems native,srm ;;
        shapes) bench shapes --datasets int8_desc,int8_nulls,multikey,many_cols --rows 2000000 \
                    --work-mem 4MB,64MB,1GB --systems native,srm
                bench shapes_wide --datasets wide --rows 1000000 --work-mem 4MB,64MB,1GB \
                    --systems native,srm
                bench shapes_toast --datasets toast --rows 200000 --work-mem 4MB,64MB,1GB \
                    --systems native,srm ;;
        parallel) bench parallel --datasets int8 --rows 50000000 --work-mem 64MB,1GB \
                      --workers 2 --systems native,srm,srm_serial,duckdb ;;
        *) srm_die "unknown case $c (int8, records, inmem, shapes, parallel)" ;;
    esac
    [ "$c" = int8 ] || drop_tables
done
srm_log "$(date '+%H:%M') done: $OUT"
