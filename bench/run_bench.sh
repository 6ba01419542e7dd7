#!/bin/bash
# bench/run_bench.sh — benchmark srmsort against PostgreSQL's own sort.
#
# Sets up the same throwaway cluster as the tests (packages, build, staged
# install, four tablespaces srm_d0..srm_d3), then runs bench/bench.py with
# the given arguments (see bench/README.md).  Results go to bench/results/
# unless --out says otherwise.
#
#   bench/run_bench.sh                      # the default (small) set
#   bench/run_bench.sh --large              # 50M-row tables as well
#   bench/run_bench.sh --datasets int8 --rows 10000000 --work-mem 4MB,64MB
set -euo pipefail
. "$(dirname "$0")/../test/lib.sh"

ARGS=()
for a in "$@"; do
    if [ "$a" = "--large" ]; then
        ARGS+=(--rows 10000000,50000000)
    else
        ARGS+=("$a")
    fi
done

srm_packages
srm_bench_packages
srm_setup_tmp
srm_build
SRM_EXTRA_CONF="shared_buffers = '1GB'
max_wal_size = '4GB'
log_temp_files = -1" srm_cluster_start
srm_psql -qc "CREATE EXTENSION srmsort" >/dev/null
srm_bench_outdirs "$@"
srm_as_user env PGHOST="$PGHOST" PGPORT="$PGPORT" PGUSER=postgres PGDATABASE=postgres \
    "$SRM_PYTHON" "$SRM_REPO/bench/bench.py" --tablespaces srm_d0,srm_d1,srm_d2,srm_d3 \
    --out "$SRM_REPO/bench/results" "${ARGS[@]}"
