#!/bin/bash
# bench/run_rebuild_bench.sh — CREATE INDEX CONCURRENTLY, CLUSTER and
# REINDEX TABLE: PostgreSQL's builds and sort vs srmsort's.
#
# Sets up the same throwaway cluster as the tests (packages, build, staged
# install, four tablespaces srm_d0..srm_d3), then runs bench/rebuild_bench.py
# with the given arguments (see bench/README.md).  Results (rebuild.md and
# .csv, and run.md: what ran where) go to
# bench/results/YYYY-MM-DD-rebuild-pgN unless --out says otherwise.
#
#   bench/run_rebuild_bench.sh                            # 50M rows, 64MB
#   bench/run_rebuild_bench.sh --rows 1000000 --reps 1    # a quick look
#   bench/run_rebuild_bench.sh --pg 18 ...                # another server
set -euo pipefail
SRM_ARGV=("$@")
if [ "${1:-}" = --pg ]; then
    export SRMSORT_PG=$2
    shift 2
fi
. "$(dirname "$0")/../test/lib.sh"

srm_packages
srm_setup_tmp
srm_build
SRM_EXTRA_CONF="shared_buffers = '1GB'
max_wal_size = '16GB'
checkpoint_timeout = '30min'
autovacuum = off
log_temp_files = -1" srm_cluster_start
srm_psql -qc "CREATE EXTENSION srmsort" >/dev/null
srm_bench_outdir "rebuild-pg$SRM_PG_MAJOR" "$@"
srm_bench_py rebuild_bench.py "$@" --out "$SRM_BENCH_OUT"
