# srmsort — PGXS build.
#
#   make [PG_CONFIG=/path/to/pg_config] [WERROR=1]
#   make install
#   make installcheck        (the pg_regress tests against a prepared server: see REGRESS)
#   test/run_tests.sh        (everything: packages, build, throwaway cluster, tests)

MODULE_big = srmsort
OBJS = \
	src/base/settings.o \
	src/base/shmem.o \
	src/io/aio.o \
	src/io/disks.o \
	src/io/diskspeed.o \
	src/io/iomode.o \
	src/io/placement.o \
	src/io/relwrite.o \
	src/io/workfile.o \
	src/keys/icukey.o \
	src/keys/keys.o \
	src/keys/numkey.o \
	src/keys/radix.o \
	src/keys/record.o \
	src/runs/runexport.o \
	src/runs/runmeta.o \
	src/runs/runs.o \
	src/runs/runwriter.o \
	src/runs/scan.o \
	src/runs/tape.o \
	src/runs/writering.o \
	src/merge/dsmread.o \
	src/merge/forecast.o \
	src/merge/merge.o \
	src/merge/mergeplan.o \
	src/merge/srmread.o \
	src/engine/pstream.o \
	src/engine/sorter.o \
	src/engine/sortread.o \
	src/engine/sortmerge.o \
	src/engine/sortruns.o \
	src/engine/sortstats.o \
	src/query/mapslot.o \
	src/query/node.o \
	src/query/plan.o \
	src/query/psort.o \
	src/query/workerstats.o \
	src/builds/armed.o \
	src/builds/btload.o \
	src/builds/build.o \
	src/builds/citus.o \
	src/builds/cluster.o \
	src/builds/clusterscan.o \
	src/builds/gistbuild.o \
	src/builds/gistload.o \
	src/builds/gistsplit.o \
	src/builds/pbuild.o \
	src/builds/pcluster.o \
	src/builds/utility.o \
	src/srmsort.o

# developers may link extra (uncommitted) objects: make EXTRA_OBJS=...
OBJS += $(EXTRA_OBJS)

EXTENSION = srmsort
# every SQL version's script and every update script (srmsort--A--B.sql)
DATA = $(notdir $(wildcard $(srcdir)/srmsort--*.sql))
PGFILEDESC = "srmsort - parallel-disk SRM mergesort for PostgreSQL"

PG_CONFIG ?= pg_config

# --- say which Debian package is missing, before PGXS fails obscurely ---
ifeq ($(shell command -v $(PG_CONFIG) 2>/dev/null),)
$(error $(PG_CONFIG) not found: install your server's development package (Debian: postgresql-server-dev-NN) or set PG_CONFIG=/path/to/pg_config)
endif
# (only for goals that compile: "make installcheck" against an installed
# package, as its autopkgtest runs it, and "make dist" need neither)
SRM_NOBUILD_GOALS = installcheck prove_installcheck dist clean distclean
ifneq ($(MAKECMDGOALS),)
ifeq ($(filter-out $(SRM_NOBUILD_GOALS),$(MAKECMDGOALS)),)
SRM_NOBUILD = yes
endif
endif
ifndef SRM_NOBUILD
PG_INCLUDEDIR_SERVER := $(shell $(PG_CONFIG) --includedir-server)
ifeq ($(wildcard $(PG_INCLUDEDIR_SERVER)/postgres.h),)
$(error PostgreSQL server headers not found in $(PG_INCLUDEDIR_SERVER): install the Debian package postgresql-server-dev-$(shell $(PG_CONFIG) --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/'))
endif
ifeq ($(shell printf '\043include <liburing.h>\nint main(void){return 0;}\n' | $(CC) -x c -E - >/dev/null 2>&1 && echo ok),)
$(error liburing.h not found: install the Debian package liburing-dev)
endif
endif

SHLIB_LINK += -luring
PG_CPPFLAGS += -I$(srcdir)/src
PG_CFLAGS += -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare \
	-Wno-missing-field-initializers -Wno-clobbered
ifeq ($(WERROR),1)
PG_CFLAGS += -Werror
endif

# The pg_regress tests: every sql/*.sql, in name order (00_install first).
# "make installcheck" runs them against the running server that PGHOST,
# PGPORT and PGUSER name (a superuser) with srmsort installed ("make
# install") and in its shared_preload_libraries (a restart); 00_install
# makes the tablespaces srm_d0..srm_d3 in place where they are missing.
# The tests run in a fresh database contrib_regression.
# test/run_tests.sh does all of that itself on a throwaway cluster, with the
# tablespaces in four directories, and calls pg_regress with the same list.
REGRESS = $(sort $(notdir $(basename $(wildcard $(srcdir)/sql/*.sql))))


PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# ICU text keys (src/icukey.c) call ICU directly: link the ICU libraries
# the server was built with (ICU_LIBS and ICU_CFLAGS from PGXS's
# Makefile.global; both empty for a server without ICU, where icukey.c
# compiles to stubs).
PG_CPPFLAGS += $(ICU_CFLAGS)
SHLIB_LINK += $(ICU_LIBS)

# Out-of-tree builds (pg_buildext builds each major in build-<major> with
# VPATH pointing here): the objects' directories are made up front.
ifdef VPATH
$(shell mkdir -p $(sort $(dir $(OBJS))))
endif

# PGXS does not track header dependencies; every object depends on every
# header of ours, so a changed struct never leaves stale objects behind.
$(OBJS): $(wildcard $(srcdir)/src/*/*.h $(srcdir)/src/*.h)

# The TAP tests (test/t/*.pl): "make prove_installcheck" after "make
# install" runs them against the installed server's binaries (they start
# clusters of their own); PostgreSQL's TAP modules come from PGXS, whose
# Makefile.global sets PROVE_FLAGS (so these lines follow it).
PROVE_TESTS = test/t/*.pl
PROVE_FLAGS += -I $(srcdir)/test/t

.PHONY: prove_installcheck
prove_installcheck:
	$(prove_installcheck)

# The unit tests of the pure parts (test/unit: a test-only module of their
# own, never linked into srmsort.so): "make unitcheck" builds it, installs
# it into the server's directories and runs it against the running server
# that PGHOST, PGPORT and PGUSER name (srmsort itself need not be loaded).
.PHONY: unitcheck
unitcheck:
	$(MAKE) -C test/unit PG_CONFIG=$(PG_CONFIG) all install installcheck

# The PGXN distribution: "make dist" writes srmsort-<version>.zip, the
# tracked files at the tag v<version> (git archive), <version> being
# META.json's; DIST_REF=<commit> names another commit (a release candidate).
DIST_VERSION := $(shell sed -n 's/^   "version": "\([^"]*\)".*/\1/p' $(srcdir)/META.json)
DIST_REF ?= v$(DIST_VERSION)

.PHONY: dist
dist:
	@git -C $(srcdir) rev-parse -q --verify '$(DIST_REF)^{commit}' >/dev/null || \
		{ echo "make dist: no tag $(DIST_REF) (git tag v$(DIST_VERSION), or make dist DIST_REF=HEAD)" >&2; exit 1; }
	@test "$$(git -C $(srcdir) show '$(DIST_REF):META.json' | sed -n 's/^   "version": "\([^"]*\)".*/\1/p')" = '$(DIST_VERSION)' || \
		{ echo "make dist: META.json at $(DIST_REF) does not say version $(DIST_VERSION)" >&2; exit 1; }
	git -C $(srcdir) archive --format=zip --prefix=srmsort-$(DIST_VERSION)/ \
		-o $(CURDIR)/srmsort-$(DIST_VERSION).zip '$(DIST_REF)'
