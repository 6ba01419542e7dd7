#!/bin/bash
# bench/run_bench.sh — benchmark srmsort against PostgreSQL's own sort.
#
# Sets up the same throwaway cluster as the tests (packages, build, staged
# install, four tablespaces srm_d0..srm_d3), then runs bench/bench.py with
# the given arguments (see bench/README.md).  Results, with a run.md that
# says what ran where, go to bench/results/YYYY-MM-DD-sort-pgN unless --out
# says otherwise.
#
#   bench/run_bench.sh                      # the default (small) set
#   bench/run_bench.sh --large              # 50M-row tables as well
#   bench/run_bench.sh --datasets int8 --rows 10000000 --work-mem 4MB,64MB
#   bench/run_bench.sh --pg 19              # against PostgreSQL 19 (15, the
#                                           # default, 17, 18 or 19; see
#                                           # test/pg_server.sh)
set -euo pipefail
SRM_ARGV=("$@")

ARGS=()
while [ $# -gt 0 ]; do
    case "$1" in
        --large) ARGS+=(--rows 10000000,50000000) ;;
        --pg) export SRMSORT_PG=${2:?--pg needs a version}; shift ;;
        --pg=*) export SRMSORT_PG=${1#--pg=} ;;
        *) ARGS+=("$1") ;;
    esac
    shift
done
set -- ${ARGS[@]+"${ARGS[@]}"}

. "$(dirname "$0")/../test/lib.sh"

srm_bench_cluster 4GB plots
srm_bench_outdir "sort-pg$SRM_PG_MAJOR" "$@"
case " $* " in *duckdb*) srm_bench_duckdb ;; esac
srm_bench_py bench.py --tablespaces srm_d0,srm_d1,srm_d2,srm_d3 \
    "${ARGS[@]}" --out "$SRM_BENCH_OUT"
