#!/bin/bash
# test/packages.sh — srmsort's Debian package of one PostgreSQL major, built
# from this repository and tested as a DBA installs it.
#
#   test/packages.sh --pg 15|17|18|19 [--quick] [--out DIR] [--keep]
#
# 1. build: dpkg-buildpackage -b (debian/: pg_buildext build and install)
#    where the server's headers are: this Debian 12 machine for 15, the
#    Debian root of the major for 17, 18 and 19 (test/pg_server.sh), with
#    debian/control made for that one major (pg_buildext updatecontrol);
#    the package tools (debhelper, postgresql-server-dev-all, lintian) are
#    installed there when missing.  lintian then checks the packages.
# 2. install: a throwaway overlay of the package-install root of the
#    major's Debian suite (test/pg_server.sh pkgroot: debootstrap minbase,
#    no server, no compiler, no make) installs the package alone with
#    "apt-get install ./postgresql-N-srmsort_*.deb", which brings the
#    server; the root is checked to hold no compiler and no make.
# 3. test: debian/tests/installed, the regression suite (sql/) run by the
#    client package's pg_regress against a pg_virtualenv cluster that
#    preloads srmsort from the package.  --quick runs the tests of QUICK
#    only (what test/run_tests.sh runs unless --long): the extension and
#    its settings, differential ORDER BY over every type on four disks,
#    the run format, builtin collations, index builds checked with amcheck
#    and run as the owner, the sorter's states.
#
# The packages are copied to DIR (default: kept only with --keep, in the
# temporary directory).  Prints "ok N - ..." / "not ok N - ..." per step
# and exits non-zero when one failed.  Runs as root.  The overlay's apt
# downloads are kept in <cache>/pkgroots/<suite>/archives, so that later
# runs install without the network.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${SRMSORT_PG_CACHE:-/var/cache/srmsort-pg}
PG=""
OUT=""
KEEP=${SRMSORT_KEEP:-}
STAGE=all
QUICK_TESTS="00_install 05_helpers 10_types 21_format 52_builtin 53_index_parallel_security 55_security 57_sorter_states"
REGRESS=""
while [ $# -gt 0 ]; do
    case "$1" in
        --pg) PG=$2; shift 2 ;;
        --out) OUT=$2; shift 2 ;;
        --keep) KEEP=1; shift ;;
        --quick) REGRESS=$QUICK_TESTS; shift ;;
        --build-in) STAGE=build; BUILD_DIR=$2; shift 2 ;;   # internal: step 1 in the root
        *) echo "usage: $0 --pg 15|17|18|19 [--quick] [--out DIR] [--keep]" >&2; exit 2 ;;
    esac
done
case "$PG" in 15 | 17 | 18 | 19) ;; *) echo "usage: $0 --pg 15|17|18|19 [--quick] [--out DIR] [--keep]" >&2; exit 2 ;; esac
[ "$(id -u)" -eq 0 ] || { echo "error: $0 runs as root (it installs packages and enters Debian roots)" >&2; exit 1; }

say() { printf '== %s\n' "$*"; }

