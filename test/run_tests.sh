#!/bin/bash
# test/run_tests.sh — the one command that tests srmsort.
#
# On a fresh Debian 12 machine, run as root: installs the missing Debian
# packages (or, for 17, 18 and 19, makes the Debian root that carries the
# server and re-runs itself there: test/pg_server.sh), builds with warnings
# as errors, stages an install (and installs it system-wide), builds Citus
# into the server from the source beside the repository unless built
# (test/citus/build_citus.sh), starts a throwaway cluster owned by a
# non-root user with srmsort preloaded and four tablespaces srm_d0..srm_d3
# in four temporary directories, runs every pg_regress test (sql/*.sql),
# the unit tests of the pure parts (test/unit), every TAP test
# (test/t/*.pl; one that plans skip_all counts as skipped, with its
# reason; PostGIS is installed for 180_postgis where Debian ships it for
# the server, and that test skips where it does not: 19), the Citus check (test/citus/run_citus.sh), the house
# rule of src/ (test/check_layers.sh), the links between the docs
# (docs/check_links.py) and, before all of them, the Debian package
# (test/packages.sh: built, installed alone into a bare root, the
# regression suite against it), prints diffs and log tails on failure,
# removes the cluster and ends with "N passed, N failed, N skipped".  The
# Citus check is skipped only where no Citus release supports the server
# (19), or where there is no Citus source and SRMSORT_REQUIRE_CITUS is
# unset.  Also runs as a non-root user who has the packages (15 only: the
# roots take root; the package test is then skipped).
#
# Options: --pg N           PostgreSQL major version: 15 (default; this
#                           machine's Debian package), 17, 18 or 19
#                           (Debian's packages in a Debian root)
#          --pg all         every version in turn (SRMSORT_PG_VERSIONS,
#                           default "15 17 18 19"), each one's output
#                           prefixed with [pgN], ending with the summed
#                           "N passed, N failed, N skipped"; a version
#                           that could not be provided is a failure
#          --only PATTERN   run only tests whose name matches PATTERN
#          --long           long variants of tests (SRMSORT_LONG=1)
#          --keep           keep the temporary directory (SRMSORT_KEEP=1)
#          --load           run beside load, as CI's busy machine: a
#                           CPU-bound loop per core (nproc) and a writer
#                           that writes, syncs and deletes a 256MB file on
#                           the test disks' filesystem, over and over,
#                           from before the cluster starts until the
#                           runner exits (on failure and interrupt too)
set -euo pipefail
SRM_ARGV=("$@")

ONLY=""
LOAD=""
PG=${SRMSORT_PG:-15}
PASS=()
while [ $# -gt 0 ]; do
    case "$1" in
        --pg) PG=$2; shift 2 ;;
        --only) ONLY=$2; PASS+=(--only "$2"); shift 2 ;;
        --long) export SRMSORT_LONG=1; PASS+=(--long); shift ;;
        --keep) export SRMSORT_KEEP=1; PASS+=(--keep); shift ;;
        --load) LOAD=1; PASS+=(--load); shift ;;
        *) echo "usage: $0 [--pg 15|17|18|19|all] [--only PATTERN] [--long] [--keep] [--load]" >&2; exit 2 ;;
    esac
done

