# Changeset evolution for Git: build a patched git 2.55.0 from a pinned
# upstream. See README.md for the layout and the targets.

SHELL = /bin/sh
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

BUILD = build
TREE = $(BUILD)/git
VANILLA = $(BUILD)/vanilla

# Upstream's default options plus what a distribution's git links. Rust is
# upstream's default; without a working cargo, build without it (rustup's
# cargo proxy is there but fails when no toolchain is installed, so ask it
# for its version rather than look for it).
GIT_OPTS = USE_LIBPCRE=YesPlease
ifeq ($(shell cargo --version 2>/dev/null),)
GIT_OPTS += NO_RUST=YesPlease
endif
ifdef DEVELOPER
GIT_OPTS += DEVELOPER=$(DEVELOPER)
endif
ifdef prefix
GIT_OPTS += prefix=$(prefix)
endif

# Passed on to the scripts.
export UPSTREAM_TARBALL UPSTREAM_GIT UPSTREAM_SHA256 T TEST_MODES

.PHONY: all deps fetch assemble vanilla leak asan test test-ours test-leak test-asan \
	test-upstream check-sanitizers check-meson check-help bench demo install series series-check fuzz clean distclean

all: assemble
	$(MAKE) -C $(TREE) -j$(JOBS) $(GIT_OPTS) all
	@ln -sfn git/bin-wrappers $(BUILD)/bin

deps:
	@sh scripts/install-deps.sh

fetch: deps
	@sh scripts/fetch-upstream.sh

assemble: fetch
	@sh scripts/assemble.sh $(TREE)

# The unmodified upstream, built from the same source with the same options.
vanilla: fetch
	@test -d $(VANILLA) || cp -a $(BUILD)/upstream $(VANILLA)
	$(MAKE) -C $(VANILLA) -j$(JOBS) $(GIT_OPTS) all
	@ln -sfn bin-wrappers $(VANILLA)/bin

# The patched tree once more, built with sanitizers: build/leak with
# LeakSanitizer, build/asan with AddressSanitizer and UBSan.
comma := ,
# They are built without Rust: what they check is the series' C code, and
# the Rust crates would add minutes to every make test.
sanitized = sh scripts/assemble.sh $(BUILD)/$(1) && \
	$(MAKE) -C $(BUILD)/$(1) -j$(JOBS) $(GIT_OPTS) NO_RUST=YesPlease SANITIZE=$(2) all

leak: fetch
	@$(call sanitized,leak,leak)

asan: fetch
	@$(call sanitized,asan,address$(comma)undefined)

# The libFuzzer harnesses of the series (oss-fuzz/fuzz-*.c), built with
# clang, ASan and UBSan in build/fuzz as upstream's Makefile suggests above
# fuzz-all, each run FUZZ_RUNS times from its corpus in fuzz/corpus/. Fails
# on a crash, a leak or undefined behaviour. make fuzz FUZZ_RUNS=10000: a
# quick smoke run. As upstream's SANITIZE=undefined does, sha1dc is told to
# read its input bytewise, not with misaligned loads UBSan would stop on.
FUZZ_RUNS = 10000000
FUZZ_JOBS = 1
FUZZERS = metacommit change-table
FUZZ_SANITIZE = fuzzer-no-link$(comma)address$(comma)undefined

fuzz: fetch
	@sh scripts/assemble.sh $(BUILD)/fuzz
	$(MAKE) -C $(BUILD)/fuzz -j$(JOBS) $(GIT_OPTS) CC=clang \
		CFLAGS="-fsanitize=$(FUZZ_SANITIZE) -g -O1 -DSHA1DC_FORCE_ALIGNED_ACCESS" \
		LIB_FUZZING_ENGINE="-fsanitize=fuzzer$(comma)address$(comma)undefined" \
		fuzz-all
	@FUZZ_JOBS=$(FUZZ_JOBS) sh scripts/fuzz.sh $(BUILD)/fuzz $(FUZZ_RUNS) $(FUZZERS)

# make test: our tests in two modes (ref format, hash), the installed
# manual pages, then the whole upstream suite. make test
# T=t9990-changes.sh: just those scripts; TEST_MODES="files,sha1 ..."
# chooses the modes. make test must fit in CI's 90 minutes on a slow day
# of a 2-core machine, when the upstream suite alone takes 55 to 61 of
# them and building takes 5: an ASan+UBSan stage (a build of its own, 4
# minutes, and 7 of tests) took CI to 81 minutes, so the sanitizers are
# left to make test-asan and make test-leak, and make test-ours runs all
# four modes. Run all three before stopping (make check-sanitizers).
TEST_MODES_QUICK = files,sha1 reftable,sha256

