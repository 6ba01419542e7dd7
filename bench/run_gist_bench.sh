#!/bin/bash
# bench/run_gist_bench.sh — sorted GiST builds: PostgreSQL's vs srmsort's.
#
# The same throwaway cluster as the other benchmarks, then
# bench/index_bench.py on the GiST data sets: random core points
# (point_ops, every version), and where PostGIS can be created, random
# PostGIS points and small polygons (gist_geometry_ops_2d); the systems
# native_serial and srm_serial (PostgreSQL's GiST builds are always
# serial), and srm: srmsort with max_parallel_maintenance_workers =
# --workers, whose leaf picksplit runs in the workers PostgreSQL would
# plan (one at 64MB, two at 1GB); medians of --reps after a warm-up,
# alternated.  The PostGIS data sets are skipped
# (and index.md says so) when CREATE EXTENSION postgis fails; as root the
# script installs Debian's postgresql-N-postgis-3 first where Debian ships
# it for the server (srm_postgis: 15 here, 17, 18; none for 19).  Results
# (index.md and .csv, run.md) go to bench/results/YYYY-MM-DD-gist-pgN
# unless --out says otherwise.
#
#   bench/run_gist_bench.sh                          # 2M rows, 64MB and 1GB
#   bench/run_gist_bench.sh --rows 10000000          # 10M
#   bench/run_gist_bench.sh --pg 19 --datasets point # against PostgreSQL 19
set -euo pipefail
SRM_ARGV=("$@")
if [ "${1:-}" = --pg ]; then
    export SRMSORT_PG=${2:?--pg needs a version}
    shift 2
fi
. "$(dirname "$0")/../test/lib.sh"

srm_packages
# PostGIS where Debian ships it for this server, as for the tests
srm_postgis
srm_bench_cluster 8GB
srm_bench_outdir "gist-pg$SRM_PG_MAJOR" "$@"
srm_bench_py index_bench.py --datasets point,postgis_point,postgis_poly \
    --systems native_serial,srm_serial,srm --rows 2000000 --mwm 64MB,1GB \
    "$@" --out "$SRM_BENCH_OUT"