# ---- --pg all: this script once per version, the counts summed ----
if [ "$PG" = all ]; then
    total_p=0
    total_f=0
    total_s=0
    summary=""
    # On a fresh machine the Debian roots of the later versions (with
    # PostGIS, and their package-install roots) take minutes, mostly of
    # network and disk:
    # they are made here, beside the first version's suite.  Each root is
    # made under a lock (pg_server.sh), so a version's own run waits for
    # one still being made, and makes it itself if this failed; its output
    # goes to the version's log only then.
    prefetch=""
    if [ "$(id -u)" -eq 0 ]; then
        # debootstrap first, here: the host's apt must not run from two
        # places at once (the first version installs its packages)
        if ! command -v debootstrap >/dev/null; then
            { DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap ||
                { DEBIAN_FRONTEND=noninteractive apt-get update -q &&
                    DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap; }; } >/dev/null 2>&1 || true
        fi
    fi
    # (without debootstrap each version's run reports what it lacks)
    if [ "$(id -u)" -eq 0 ] && command -v debootstrap >/dev/null; then
        (
            first=1
            for v in ${SRMSORT_PG_VERSIONS:-15 17 18 19}; do
                if [ -n "$first" ]; then
                    first=""
                    continue
                fi
                case "$v" in 15) continue ;; esac
                "$(dirname "$0")/pg_server.sh" root "$v" || true
                # what srm_postgis would install there (none for 19)
                "$(dirname "$0")/pg_server.sh" run "$v" -- env DEBIAN_FRONTEND=noninteractive \
                    apt-get -o DPkg::Lock::Timeout=900 install -y -q --no-install-recommends \
                    "postgresql-$v-postgis-3" || true
                "$(dirname "$0")/pg_server.sh" pkgroot "$v" || true
            done
        ) >/dev/null 2>&1 &
        prefetch=$!
        trap 'kill "$prefetch" 2>/dev/null; exit 130' INT
        trap 'kill "$prefetch" 2>/dev/null; exit 143' TERM
    fi
    for v in ${SRMSORT_PG_VERSIONS:-15 17 18 19}; do
        echo "======== PostgreSQL $v ========"
        log=$(mktemp)
        set +e
        "$0" --pg "$v" "${PASS[@]}" 2>&1 | tee "$log" | sed -u "s/^/[pg$v] /"
        rc=${PIPESTATUS[0]}
        set -e
        line=$(grep -E '^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' "$log" | tail -n 1 || true)
        rm -f "$log"
        p=0
        f=0
        sk=0
        if [ -n "$line" ]; then
            p=${line%% passed*}
            f=${line#*passed, }
            f=${f%% failed*}
            case "$line" in *skipped) sk=${line##*failed, }; sk=${sk%% skipped} ;; esac
        fi
        note=""
        if [ "$rc" -eq 75 ] && [ -z "$line" ]; then
            # the Debian archive did not serve the server (pg_server.sh
            # printed the URLs): the environment failed, not the project
            f=$((f + 1))
            note=" (NOT PROVIDED: the Debian archive answered 404, see above; an environment failure)"
        elif [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
            # stopped before or after the tests (packages, server, build):
            # one failure, so that the sum cannot read as a success
            f=$((f + 1))
            note=" (exit $rc before the tests ended)"
        fi
        total_p=$((total_p + p))
        total_f=$((total_f + f))
        total_s=$((total_s + sk))
        summary="$summary
PostgreSQL $v: $p passed, $f failed, $sk skipped$note"
        echo "======== PostgreSQL $v: $p passed, $f failed, $sk skipped$note ========"
    done
    if [ -n "$prefetch" ]; then
        wait "$prefetch" 2>/dev/null || true
    fi
    echo "======== summary ========${summary}"
    echo "$total_p passed, $total_f failed, $total_s skipped"
    [ "$total_f" -eq 0 ]
    exit
fi
export SRMSORT_PG=$PG

# ---- the Debian package (test/packages.sh): built, installed into a bare
# root, the regression suite against it; run from this machine before the
# run enters a Debian root, its result carried in SRM_PKG_RESULT ----
if [ -z "${SRMSORT_IN_ROOT:-}" ] && [ -z "${SRM_PKG_RESULT:-}" ] &&
    { [ -z "$ONLY" ] || [[ package == *$ONLY* ]]; }; then
    if [ "$(id -u)" -ne 0 ]; then
        export SRM_PKG_RESULT="skip:the package test takes root"
    elif "$(dirname "$0")/packages.sh" --pg "$PG" $([ -n "${SRMSORT_LONG:-}" ] || echo --quick); then
        export SRM_PKG_RESULT=pass
    else
        export SRM_PKG_RESULT=fail
    fi
fi

. "$(dirname "$0")/lib.sh"

srm_packages
# PostGIS, where Debian ships it for this server, for the test that needs it
if [ -z "$ONLY" ] || [[ 180_postgis == *$ONLY* ]]; then
    srm_postgis
fi
srm_setup_tmp
if [ -n "$LOAD" ]; then
    srm_load_start
fi
srm_build
srm_cluster_start

passed=0
failed=0
skipped=0
failures=""
skips=""
case "${SRM_PKG_RESULT:-}" in
    pass) passed=$((passed + 1)) ;;
    fail) failed=$((failed + 1)); failures="$failures package" ;;
    skip:*) skipped=$((skipped + 1)); skips="$skips package (${SRM_PKG_RESULT#skip:})" ;;
esac

# ---- the house rule of src/ (src/README.md), and the docs' links ----
if [ -z "$ONLY" ] || [[ layers == *$ONLY* ]]; then
    srm_log "layers: test/check_layers.sh"
    if PG_CONFIG=$SRM_PG_CONFIG "$SRM_REPO/test/check_layers.sh" "$SRM_REPO"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        failures="$failures layers"
    fi
