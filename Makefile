# perfdiag — one Makefile, no configure.
#   make            build bin/pd-*
#   make check      run the test suite (bats through prove)
#   make sancheck   the suite again, built with -fsanitize=address,undefined
#   make bench      throughput and peak RSS on a generated >= 1 GiB trace
#   make demo       the whole pipeline on the bundled example
#   make vgdemo     the demo with every tool under valgrind (needs valgrind)
#   make fuzz       libFuzzer on every reader and parser, FUZZ_S=60 seconds
#                   each (FUZZ="csv smi" for some; seeds from test/fixtures
#                   and PD_CORPUS, default ../shared/corpus)
#   make install    PREFIX=/usr/local DESTDIR=
VERSION = 0.1.0
PREFIX ?= /usr/local
DESTDIR ?=
SHAREDIR = $(PREFIX)/share/perfdiag
MANDIR = $(PREFIX)/share/man

PKGS = jansson yaml-0.1 zlib libarchive sqlite3 libisal
# Linked at build time: libarchive is loaded when an archive is first read
# (lib/pd_archive.c), libsqlite3 when a database is first opened
# (lib/pd_sqlite.c) and ISA-L's libisal when a gzip file is first read
# (lib/pd_file.c; zlib inflates where it cannot be loaded), so that a
# tool's start-up does not map them (and the eleven libraries libarchive
# needs).
LINK_PKGS = $(filter-out libarchive sqlite3 libisal,$(PKGS))
# The libraries linked at build time are linked from their archives
# (the -dev packages ship them): a tool then maps two libraries (libc,
# libm) instead of five, and starts with ~20 page faults and the
# loader's relocations of three libraries fewer (0.5-0.8 ms of a
# tool's start on a VM where a page fault costs ~15 us).
# LINK_STATIC=0 (in a fresh OBJ: config.mk keeps the choice), or an
# archive missing, links them as shared ones (a packager's choice: then
# their security updates reach the tools without a rebuild).
LINK_STATIC ?= 1
DEBS = build-essential pkg-config libjansson-dev libyaml-dev zlib1g-dev libarchive-dev libsqlite3-dev libisal-dev bats jq mandoc
CC ?= cc
CFLAGS ?= -O2 -g
OBJ ?= build
BIN ?= bin
PKG_CONFIG ?= pkg-config
override CFLAGS += -std=c99 -D_GNU_SOURCE -Wall -Wextra -Werror -Ilib \
	$(PKG_CFLAGS) -DPD_SHAREDIR='"$(SHAREDIR)"' -DPD_VERSION='"$(VERSION)"'
LDLIBS += $(PKG_LIBS) -lm

