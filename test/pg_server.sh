#!/bin/bash
# test/pg_server.sh — a PostgreSQL server of a given major version for the
# tests and benchmarks, built once from Debian's source package.
#
#   test/pg_server.sh 18            build PostgreSQL 18 unless built, print
#                                   the path of its pg_config
#   test/pg_server.sh --bindir 18   the same, but print its bin directory
#   test/pg_server.sh 15            Debian's installed postgresql-15 (not
#                                   built): print its pg_config
#   test/pg_server.sh source 15     fetch and extract the source of a
#                                   version without building it (15's
#                                   regression suite, say): print the tree
#   test/pg_server.sh rebuild 18    throw the build away and build again
#
# Where: ${SRMSORT_PG_CACHE:-/var/cache/srmsort-pg}/<major>/, outside the
# repository:
#   apt/        the private apt configuration (its lists and cache, tens
#               of MB, are removed after the fetch)
#   dl/         the downloaded source package (.dsc, orig tarball, debian tar)
#   src/        the extracted upstream tree, built in place (its
#               src/test/regress holds the regression suite)
#   inst/       the installation prefix (bin/, lib/postgresql/pgxs/...)
#   build.log   the log of the last fetch and build
#   stamp       written last, holding the version and the build recipe: a
#               tree without it (an interrupted build) is rebuilt from
#               scratch; one with it is reused without touching the network
#   src.stamp   the same for an extracted, unbuilt tree (source)
# Progress goes to stderr, one line a step; on failure the tail of the log.
#
# Sources: Debian's source packages postgresql-<major> from the suite that
# carries that major (bookworm: 15, trixie: 17, sid: 18), fetched with
# apt-get through a private configuration (sources file, lists and cache of
# our own under apt/), so the system's apt state is left untouched.  Build
# dependencies come from bookworm through the system's apt, installed only
# when missing (root only; a non-root user is told what to install).
#
# SRMSORT_PG_JOBS (default 2) is make's -j.  SRMSORT_PG_TARBALL_<major>=FILE
# builds from an upstream tarball (postgresql-X.Y.tar.bz2) already at hand
# instead of fetching Debian's source package.
set -euo pipefail

CACHE=${SRMSORT_PG_CACHE:-/var/cache/srmsort-pg}
JOBS=${SRMSORT_PG_JOBS:-2}
MIRROR=http://deb.debian.org/debian
MIRROR_SECURITY=http://deb.debian.org/debian-security
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

# What the build needs from bookworm.  libipc-run-perl: --enable-tap-tests;
# libicu-dev and pkg-config: --with-icu; bzip2: the orig tarball; dpkg-dev:
# dpkg-source, to read the .dsc.
BUILD_DEPS="gcc make perl bison flex libicu-dev libreadline-dev zlib1g-dev pkg-config libipc-run-perl bzip2 xz-utils dpkg-dev"
CONFIGURE_FLAGS="--with-icu --without-llvm --enable-tap-tests"
# contrib modules the tests use (CREATE EXTENSION, shared_preload_libraries)
CONTRIB="amcheck pageinspect pg_stat_statements auto_explain"
# changing any of these rebuilds the cached trees
RECIPE="configure=$CONFIGURE_FLAGS contrib=$CONTRIB"

say() { printf 'pg_server: %s\n' "$*" >&2; }
die() { printf 'pg_server: error: %s\n' "$*" >&2; exit 1; }

usage() {
    sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

# The Debian suites that carry postgresql-<major>, tried in order (security
# updates live in <suite>-security).
suites_of() {
    case "$1" in
        15) echo "bookworm bookworm-security" ;;
        17) echo "trixie trixie-security" ;;
        18) echo "sid" ;;
        *) die "unsupported major version '$1' (15, 17 or 18)" ;;
    esac
}

# A deb-src line for one suite, with the URI and keyring of the system's
# bookworm entry (security suites live under debian-security).
deb_src_line() {
    local uri=$MIRROR
    case "$1" in *-security) uri=$MIRROR_SECURITY ;; esac
    echo "deb-src [signed-by=$KEYRING] $uri $1 main"
}

# Run a step with its output in the log; on failure print the log's tail.
step() {
    local what=$1
    shift
    say "$what"
    echo "==== $what: $*" >>"$LOG"
    if ! "$@" >>"$LOG" 2>&1; then
        echo "---- tail of $LOG ----" >&2
        tail -n 40 "$LOG" >&2
        die "$what failed (log: $LOG)"
    fi
}

# Install the build dependencies that are missing (root), or name them.
build_deps() {
    local p missing=""
    for p in $BUILD_DEPS; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
            missing="$missing $p"
    done
    [ -z "$missing" ] && return 0
    [ "$(id -u)" -eq 0 ] || die "missing Debian packages:$missing (as root: apt-get install$missing)"
    say "installing build dependencies:$missing"
    export DEBIAN_FRONTEND=noninteractive
    { apt-get install -y -q $missing || { apt-get update -q && apt-get install -y -q $missing; }; } \
        >>"$LOG" 2>&1 || { tail -n 20 "$LOG" >&2; die "could not install$missing"; }
}