fi
if [ -z "$ONLY" ] || [[ links == *$ONLY* ]]; then
    srm_log "links: docs/check_links.py"
    if python3 "$SRM_REPO/docs/check_links.py"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        failures="$failures links"
    fi
fi

# ---- pg_regress: every sql/*.sql, in name order, one test each ----
tests=""
for f in "$SRM_REPO"/sql/*.sql; do
    t=$(basename "$f" .sql)
    if [ -z "$ONLY" ] || [[ "$t" == *$ONLY* ]] || [ "$t" = 00_install ] || [ "$t" = 05_helpers ]; then
        tests="$tests $t"
    fi
done
if [ -n "$tests" ]; then
    srm_log "pg_regress:$tests"
    mkdir -p "$SRM_TMP/regress"
    chown "$SRM_USER" "$SRM_TMP/regress"
    out=$SRM_TMP/regress/stdout
    srm_psql -qc "DROP DATABASE IF EXISTS contrib_regression" \
        -c "CREATE DATABASE contrib_regression TEMPLATE template0" >/dev/null
    set +e
    srm_as_user "$SRM_PG_REGRESS" \
        --use-existing --host="$SRM_TMP/sock" --port="$SRM_PORT" --user=postgres \
        --inputdir="$SRM_REPO" --outputdir="$SRM_TMP/regress" \
        --dbname=contrib_regression $tests >"$out" 2>&1
    set -e
    cat "$out"
    for t in $tests; do
        # 15: "test NAME ... ok"; 17 and later: TAP-style "ok N - NAME"
        if grep -qE "(^| )$t .*\.\.\. (ok|ignored)|^ok +[0-9]+ +(# SKIP[^-]*)?- +$t( |$)" "$out"; then
            passed=$((passed + 1))
        else
            failed=$((failed + 1))
            failures="$failures $t"
        fi
    done
    if [ -f "$SRM_TMP/regress/regression.diffs" ]; then
        echo "---- regression.diffs ----"
        cat "$SRM_TMP/regress/regression.diffs"
    fi
fi

# ---- unit tests of the pure parts: test/unit's module, one pg_regress test ----
if [ -z "$ONLY" ] || [[ unit == *$ONLY* ]]; then
    srm_build_unit
    srm_log "unit: test/unit (merge planner, record format, radix sort)"
    mkdir -p "$SRM_TMP/unit"
    chown "$SRM_USER" "$SRM_TMP/unit"
    out=$SRM_TMP/unit/stdout
    srm_psql -qc "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS srmsort_unit" \
        -c "CREATE DATABASE srmsort_unit TEMPLATE template0" >/dev/null
    set +e
    srm_as_user "$SRM_PG_REGRESS" \
        --use-existing --host="$SRM_TMP/sock" --port="$SRM_PORT" --user=postgres \
        --inputdir="$SRM_UNIT_DIR" --outputdir="$SRM_TMP/unit" \
        --dbname=srmsort_unit unit >"$out" 2>&1
    set -e
    cat "$out"
    if grep -qE "(^| )unit .*\.\.\. ok|^ok +[0-9]+ +- +unit( |$)" "$out"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        failures="$failures unit"
        if [ -f "$SRM_TMP/unit/regression.diffs" ]; then
            echo "---- regression.diffs ----"
            cat "$SRM_TMP/unit/regression.diffs"
        fi
    fi
fi

# ---- a tiny filesystem for the disk-full test (root only) ----
if [ "$(id -u)" -eq 0 ]; then
    mkdir -p "$SRM_TMP/smallfs"
    if mount -t tmpfs -o size=4m,mode=0700 tmpfs "$SRM_TMP/smallfs" 2>/dev/null; then
        chown "$SRM_USER" "$SRM_TMP/smallfs"
        export SRMSORT_SMALLFS=$SRM_TMP/smallfs
        SRM_MOUNTS="$SRM_TMP/smallfs"
    fi
fi

# ---- TAP: every test/t/*.pl ----
export PERL5LIB="$SRM_TAP_PERL:$SRM_REPO/test/t${PERL5LIB:+:$PERL5LIB}"
export SRMSORT_INSTALL=$SRM_INST
# the library to preload and the postgresql.conf lines that find the staged
# install (test/t/SrmTest.pm)
export SRMSORT_SO=$SRM_SO
export SRMSORT_EXT_CONF=$SRM_EXT_CONF
export PG_REGRESS=$SRM_PG_REGRESS
export PATH="$SRM_BIN:$PATH"
for f in "$SRM_REPO"/test/t/*.pl; do
    [ -f "$f" ] || continue
    t=$(basename "$f" .pl)
    if [ -n "$ONLY" ] && [[ "$t" != *$ONLY* ]]; then
        continue
    fi
    srm_log "TAP: $t"
    tdir=$SRM_TMP/tap/$t
    mkdir -p "$tdir"
    chown -R "$SRM_USER" "$SRM_TMP/tap"
    set +e
    # TESTDIR: where 15's PostgreSQL::Test::Utils puts tmp_check;
    # TESTDATADIR and TESTLOGDIR: the same for 16 and later (else relative
    # paths, which CREATE TABLESPACE refuses)
    (cd "$tdir" && srm_as_user env TESTDIR="$tdir" TESTDATADIR="$tdir/tmp_check" \
        TESTLOGDIR="$tdir/tmp_check/log" PERL5LIB="$PERL5LIB" \
        SRMSORT_INSTALL="$SRMSORT_INSTALL" SRMSORT_LONG="${SRMSORT_LONG:-}" \
        SRMSORT_SO="$SRMSORT_SO" SRMSORT_EXT_CONF="$SRMSORT_EXT_CONF" \
        SRMSORT_SMALLFS="${SRMSORT_SMALLFS:-}" SRMSORT_POSTGIS="${SRMSORT_POSTGIS:-}" \
        PG_REGRESS="$PG_REGRESS" PATH="$PATH" prove -v "$f") >"$tdir/prove.out" 2>&1
    rc=$?
    set -e
    tail -n 40 "$tdir/prove.out"
    if [ $rc -ne 0 ]; then
        # the failed assertions with their diagnostics, which the tail
        # above may have cut off
        echo "---- failed assertions of $(basename "$f") ----"
        grep -n -A 25 '^not ok' "$tdir/prove.out" | head -n 200 || true
        for l in "$tdir"/tmp_check/log/*.log; do
            [ -f "$l" ] || continue
            echo "---- errors in $l ----"
            grep -n -E 'ERROR|PANIC|FATAL' "$l" | head -n 30 || true
        done
    fi
    # plan skip_all (prove: "NAME.pl .. skipped: REASON"): what the test
    # needs is not here
    skip_re='\.pl \.\. skipped: |^1\.\.0 # SKIP'
    if [ $rc -eq 0 ] && grep -qE "$skip_re" "$tdir/prove.out"; then
        reason=$(grep -m 1 -E "$skip_re" "$tdir/prove.out" | sed -E 's/.*\.pl \.\. skipped: *//; s/^1\.\.0 # SKIP *//')
        skipped=$((skipped + 1))
        skips="$skips $t ($reason)"
    elif [ $rc -eq 0 ]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        failures="$failures $t"
        for l in "$tdir"/tmp_check/log/*; do
            [ -f "$l" ] || continue
            echo "---- tail of $l ----"
            tail -n 50 "$l"
        done
    fi
done

# ---- Citus: a coordinator and two workers, when the server has Citus ----
if [ -z "$ONLY" ] || [[ citus == *$ONLY* ]]; then
    srm_log "Citus: test/citus/build_citus.sh, test/citus/run_citus.sh"
    set +e
    rc=0
    if [ "$(id -u)" -eq 0 ]; then
        "$SRM_REPO/test/citus/build_citus.sh" "$SRM_PG_CONFIG" >"$SRM_TMP/citus.out" 2>&1
        rc=$?
    fi
    if [ $rc -eq 0 ]; then
        SRMSORT_SO=$SRM_SO SRMSORT_EXT_CONF=$SRM_EXT_CONF \
            "$SRM_REPO/test/citus/run_citus.sh" --pg "$PG" --rows 2000000 >>"$SRM_TMP/citus.out" 2>&1
        rc=$?
    fi
    set -e
    if [ $rc -eq 0 ]; then
        grep -E '^(ok|not ok|citus:)' "$SRM_TMP/citus.out"
        passed=$((passed + 1))
    elif [ $rc -eq 77 ]; then
        reason=$(grep -m 1 '^SKIP: ' "$SRM_TMP/citus.out" | sed 's/^SKIP: //')
        echo "citus: skipped: $reason"
        skipped=$((skipped + 1))
        skips="$skips citus ($reason)"
    else
        cat "$SRM_TMP/citus.out"
        failed=$((failed + 1))
        failures="$failures citus"
    fi
fi

if [ -n "$skips" ]; then
    echo "---- skipped:$skips ----"
fi
if [ $failed -gt 0 ]; then
    echo "---- failed:$failures ----"
    echo "---- tail of the server log ----"
    tail -n 50 "$SRM_TMP/server.log" || true
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