# ---- step 1, where the server's headers are ----
build_here() {
    local dir=$1 src=$1/srmsort-src missing
    # test/lib.sh's package helpers, for the package tools
    SRMSORT_PG=$PG . "$REPO/test/lib.sh"
    SRM_PACKAGES="build-essential debhelper postgresql-server-dev-all lintian dpkg-dev"
    missing=$(srm_pkg_missing)
    if [ -n "$missing" ]; then
        say "installing the package tools:$missing"
        # shellcheck disable=SC2086
        srm_apt_try --no-install-recommends $missing ||
            { echo "error: could not install$missing" >&2; exit 1; }
    fi
    rm -rf "$src"
    mkdir -p "$src"
    # the repository's files (as a source package would hold them),
    # without build products and results
    (cd "$REPO" && tar cf - --exclude=.git --exclude='*.o' --exclude='*.so' --exclude='*.bc' \
        --exclude=./bench --exclude='./build-*' --exclude=./results --exclude=./tmp_check \
        --exclude=./log --exclude='./srmsort-*.zip' .) | (cd "$src" && tar xf -)
    cd "$src"
    PG_SUPPORTED_VERSIONS=$PG pg_buildext updatecontrol
    grep -q "^Package: postgresql-$PG-srmsort$" debian/control ||
        { echo "error: debian/pgversions does not list $PG" >&2; exit 1; }
    say "dpkg-buildpackage -b (postgresql-$PG-srmsort)"
    if ! PG_SUPPORTED_VERSIONS=$PG DEB_BUILD_OPTIONS="parallel=$(nproc)" \
        dpkg-buildpackage -b -us -uc >"$dir/build.log" 2>&1; then
        tail -n 40 "$dir/build.log"
        echo "error: dpkg-buildpackage failed (log: $dir/build.log)" >&2
        exit 1
    fi
    cd "$dir"
    rm -rf "$src"
    say "lintian $(lintian --version | sed 's/^lintian v*//')"
    lintian --display-info --pedantic ./*.changes >"$dir/lintian.out" 2>&1 || true
    cat "$dir/lintian.out"
}

if [ "$STAGE" = build ]; then
    build_here "$BUILD_DIR"
    exit 0
fi

# ---- the steps, from this machine ----
n=0
bad=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); bad=$((bad + 1)); echo "not ok $n - $*"; }

case "$PG" in
    15) suite=bookworm ;;
    17) suite=trixie ;;
    *) suite=sid ;;
esac

# step 1: in a directory both sides see (the root's /var/tmp for 17-19),
# one per run: two runs at once (two clones' suites) must not share it
inner=/var/tmp/srmsort-pkg-$PG.$$
if [ "$PG" = 15 ]; then
    host_dir=$inner
    rm -rf "$host_dir"
    mkdir -p "$host_dir"
    build=("$0" --pg "$PG" --build-in "$inner")
else
    rootfs=$("$REPO/test/pg_server.sh" root "$PG")
    host_dir=$rootfs$inner
    rm -rf "$host_dir"
    mkdir -p "$host_dir"
    build=("$REPO/test/pg_server.sh" run "$PG" -- "$REPO/test/packages.sh" --pg "$PG" --build-in "$inner")
fi
cleanup() {
    if [ -z "$KEEP" ]; then rm -rf "$host_dir"; fi
    if [ -n "${ov:-}" ]; then rm -rf "$ov"; fi
}
trap cleanup EXIT

t0=$SECONDS
if "${build[@]}"; then
    debs=$(ls "$host_dir"/postgresql-"$PG"-srmsort_*.deb 2>/dev/null | grep -v dbgsym || true)
    if [ -n "$debs" ]; then
        ok "postgresql-$PG-srmsort built ($((SECONDS - t0)) s): $(basename "$debs")"
        dpkg-deb -c "$debs" | awk '{ print "   " $1, $6 }'
    else
        notok "postgresql-$PG-srmsort built: no .deb in $host_dir"
    fi
else
    notok "postgresql-$PG-srmsort built"
    debs=""
fi
if [ -n "$debs" ]; then
    # lintian's errors fail; its warnings and notes are printed above and
    # explained in docs/packaging.md
    if grep -q '^E: ' "$host_dir/lintian.out"; then
        notok "lintian: errors"
    else
        ok "lintian: no errors ($(grep -c '^[WIP]: ' "$host_dir/lintian.out" || true) warnings, notes and pedantic tags)"
    fi
fi
if [ -n "$OUT" ] && [ -n "$debs" ]; then
    mkdir -p "$OUT"
    cp "$host_dir"/*.deb "$host_dir"/lintian.out "$OUT"/
fi

# steps 2 and 3: a throwaway overlay of the package-install root
if [ -n "$debs" ]; then
    t0=$SECONDS
    base=$("$REPO/test/pg_server.sh" pkgroot "$PG")
    archives=$CACHE/pkgroots/$suite/archives
    mkdir -p "$archives/partial"
    ov=$(mktemp -d /var/tmp/srmsort-pkgroot.XXXXXX)
    mkdir -p "$ov/upper" "$ov/work" "$ov/fs" "$ov/debs"
    cp "$host_dir"/*.deb "$ov/debs/"
    # 19 is in experimental only: its server packages are named with their
    # suite, as the test root names them
    extra=""
    [ "$PG" != 19 ] || extra="postgresql-19/experimental postgresql-client-19/experimental libpq5/experimental"
    port=$(for p in $(shuf -i 20000-40000 -n 50); do
        ss -Hltn "sport = :$p" 2>/dev/null | grep -q . || { echo "$p"; break; }; done)
    set +e
    unshare --mount --propagation private -- /bin/bash -c '
        set -e
        base=$1 ov=$2 archives=$3 repo=$4 pg=$5 extra=$6 port=$7 regress=$8
        fs=$ov/fs
        mount -t overlay overlay -o "lowerdir=$base,upperdir=$ov/upper,workdir=$ov/work" "$fs"
        mount -t proc proc "$fs/proc"
        mount --rbind /dev "$fs/dev"
        mount --rbind /sys "$fs/sys"
        mount --bind "$archives" "$fs/var/cache/apt/archives"
        mkdir -p "$fs/srmsort-src" "$fs/debs"
        mount --bind -o ro "$repo" "$fs/srmsort-src"
        mount --bind "$ov/debs" "$fs/debs"
        cp /etc/resolv.conf "$fs/etc/resolv.conf" 2>/dev/null || true
        inroot() { chroot "$fs" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
            LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"; }
        echo "== apt-get install ./$(cd "$ov/debs" && ls postgresql-*-srmsort_*.deb) $extra"
        install() { inroot sh -c "cd /debs && apt-get install -y -q --no-install-recommends ./postgresql-$pg-srmsort_*.deb $extra"; }
        if ! install >"$ov/apt.log" 2>&1; then
            # lists older than what the mirror serves: once more, updated
            inroot apt-get -q update >>"$ov/apt.log" 2>&1 || true
            install >>"$ov/apt.log" 2>&1 || { tail -n 30 "$ov/apt.log"; exit 3; }
        fi
        echo "   $(grep -c "^Setting up " "$ov/apt.log") packages set up, among them:"
        grep -E "^Setting up (postgresql|liburing|libicu)" "$ov/apt.log" | sed "s/^Setting up /   /"
        for t in gcc cc clang make; do
            if inroot sh -c "command -v $t" >/dev/null; then
                echo "the package-install root has $t"
                exit 4
            fi
        done
        echo "== debian/tests/installed (PostgreSQL $pg, port $port): ${regress:-every test of sql/}"
        mkdir -p "$fs/tmp/out"
        inroot sh -c "cd /srmsort-src && AUTOPKGTEST_TMP=/tmp/out PGPORT=$port SRMSORT_REGRESS=\"$regress\" debian/tests/installed" \
            >"$ov/installed.log" 2>&1 || { cat "$ov/installed.log"; exit 5; }
        cat "$ov/installed.log"
    ' srm-pkgroot "$base" "$ov" "$archives" "$REPO" "$PG" "$extra" "$port" "$REGRESS"
    rc=$?
    set -e
    case $rc in
        0)
            ok "postgresql-$PG-srmsort installed alone into a bare $suite root"
            ok "the regression suite${REGRESS:+ (--quick)} against the installed package ($((SECONDS - t0)) s)"
            ;;
        3 | 4)
            notok "postgresql-$PG-srmsort installed alone into a bare $suite root"
            notok "the regression suite against the installed package: not run"
            ;;
        *)
            ok "postgresql-$PG-srmsort installed alone into a bare $suite root"
            notok "the regression suite against the installed package"
            ;;
    esac
fi
echo "1..$n"
[ "$bad" -eq 0 ]