# apt-get with the private configuration of $DIR/apt.
apt_private() {
    apt-get -o Dir::Etc::sourcelist="$DIR/apt/sources.list" -o Dir::Etc::sourceparts=- \
        -o Dir::State::Lists="$DIR/apt/lists" -o Dir::Cache="$DIR/apt/cache" "$@"
}

# Fetch Debian's source package postgresql-$MAJOR into $DIR/dl, trying each
# suite of suites_of in turn.  For 15 the version of the installed binary
# package is wanted (its regression suite is compared with that server),
# the newest one when no suite has it.  Sets DSC.
fetch_source() {
    local pkg=postgresql-$MAJOR suite ok="" want="" spec
    if [ "$MAJOR" = 15 ]; then
        want=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || true)
    fi
    rm -rf "$DIR/apt" "$DIR/dl"
    mkdir -p "$DIR/apt/lists/partial" "$DIR/apt/cache/archives/partial" "$DIR/dl"
    for spec in ${want:+"$pkg=$want"} "$pkg"; do
        for suite in $(suites_of "$MAJOR"); do
            deb_src_line "$suite" >"$DIR/apt/sources.list"
            step "apt-get update ($suite, private lists)" apt_private update
            echo "==== apt-get source --download-only $spec ($suite)" >>"$LOG"
            if (cd "$DIR/dl" && apt_private source --download-only "$spec") >>"$LOG" 2>&1; then
                ok=$suite
                break 2
            fi
            say "$spec could not be fetched from $suite"
            rm -f "$DIR/dl"/*
        done
    done
    rm -rf "$DIR/apt/lists" "$DIR/apt/cache"
    if [ -z "$ok" ]; then
        echo "---- tail of $LOG ----" >&2
        tail -n 12 "$LOG" >&2
        # exit 75 (EX_TEMPFAIL): the archive, not the project, is missing
        # something; test/run_tests.sh --pg all reports such a version as
        # not tested instead of failing
        printf 'pg_server: error: %s\n' "Debian's source package $pkg could not be fetched from any of: $(suites_of "$MAJOR")" \
            "(an upstream tarball at hand can stand in: SRMSORT_PG_TARBALL_$MAJOR=/path/postgresql-$MAJOR.N.tar.bz2)" >&2
        exit 75
    fi
    DSC=$(ls "$DIR/dl"/*.dsc)
    say "fetched $(basename "$DSC") from $ok"
    if [ -n "$want" ] && [ "$spec" != "$pkg=$want" ]; then
        say "warning: the installed $pkg is $want, its source could not be had: $(basename "$DSC") instead"
    fi
}

# The upstream tarball of the fetched package and a version string.
# Sets TARBALL and VERSION.
locate_tarball() {
    local var=SRMSORT_PG_TARBALL_$MAJOR
    if [ -n "${!var:-}" ]; then
        TARBALL=$(readlink -f "${!var}")
        [ -f "$TARBALL" ] || die "$var: no such file: ${!var}"
        VERSION="upstream $(basename "$TARBALL")"
        return
    fi
    fetch_source
    VERSION="$(sed -n 's/^Source: //p' "$DSC") $(sed -n 's/^Version: //p' "$DSC")"
    TARBALL=$(ls "$DIR/dl"/*.orig.tar.* | grep -v '\.asc$' | head -n 1)
    [ -f "$TARBALL" ] || die "no orig tarball in $DIR/dl"
}

# Extract the upstream tree into $DIR/src.
#
# Only the orig tarball is extracted; Debian's patches (debian/patches of
# the .debian.tar.xz, kept in dl/) are not applied.  They adapt the tree to
# Debian's packaging: per-version directories under /usr/lib/postgresql/N,
# the default socket directory /var/run/postgresql, pg_config and libpq
# paths, Debian's extension_destdir setting (up to 17).  A server installed
# in a private prefix wants upstream's layout and defaults, and the
# regression suite should be upstream's.  dpkg-source -x on the .dsc in dl/
# gives the patched tree to anyone who wants it.
extract() {
    rm -rf "$DIR/src"
    mkdir -p "$DIR/src"
    step "extracting $(basename "$TARBALL")" tar -xf "$TARBALL" -C "$DIR/src" --strip-components=1
    [ -f "$DIR/src/configure" ] || die "$TARBALL holds no PostgreSQL tree"
    local v
    v=$(sed -n "s/^PACKAGE_VERSION='\(.*\)'/\1/p" "$DIR/src/configure")
    case "$v" in
        "$MAJOR".* | "$MAJOR"beta* | "$MAJOR"rc*) ;;
        *) die "$TARBALL is PostgreSQL $v, not $MAJOR" ;;
    esac
}

# Take the per-version lock (one fetch or build of a major at a time).
lock() {
    mkdir -p "$DIR" 2>/dev/null && [ -w "$DIR" ] ||
        die "cannot write to $DIR (run as root, or set SRMSORT_PG_CACHE to a directory of yours)"
    exec 9>"$DIR.lock"
    flock 9
}

# `source MAJOR`: the extracted tree, fetched unless there.
cmd_source() {
    if [ -f "$DIR/stamp" ] || [ -f "$DIR/src.stamp" ]; then
        echo "$DIR/src"
        return
    fi
    lock
    if [ ! -f "$DIR/stamp" ] && [ ! -f "$DIR/src.stamp" ]; then
        rm -rf "$DIR/src" "$DIR/inst"
        : >"$LOG"
        build_deps_for_source
        locate_tarball
        extract
        chmod -R a+rX "$DIR/src"
        echo "$VERSION" >"$DIR/src.stamp"
        say "PostgreSQL $MAJOR source ($VERSION) in $DIR/src"
    fi
    echo "$DIR/src"
}

build_deps_for_source() {
    local save=$BUILD_DEPS
    BUILD_DEPS="bzip2 xz-utils dpkg-dev"
    build_deps
    BUILD_DEPS=$save
}

# Configure, build and install $DIR/src into $DIR/inst.
build() {
    local t0=$SECONDS
    rm -f "$DIR/stamp" "$DIR/src.stamp"
    rm -rf "$DIR/src" "$DIR/inst"
    : >"$LOG"
    build_deps
    locate_tarball
    extract
    cd "$DIR/src"
    # -O2 is configure's default when CFLAGS is unset; no caller's flags
    unset CFLAGS CPPFLAGS LDFLAGS CC
    step "configure $CONFIGURE_FLAGS" ./configure --prefix="$DIR/inst" $CONFIGURE_FLAGS
    # the core; make -j at the top builds src/ (and config/) only.  Not
    # world-bin: its parallel recursion can race on generated headers.
    step "make -j$JOBS (core)" make -j"$JOBS"
    step "make install (core, pgxs, pg_regress, TAP modules)" make install
    local m
    for m in $CONTRIB; do
        step "make -C contrib/$m install" make -C "contrib/$m" -j"$JOBS" install
    done
    # what the test runner relies on
    local pgxs f
    pgxs=$(dirname "$("$DIR/inst/bin/pg_config" --pgxs)")/..
    for f in "$DIR/inst/bin/initdb" "$DIR/inst/bin/pg_ctl" "$DIR/inst/bin/psql" \
        "$DIR/inst/bin/pgbench" "$pgxs/test/regress/pg_regress" \
        "$pgxs/test/perl/PostgreSQL/Test/Cluster.pm" "$pgxs/test/perl/PostgreSQL/Test/Utils.pm"; do
        [ -e "$f" ] || die "the installation lacks $f (log: $LOG)"
    done
    for m in $CONTRIB; do
        [ -f "$("$DIR/inst/bin/pg_config" --pkglibdir)/$m.so" ] || die "contrib/$m.so was not installed"
    done
    # the cluster owner (not root) reads the tree and the regression suite
    chmod -R a+rX "$DIR/src" "$DIR/inst"
    printf '%s\n%s\n' "$VERSION" "$RECIPE" >"$DIR/stamp.new"
    mv "$DIR/stamp.new" "$DIR/stamp"
    say "PostgreSQL $MAJOR ($VERSION) built in $((SECONDS - t0)) s: $DIR/inst"
}

# Whether $DIR holds a finished build of the current recipe.
built() {
    [ -f "$DIR/stamp" ] && [ "$(sed -n 2p "$DIR/stamp")" = "$RECIPE" ] &&
        [ -x "$DIR/inst/bin/pg_config" ]
}

# `MAJOR`: a finished build (built unless there); print pg_config or bindir.
cmd_build() {
    local pgc
    if [ "$MAJOR" = 15 ]; then
        # Debian's binary package, installed by the test runner
        pgc=/usr/lib/postgresql/15/bin/pg_config
        [ -x "$pgc" ] && [ -x /usr/lib/postgresql/15/bin/postgres ] ||
            die "PostgreSQL 15 is not installed (as root: apt-get install postgresql-15 postgresql-server-dev-15)"
    else
        if ! built; then
            lock
            built || build
        fi
        pgc=$DIR/inst/bin/pg_config
    fi
    if [ "$PRINT" = bindir ]; then
        "$pgc" --bindir
    else
        echo "$pgc"
    fi
}

CMD=build
PRINT=pg_config
MAJOR=""
while [ $# -gt 0 ]; do
    case "$1" in
        source | rebuild | build) CMD=$1 ;;
        --bindir) PRINT=bindir ;;
        --pg-config) PRINT=pg_config ;;
        -h | --help) usage ;;
        [0-9]*) MAJOR=$1 ;;
        *) usage ;;
    esac
    shift
done
[ -n "$MAJOR" ] || usage
suites_of "$MAJOR" >/dev/null
DIR=$CACHE/$MAJOR
LOG=$DIR/build.log

case "$CMD" in
    source) cmd_source ;;
    rebuild)
        [ "$MAJOR" != 15 ] || die "15 is Debian's binary package: nothing to rebuild"
        lock
        build
        cmd_build
        ;;
    build) cmd_build ;;
esac