test: all
	@TEST_MODES="$${TEST_MODES:-$(TEST_MODES_QUICK)}" sh scripts/run-tests.sh ours $(TREE)
ifndef T
	@$(MAKE) --no-print-directory check-help
	@sh scripts/run-tests.sh upstream $(TREE)
endif

# Our tests in every mode, under ASan+UBSan and under LeakSanitizer.
check-sanitizers:
	@$(MAKE) --no-print-directory test-ours
	@$(MAKE) --no-print-directory test-asan
	@$(MAKE) --no-print-directory test-leak

test-ours: all
	@sh scripts/run-tests.sh ours $(TREE)

test-leak: leak
	@sh scripts/run-tests.sh ours $(BUILD)/leak

test-asan: asan
	@sh scripts/run-tests.sh ours $(BUILD)/asan

test-upstream: all
	@sh scripts/run-tests.sh upstream $(TREE)

# Check that meson.build is in step with the Makefile: configure the patched
# tree with meson and compile the series' own sources (needs meson, ninja).
check-meson: assemble
	@rm -rf $(BUILD)/meson
	meson setup $(BUILD)/meson $(TREE) -Drust=disabled >$(BUILD)/meson-setup.log
	ninja -C $(BUILD)/meson $$(ninja -C $(BUILD)/meson -t targets all | \
		sed -n 's/^\([^:]*\(metacommit\|change-table\|change-writer\|builtin_change\)[^:]*\.o\):.*/\1/p')
	$(MAKE) -C $(TREE)/t check-meson
	$(MAKE) -C $(TREE)/Documentation lint-docs-meson

# The project as a mailable series (patches/steps) in build/series, and
# the check that it applies onto the pristine upstream with git am and
# that every step builds and passes the tests it adds (not part of make
# test: it builds each step).
series: fetch
	@sh scripts/series.sh

series-check: series
	@GIT_OPTS="$(GIT_OPTS)" JOBS=$(JOBS) sh scripts/series-check.sh

# Benchmarks against the unpatched build; never part of make test.
bench: all vanilla
	@sh scripts/install-deps.sh bench
	@for b in bench/*.sh; do \
		case $$b in */lib.sh) continue;; esac; \
		echo "== $$b"; sh $$b || exit 1; \
	done

demo: all
	@sh scripts/demo.sh $(BUILD)/bin/git

# The manual pages are built with asciidoctor and xmlto, as Debian builds
# git's: "git help change" then works from the installed build.
DOC_OPTS = USE_ASCIIDOCTOR=YesPlease

install: all
	@sh scripts/install-deps.sh docs
	$(MAKE) -C $(TREE) $(GIT_OPTS) $(DOC_OPTS) install install-man

# What "make install" installs, staged in build/check-help (DESTDIR, as a
# package is made); "git help" must show our pages from there. Only the
# pages whose sources the series adds or changes are built (all of them
# take two minutes of make test; make install builds every page).
HELP_MAN1 = git-change.adoc git-evolve.adoc git-next.adoc git-prev.adoc \
	git-config.adoc git-fsck.adoc git-log.adoc git-merge-base.adoc \
	git-merge.adoc git-pull.adoc
HELP_MAN5 = githooks.adoc
HELP_MAN7 = gitrevisions.adoc

check-help: all
	@sh scripts/install-deps.sh docs
	@rm -rf $(BUILD)/check-help
	@$(MAKE) --no-print-directory -C $(TREE) -j$(JOBS) $(GIT_OPTS) $(DOC_OPTS) \
		MAN1_TXT="$(HELP_MAN1)" MAN5_TXT="$(HELP_MAN5)" MAN7_TXT="$(HELP_MAN7)" \
		DESTDIR=$(CURDIR)/$(BUILD)/check-help install install-man >$(BUILD)/check-help.log 2>&1 || \
		{ tail -n 20 $(BUILD)/check-help.log; exit 1; }
	@sh scripts/check-help.sh $(BUILD)/check-help

clean:
	rm -rf $(TREE) $(BUILD)/leak $(BUILD)/asan $(BUILD)/fuzz $(BUILD)/check-help $(BUILD)/bin $(BUILD)/stage $(BUILD)/stage.list \
		$(BUILD)/series $(BUILD)/series-repo $(BUILD)/series-steps \
		$(BUILD)/series-check $(BUILD)/series-check-logs

distclean:
	rm -rf $(BUILD)
