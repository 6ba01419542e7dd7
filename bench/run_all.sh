#!/bin/bash
# bench/run_all.sh — every benchmark's default set, one after the other:
#
#   1. ORDER BY, native vs srmsort srm / dsm (bench/run_bench.sh);
#   2. CREATE INDEX, native (parallel and serial) vs srmsort
#      (bench/run_index_bench.sh);
#   3. sorts larger than memory on D = 1, 2, 4, 8 emulated disks
#      (bench/disk_bound.sh; root only, skipped otherwise).
#
# Results, tables and plots land in bench/results/, each run in a directory
# of its own (YYYY-MM-DD-<slug>, with a run.md).  About two hours on the
# project's 2-core machine (the disk-bound part is most of it).  The concurrency benchmark (bench/concurrency.sh)
# is not part of it: it measures throughput under load, not one sort.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

"$here/run_bench.sh"
"$here/run_index_bench.sh"
if [ "$(id -u)" -eq 0 ]; then
    "$here/disk_bound.sh"
else
    echo "run_all: the disk-bound experiment needs root; skipped" >&2
fi
