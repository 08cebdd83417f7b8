# Makefile - dbprint-index and dbprint-serve.
#
#   make            build both programs into build/
#   make check      unit, golden and integration tests under ASan+UBSan
#   make PORTABLE=1 the POSIX paths only (indexer/platform.c): no inotify,
#                   no TCP_INFO; `make check PORTABLE=1` tests them in
#                   build/asan-portable
#   make check-valgrind   the same suite, built without sanitizers, under valgrind
#   make demo       index the bundled demo print and ask it three questions
#   make bench      the speed and memory figures of the issues (10,000
#                   tables; BENCH_TABLES=100000 adds that size beside it)
#   make install    PREFIX=/usr/local DESTDIR= : binaries and man pages
#   make deps       install the Debian packages the build needs (as root)
#   make test-deps  ... and those the tests need (make check runs it)
#   make dist       build/dbprint-VERSION.tar.gz, from git
#   make distcheck  that tarball unpacked alone in a scratch directory
#                   (no ../shared beside it): make, then make check there
#   make deb        build/dbprint_VERSION_ARCH.deb, built from that tarball
#   make check-package  make deb, then the .deb unpacked into a scratch
#                   root and its programs run (tests/package.sh)
#
# Every target that compiles runs `make deps` first (the tests' targets
# `make test-deps`), so a fresh Debian machine needs nothing but this
# file's prerequisites: a compiler and make.  Elsewhere tests/deps.sh
# checks nothing: install the packages by hand.  CPPFLAGS,
# CFLAGS and LDFLAGS from the environment are honoured (dpkg-buildflags).

# The version lives in one place, DBP_VERSION in indexer/dbprint.h; the
# man pages and the tarball take it from there.
VERSION	:= $(shell sed -n 's/.*define DBP_VERSION[^"]*"\([^"]*\)".*/\1/p' indexer/dbprint.h)

PREFIX	?= /usr/local
BINDIR	?= $(PREFIX)/bin
MANDIR	?= $(PREFIX)/share/man
DESTDIR	?=

CC	?= cc
# libseccomp builds the sandbox's filter (indexer/sandbox.c): Linux only,
# and not in the portable build, which compiles the sandbox out.
PKGS	 = sqlite3 yaml-0.1 libcjson libxxhash \
	   $(if $(PORTABLE),,$(if $(filter Linux,$(shell uname -s)),libseccomp))
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
HTTP_CFLAGS := $(shell pkg-config --cflags libmicrohttpd 2>/dev/null)
HTTP_LIBS   := $(shell pkg-config --libs libmicrohttpd 2>/dev/null)
TEST_CFLAGS := $(shell pkg-config --cflags cmocka 2>/dev/null)
TEST_LIBS   := $(shell pkg-config --libs cmocka 2>/dev/null)

WARN	 = -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	   -Wpointer-arith -Wformat=2 -Wno-format-nonliteral
BASE_CFLAGS = -std=c11 $(if $(PORTABLE),-DDBP_PORTABLE) $(WARN) -Iindexer -Iserver -I$(B) $(PKG_CFLAGS) $(HTTP_CFLAGS)
OPT	?= -O2 -g
SAN	 = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

# B is the build directory; `make check` builds a second tree with sanitizers.
B	?= build
CFLAGS_ALL = $(BASE_CFLAGS) $(OPT) $(CPPFLAGS) $(CFLAGS) $(EXTRA_CFLAGS)
LDLIBS_ALL = $(PKG_LIBS) $(HTTP_LIBS) -lpthread -lm