TOOLS := $(patsubst tools/%.c,%,$(wildcard tools/pd-*.c))
BINS := $(addprefix $(BIN)/,$(TOOLS))
LIBSRC := $(wildcard lib/*.c)
LIBOBJ := $(patsubst lib/%.c,$(OBJ)/%.o,$(LIBSRC))
HDRS := $(wildcard lib/*.h)
TESTBINS := $(patsubst test/%.c,$(OBJ)/test/%,$(wildcard test/*.c))

.PHONY: all deps check-deps check sancheck bench demo install clean lint fuzz vgdemo
all: deps $(BINS) $(TESTBINS)

# Missing Debian packages: installed when run as root (with APT_INSTALL),
# otherwise named with the command to run.
ifeq ($(shell id -u),0)
APT_INSTALL ?= apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
	apt-get install -y -qq
endif
# need WHAT CHECK PACKAGES: run CHECK; on failure install or name PACKAGES.
need = missing=$$($(2)); \
	if [ -n "$$missing" ]; then \
	  if [ -n '$(APT_INSTALL)' ]; then \
	    echo "perfdiag: installing missing $(1):$$missing"; \
	    $(APT_INSTALL) $(3) >/dev/null || exit 1; \
	    missing=$$($(2)); \
	    if [ -n "$$missing" ]; then \
	      echo "perfdiag: still missing after the install:$$missing" >&2; exit 1; fi; \
	  else \
	    echo "perfdiag: missing $(1):$$missing" >&2; \
	    echo "perfdiag: install them with: sudo apt-get install $(3)" >&2; exit 1; \
	  fi; \
	fi

# The pkg-config flags live in $(OBJ)/config.mk. GNU make remakes an
# included makefile first and then reads the Makefile again, so a bare
# machine goes from missing packages to a build in one `make`.
ifeq ($(filter-out clean lint,$(or $(MAKECMDGOALS),all)),)
else
include $(OBJ)/config.mk
endif
$(OBJ)/config.mk: Makefile
	@mkdir -p $(OBJ)
	@$(call need,build dependencies,for p in $(PKGS); do \
	  $(PKG_CONFIG) --exists $$p 2>/dev/null || printf ' %s' $$p; done,$(DEBS))
	@{ echo "PKG_CFLAGS = $$($(PKG_CONFIG) --cflags $(PKGS))"; \
	  libs=$$($(PKG_CONFIG) --libs $(LINK_PKGS)); st=$(LINK_STATIC); \
	  for l in $$libs; do case $$l in -l*) \
	    f=$$($(CC) -print-file-name=lib$${l#-l}.a); \
	    [ -f "$$f" ] || st=0;; esac; done; \
	  [ "$$st" = 1 ] && libs="-Wl,-Bstatic $$libs -Wl,-Bdynamic"; \
	  echo "PKG_LIBS = $$libs"; \
	  echo "SQLITE_LIBS = $$($(PKG_CONFIG) --libs sqlite3)"; } >$@.tmp
	@mv $@.tmp $@

deps: $(OBJ)/config.mk

$(OBJ)/%.o: lib/%.c $(HDRS)
	@mkdir -p $(OBJ)
	$(CC) $(CFLAGS) -c -o $@ $<

$(OBJ)/lib.a: $(LIBOBJ)
	rm -f $@
	$(AR) rcs $@ $(LIBOBJ)

# A tool is tools/pd-x.c plus, when it has parts, tools/pd-x/*.c.
.SECONDEXPANSION:
$(BIN)/%: tools/%.c $$(wildcard tools/%/*.c tools/%/*.h) $(OBJ)/lib.a $(HDRS) \
    $(OBJ)/config.mk
	@mkdir -p $(BIN)
	$(CC) $(CFLAGS) -Itools $(LDFLAGS) -o $@ $< $(wildcard tools/$*/*.c) \
	  $(filter $(OBJ)/rcache-builtin.o,$^) $(OBJ)/lib.a $(LDLIBS)

# pd-classify carries the compiled form of the shipped rules
# (pd_rcache.h): build-aux/rcache-form, linked with the library, compiles
# share/rules/default.yaml into C (the file's bytes and their form), and
# a start that finds the same bytes reads that instead of parsing them.
$(OBJ)/rcache-form: build-aux/rcache-form.c $(OBJ)/lib.a $(HDRS) $(OBJ)/config.mk
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(OBJ)/lib.a $(LDLIBS)
$(OBJ)/rcache-builtin.c: $(OBJ)/rcache-form share/rules/default.yaml
	$(OBJ)/rcache-form rules=share/rules/default.yaml >$@.tmp
	mv $@.tmp $@
$(OBJ)/rcache-builtin.o: $(OBJ)/rcache-builtin.c lib/pd_rcache.h
	$(CC) $(CFLAGS) -c -o $@ $<
$(BIN)/pd-classify: $(OBJ)/rcache-builtin.o

$(OBJ)/test/%: test/%.c $(OBJ)/lib.a $(HDRS) $(wildcard test/*.h) $(OBJ)/config.mk
	@mkdir -p $(OBJ)/test
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(OBJ)/lib.a $(LDLIBS)
# writes the SQLite fixtures with the library itself, linked
$(OBJ)/test/sqlite-make: LDLIBS += $(SQLITE_LIBS)

# The test tools.
TESTDEBS = bats jq perl zip zstd xz-utils openssh-server openssh-client parallel
check-deps:
	@$(call need,test tools,for c in bats jq prove; do \
	  command -v $$c >/dev/null || printf ' %s' $$c; done; \
	  for c in /usr/sbin/sshd ssh parallel; do \
	  command -v $$c >/dev/null || printf ' %s' $${c##*/}; done,$(TESTDEBS))

# The bats files run PROVE_JOBS at a time, the longest first (real
# training runs, the browser) so that no long one is left alone at the
# end; one more file than CPUs, since the training runs, experiments and
# sampling tests spend much of their time asleep. Each one's TAP and
# times are kept under $(OBJ)/check-tap/ so that the summary can say how
# many tests were skipped and why, and which files cost the most.
PROVE_JOBS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) + 1 )))
SLOW_TESTS = test/pd-audit-limits.bats test/report-browser.bats \
	test/pd-classify.bats test/pd-collect.bats test/cache.bats
