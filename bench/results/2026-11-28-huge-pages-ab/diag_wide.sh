#!/bin/bash
# throwaway: a cluster as the benches make it, then diag_wide.py
set -euo pipefail
SRM_ARGV=("$@")
export SRMSORT_PG=19
cd /work/diag
. test/lib.sh
srm_bench_cluster 4GB plots
srm_as_user env PGHOST="$PGHOST" PGPORT="$PGPORT" PGUSER=postgres PGDATABASE=postgres \
    PYTHONPATH="/work/diag/bench${SRM_PYTHONPATH:+:$SRM_PYTHONPATH}" "$SRM_PYTHON" /work/diag/bench/diag_wide.py "$@"
