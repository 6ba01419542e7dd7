#!/bin/bash
# bench/run_index_bench.sh — CREATE INDEX: PostgreSQL's btree build vs srmsort's.
#
# Sets up the same throwaway cluster as the tests (packages, build, staged
# install, four tablespaces srm_d0..srm_d3), then runs bench/index_bench.py
# with the given arguments (see bench/README.md).  Results (index.md and
# .csv, and run.md: what ran where) go to bench/results/YYYY-MM-DD-index-pgN
# unless --out says otherwise.
#
#   bench/run_index_bench.sh                          # 10M rows, 64MB and 1GB
#   bench/run_index_bench.sh --rows 1000000 --reps 1  # a quick look
#   bench/run_index_bench.sh --pg 19                  # against PostgreSQL 19
set -euo pipefail
SRM_ARGV=("$@")
# --pg N first: the server version, as for the tests (run_rebuild_bench.sh
# takes it so too)
if [ "${1:-}" = --pg ]; then
    export SRMSORT_PG=${2:?--pg needs a version}
    shift 2
fi
. "$(dirname "$0")/../test/lib.sh"

srm_bench_cluster 8GB
srm_bench_outdir "index-pg$SRM_PG_MAJOR" "$@"
srm_bench_py index_bench.py "$@" --out "$SRM_BENCH_OUT"