# Sources sit one folder deep at most (README, "Architecture tour").
LIB_SRC	= $(filter-out indexer/main.c,$(wildcard indexer/*.c indexer/*/*.c))
SRV_SRC	= $(wildcard server/*.c server/*/*.c)
LIB_OBJ	= $(LIB_SRC:%.c=$(B)/%.o) $(B)/gen/schema.o
SRV_OBJ	= $(SRV_SRC:%.c=$(B)/%.o) $(B)/gen/refdocs.o
HDRS	= $(wildcard indexer/*.h indexer/*/*.h server/*.h server/*/*.h)
UNIT_SRC = $(wildcard tests/unit/*.c)
UNIT_BIN = $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
REFDOCS	= $(sort $(wildcard man/reference/*.md))

.PHONY: all deps test-deps check check-valgrind demo bench install clean \
	fuzz check-clang lint tests-build tests-files programs man dist \
	version \
	install-files \
	distcheck deb check-package

all: deps
	@$(MAKE) --no-print-directory programs

programs: $(B)/dbprint-index $(B)/dbprint-serve $(B)/gen-print man

deps:
	@sh tests/deps.sh

test-deps:
	@sh tests/deps.sh --test

version:
	@echo $(VERSION)

# The man pages as installed: .Os names the package and its version.
MAN_PAGES = dbprint-index.1 dbprint-serve.1 dbprint-index.5
man: $(MAN_PAGES:%=$(B)/man/%)

$(B)/man/%: man/% indexer/dbprint.h
	@mkdir -p $(dir $@)
	sed 's/^\.Os$$/.Os dbprint $(VERSION)/' man/$* > $@

$(B)/%.o: %.c $(HDRS) | $(B)/gen/schema.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -c -o $@ $<

$(B)/gen/schema.c: sql/schema.sql tests/embed.sh
	@mkdir -p $(dir $@)
	sh tests/embed.sh dbp_schema_sql sql/schema.sql > $@

$(B)/gen/refdocs.c: $(REFDOCS) tests/embed.sh
	@mkdir -p $(dir $@)
	sh tests/embed.sh -refdocs $(REFDOCS) > $@

$(B)/gen/%.o: $(B)/gen/%.c
	$(CC) $(CFLAGS_ALL) -Wno-missing-prototypes -c -o $@ $<

$(B)/libdbprint.a: $(LIB_OBJ)
	rm -f $@
	ar rcs $@ $^

$(B)/dbprint-index: $(B)/indexer/main.o $(B)/libdbprint.a
	$(CC) $(CFLAGS_ALL) $(LDFLAGS) -o $@ $^ $(LDLIBS_ALL)

$(B)/dbprint-serve: $(SRV_OBJ) $(B)/libdbprint.a
	$(CC) $(CFLAGS_ALL) $(LDFLAGS) -o $@ $^ $(LDLIBS_ALL)

# Unit tests link the library and every server object but server/main.o.
$(B)/tests/%: tests/unit/%.c $(B)/libdbprint.a $(filter-out $(B)/server/main.o,$(SRV_OBJ)) $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(TEST_CFLAGS) -Wno-missing-prototypes -o $@ $< \
	    $(filter-out $(B)/server/main.o,$(SRV_OBJ)) $(B)/libdbprint.a $(LDLIBS_ALL) $(TEST_LIBS)

# The synthetic print generator: libc only, for tests and make bench.
$(B)/gen-print: fixtures/gen-print.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(WARN) $(OPT) $(EXTRA_CFLAGS) -o $@ fixtures/gen-print.c

# Idle connections held open for the HTTP tests (t8150): libc only.
$(B)/idle-conns: tests/idle-conns.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(WARN) $(OPT) $(EXTRA_CFLAGS) -o $@ tests/idle-conns.c

# What the tests run (tests-files: more prerequisites below, the fuzz
# replays and the failmalloc builds) is built after `all`, in a make of
# its own: `all` builds in a make of its own after deps, and two makes
# must not build the same objects at once (make -j all tests-build made
# each object twice and could link a half-written one).
tests-build: all
	@$(MAKE) --no-print-directory tests-files

tests-files: $(B)/dbprint-index $(B)/dbprint-serve $(B)/gen-print \
    $(B)/idle-conns $(UNIT_BIN) man

# The test suite runs against a sanitizer build in build/asan (with
# PORTABLE=1 in build/asan-portable, the tests told DBP_PORTABLE=1).
# The sandbox is also tested as users run it, without the sanitizers'
# widening (t9400): the plain tree, build/ (build/portable).
CHECK_B	= build/asan$(if $(PORTABLE),-portable)
PLAIN_B	= $(if $(PORTABLE),build/portable,build)
check: test-deps
	@$(MAKE) --no-print-directory B=$(PLAIN_B) all
	@$(MAKE) --no-print-directory B=$(PLAIN_B) $(PLAIN_B)/tests/test_sandbox
	@$(MAKE) --no-print-directory B=$(CHECK_B) OPT="-O1 -g $(SAN)" tests-build
	@BUILD=$(CHECK_B) PLAIN_BUILD=$(PLAIN_B) \
	    DBP_PORTABLE=$(if $(PORTABLE),1,0) sh tests/run

# The valgrind tree keeps only no_new_privs of the sandbox (sandbox.c).
check-valgrind: test-deps
	@$(MAKE) --no-print-directory B=build/vg OPT="-O1 -g -DDBP_SANDBOX_VALGRIND" tests-build
	@BUILD=build/vg VALGRIND=1 sh tests/run

demo: all
	@sh tests/demo.sh

bench: all
	@sh tests/deps.sh --test time
	@$(MAKE) --no-print-directory $(B)/bench-floor
	@BUILD=$(B) sh tests/bench.sh

# The floor of a full build (tests/bench-floor.c): libyaml's event parser
# over a print's YAML on two threads, for `make bench`.
$(B)/bench-floor: tests/bench-floor.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(WARN) $(OPT) $(EXTRA_CFLAGS) $(PKG_CFLAGS) -o $@ \
	    tests/bench-floor.c $(PKG_LIBS) -lpthread

install: all
	@$(MAKE) --no-print-directory install-files

# What install copies, without building: debian/rules calls it after its
# own build.
install-files:
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5
	install -m 755 $(B)/dbprint-index $(B)/dbprint-serve $(DESTDIR)$(BINDIR)
	install -m 644 $(B)/man/dbprint-index.1 $(B)/man/dbprint-serve.1 $(DESTDIR)$(MANDIR)/man1
	install -m 644 $(B)/man/dbprint-index.5 $(DESTDIR)$(MANDIR)/man5

lint:
	@if command -v mandoc >/dev/null; then mandoc -Tlint -Wwarning man/*.[15]; else echo "mandoc not installed; skipped"; fi

# The release tarball: the committed tree (HEAD) under dbprint-VERSION/.
dist:
	@mkdir -p build
	git archive --format=tar.gz --prefix=dbprint-$(VERSION)/ \
	    -o build/dbprint-$(VERSION).tar.gz HEAD
	@echo "dist: build/dbprint-$(VERSION).tar.gz"

# The tarball alone, as a user unpacks it: nothing of this tree or of
# ../shared beside it; the scratch directory goes when the check ends.
distcheck: dist
	@d=$$(mktemp -d) && trap 'rm -rf "$$d"' EXIT INT TERM && \
	tar -xzf build/dbprint-$(VERSION).tar.gz -C "$$d" && \
	echo "distcheck: in $$d/dbprint-$(VERSION)" && \
	$(MAKE) --no-print-directory -C "$$d/dbprint-$(VERSION)" && \
	$(MAKE) --no-print-directory -C "$$d/dbprint-$(VERSION)" check && \
	echo "distcheck: build/dbprint-$(VERSION).tar.gz: make and make check pass"

# The Debian package (debian/), built by dpkg-buildpackage from the
# release tarball unpacked in build/deb, so what it packages is what
# `make dist` ships; dpkg-buildpackage writes beside that tree and the
# .deb is copied up into build/.
DEB_ARCH = $(shell dpkg --print-architecture 2>/dev/null)
DEB	 = dbprint_$(VERSION)_$(DEB_ARCH).deb
deb: dist
	@sh tests/deps.sh --package
	@v=$$(dpkg-parsechangelog -S Version); [ "$$v" = "$(VERSION)" ] || \
	    { echo "deb: debian/changelog says $$v, DBP_VERSION" \
	    "$(VERSION)" >&2; exit 1; }
	rm -rf build/deb
	mkdir -p build/deb
	tar -xzf build/dbprint-$(VERSION).tar.gz -C build/deb
	cd build/deb/dbprint-$(VERSION) && dpkg-buildpackage -us -uc -b
	cp build/deb/$(DEB) build/$(DEB)
	@echo "deb: build/$(DEB)"

check-package: deb
	@sh tests/package.sh build/$(DEB)

clean:
	rm -rf build

# Fuzzing (tests/fuzz/, fixtures/fuzz/).  Each target tests/fuzz/fuzz_<t>.c
# defines LLVMFuzzerTestOneInput.  `make check` replays each committed
# corpus fixtures/fuzz/<t>/ through a gcc build of its target
# ($(B)/fuzz/replay-<t>, tests/cli/t9100-fuzz-replay.sh); `make fuzz` builds
# the targets with clang and libFuzzer into build/fuzz and runs each for
# FUZZ_SECONDS with its dictionary fixtures/fuzz/<t>.dict, new inputs going
# to build/fuzz/corpus/<t>/ and crashes to build/fuzz/crash/<t>/.
FUZZ_TARGETS = ydoc index rpc uri cursor fnmatch http
FUZZ_SECONDS ?= 60
FUZZ_OPTS ?=
FUZZ_COMMON = tests/fuzz/fuzz_common.c tests/fuzz/fuzz.h
FUZZ_REPLAY = $(FUZZ_TARGETS:%=$(B)/fuzz/replay-%)
FUZZ_FLAGS = -DFUZZ_FIXTURES='"$(CURDIR)/fixtures"' -Itests/fuzz
FUZZ_SAN = -fsanitize=address,undefined -fno-omit-frame-pointer \
	   -fno-sanitize-recover=all
# Seed directories beside the committed corpus, per target.
FUZZ_SEEDS_ydoc = fixtures/bad fixtures/demo/prints fixtures/rich/prints
FUZZ_SEEDS_index =
FUZZ_SEEDS_rpc =
FUZZ_SEEDS_uri =
FUZZ_SEEDS_cursor =
FUZZ_SEEDS_fnmatch =
FUZZ_SEEDS_http =

tests-files: $(FUZZ_REPLAY)

$(B)/fuzz/replay-%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c $(FUZZ_COMMON) \
    $(B)/libdbprint.a $(filter-out $(B)/server/main.o,$(SRV_OBJ)) $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(FUZZ_FLAGS) -o $@ $< tests/fuzz/replay.c \
	    tests/fuzz/fuzz_common.c \
	    $(filter-out $(B)/server/main.o,$(SRV_OBJ)) $(B)/libdbprint.a \
	    $(LDLIBS_ALL)

# The libFuzzer binaries: the library and server compiled by clang with
# coverage instrumentation in their own tree.
$(B)/fuzz/fuzz-%: tests/fuzz/fuzz_%.c $(FUZZ_COMMON) $(B)/libdbprint.a \
    $(filter-out $(B)/server/main.o,$(SRV_OBJ)) $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $< \
	    tests/fuzz/fuzz_common.c \
	    $(filter-out $(B)/server/main.o,$(SRV_OBJ)) $(B)/libdbprint.a \
	    $(LDLIBS_ALL)

fuzz-build: $(FUZZ_TARGETS:%=$(B)/fuzz/fuzz-%)

# One target's run: $(call FUZZ_RUN,target).
FUZZ_RUN = mkdir -p build/fuzz/corpus/$(1) build/fuzz/crash/$(1) && \
	echo "fuzz: $(1) for $(FUZZ_SECONDS)s" && \
	build/fuzz/fuzz/fuzz-$(1) -max_total_time=$(FUZZ_SECONDS) \
	    -timeout=25 -rss_limit_mb=2048 -max_len=65536 \
	    -print_final_stats=1 -artifact_prefix=build/fuzz/crash/$(1)/ \
	    -dict=fixtures/fuzz/$(1).dict $(FUZZ_OPTS) \
	    build/fuzz/corpus/$(1) fixtures/fuzz/$(1) $(FUZZ_SEEDS_$(1))

fuzz:
	@sh tests/deps.sh clang
	@$(MAKE) --no-print-directory B=build/fuzz CC=clang \
	    OPT="-O1 -g -fsanitize=fuzzer-no-link $(FUZZ_SAN)" fuzz-build
	@set -e; $(foreach t,$(FUZZ_TARGETS),$(call FUZZ_RUN,$(t));)

# The tree built by clang, warnings as errors (its -Wextra reports what
# gcc's does not; macOS and the BSDs build with it), and the unit tests
# run on that build.  CI runs it; it needs clang alone, no sanitizer or
# libFuzzer runtime.
check-clang:
	@sh tests/deps.sh --test clang
	@$(MAKE) --no-print-directory B=build/clang CC=clang all tests-build
	@BUILD=build/clang ONLY=/tests/test_ sh tests/run

# Allocation-failure builds (tests/fuzz/failmalloc.c, t9300): both programs
# with malloc and friends wrapped so DBP_FAIL_ALLOC=N fails the N-th.
FAILMALLOC_WRAP = -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=strdup,--wrap=strndup
tests-files: $(B)/fuzz/failmalloc-serve $(B)/fuzz/failmalloc-index

$(B)/fuzz/failmalloc-serve: tests/fuzz/failmalloc.c $(SRV_OBJ) $(B)/libdbprint.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Wno-missing-prototypes $(FAILMALLOC_WRAP) -o $@ \
	    tests/fuzz/failmalloc.c $(SRV_OBJ) $(B)/libdbprint.a $(LDLIBS_ALL)

$(B)/fuzz/failmalloc-index: tests/fuzz/failmalloc.c $(B)/indexer/main.o $(B)/libdbprint.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Wno-missing-prototypes $(FAILMALLOC_WRAP) -o $@ \
	    tests/fuzz/failmalloc.c $(B)/indexer/main.o $(B)/libdbprint.a \
	    $(LDLIBS_ALL)