CHECK_TESTS = $(SLOW_TESTS) $(filter-out $(SLOW_TESTS),$(sort $(wildcard test/*.bats)))
check: all check-deps
	@rm -rf $(OBJ)/check-tap $(OBJ)/check-cache && mkdir -p $(OBJ)/check-tap
	PD_BIN=$(CURDIR)/$(BIN) PD_TESTBIN=$(CURDIR)/$(OBJ)/test \
	  PD_TAPLOG=$(CURDIR)/$(OBJ)/check-tap \
	  PD_TEST_CACHE_DIR=$(CURDIR)/$(OBJ)/check-cache \
	  PD_LINK_STATIC=$(if $(findstring -Bstatic,$(PKG_LIBS)),1,0) \
	  prove -j$(PROVE_JOBS) --exec "bash test/tap-log" $(CHECK_TESTS); \
	  rc=$$?; cat $(OBJ)/check-tap/*.tap | sh test/skips.sh; \
	  sh test/times.sh $(OBJ)/check-tap/*.time; exit $$rc

SANFLAGS = -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
sancheck:
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  $(MAKE) check OBJ=build-san BIN=build-san/bin CFLAGS="$(SANFLAGS)" LDFLAGS="-fsanitize=address,undefined"

# Fuzz every reader and parser with libFuzzer (clang): each
# test/fuzz/fuzz-NAME.c for FUZZ_S seconds (FUZZTIME is the old name),
# seeded from the fixtures and from the profiler corpus when there is one
# (PD_CORPUS, default ../shared/corpus); the first finding stops the run
# and names the crash file. FUZZ=NAME... runs only those.
FUZZTIME ?= 60
FUZZ_S ?= $(FUZZTIME)
PD_CORPUS ?= ../shared/corpus
FUZZ ?= $(patsubst test/fuzz/fuzz-%.c,%,$(wildcard test/fuzz/fuzz-*.c))
FUZZ_CC ?= clang
FUZZ_CFLAGS = -g -O1 -std=c99 -D_GNU_SOURCE -Wall -Wextra -Ilib -Itools \
	$(PKG_CFLAGS) -fno-sanitize-recover=undefined
FUZZ_LIBOBJ := $(patsubst lib/%.c,build/fuzz/obj/%.o,$(LIBSRC))
FUZZ_LINK_inject = tools/pd-inject/loop.c tools/pd-inject/text.c
FUZZ_LINK_flops = tools/pd-hotspots/flops.c
build/fuzz/obj/%.o: lib/%.c $(HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,address,undefined \
	  -c -o $@ $<
build/fuzz/fuzz-%: test/fuzz/fuzz-%.c test/fuzz/fuzz.h $(FUZZ_LIBOBJ) \
    $(wildcard tools/pd-inject/*.[ch]) $(wildcard tools/pd-hotspots/flops.[ch])
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer,address,undefined -o $@ \
	  $< $(FUZZ_LINK_$*) $(FUZZ_LIBOBJ) $(LDLIBS)
fuzz: $(addprefix build/fuzz/fuzz-,$(FUZZ))
	@for t in $(FUZZ); do \
	  sh test/fuzz/run.sh $$t $(FUZZ_S) '$(PD_CORPUS)' || exit 1; \
	done

bench: all
	sh bench/run.sh

demo: all
	PD_BIN=$(BIN) sh share/examples/demo.sh

lint:
	mandoc -Tlint -Wwarning man/*.[0-9]

# The demo with every tool under valgrind (memcheck, definite and indirect
# leaks are errors): any error fails the stage (exit 99).
vgdemo: all
	rm -rf build/vgbin build/vgdemo && mkdir -p build/vgbin
	for t in $(BINS); do n=$$(basename $$t); \
	  printf '#!/bin/sh\nexec valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect %s "$$@"\n' \
	    "$(CURDIR)/$$t" >build/vgbin/$$n && chmod +x build/vgbin/$$n; done
	PD_BIN=build/vgbin sh share/examples/demo.sh build/vgdemo

install: all
	mkdir -p $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(SHAREDIR) \
	  $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man7
	cp $(BINS) $(DESTDIR)$(PREFIX)/bin/
	cp -R share/. $(DESTDIR)$(SHAREDIR)/
	for m in man/*.1; do [ -e "$$m" ] && cp $$m $(DESTDIR)$(MANDIR)/man1/; done; true
	for m in man/*.5; do [ -e "$$m" ] && cp $$m $(DESTDIR)$(MANDIR)/man5/; done; true
	for m in man/*.7; do [ -e "$$m" ] && cp $$m $(DESTDIR)$(MANDIR)/man7/; done; true

clean:
	rm -rf build build-san bin
