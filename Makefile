# Forktail — the two commands:
#   make run    install what is missing, build Release, start the main job
#   make test   install what is missing, build Debug with ASan+UBSan, run every test
# Developer targets: release, debug, tsan, tsan-test, release-test, fuzz, fuzz-long, bench,
# tpcc-bench, pgbench-contract, app-sql-bench, crash-long, format, clean.

JOBS    ?= $(shell nproc)
DATA    ?= ./data
GEN      = -G Ninja
RELEASE  = build/release
DEBUG    = build/debug
TSAN     = build/tsan
FUZZ     = build/fuzz

.PHONY: run test deps client-tools release debug tsan tsan-test release-test fuzz-build fuzz fuzz-long bench tpcc-bench pgbench-contract app-sql-bench crash-long format clean

deps:
	@./scripts/install-deps.sh

# The clients the end-to-end tests drive that Debian lacks: the sqllogictest
# runner (crates.io) and pgJDBC's Maven artifacts; cached under build/tools, ~/.m2.
client-tools: deps
	@./scripts/install-client-tools.sh

$(RELEASE)/build.ninja: | deps
	cmake -S . -B $(RELEASE) $(GEN) -DCMAKE_BUILD_TYPE=Release

$(DEBUG)/build.ninja: | deps
	cmake -S . -B $(DEBUG) $(GEN) -DCMAKE_BUILD_TYPE=Debug -DFORKTAIL_SANITIZE=address

$(TSAN)/build.ninja: | deps
	cmake -S . -B $(TSAN) $(GEN) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFORKTAIL_SANITIZE=thread

# libFuzzer needs clang: Debian's clang-14 and libclang-rt-14-dev (install-deps.sh).
$(FUZZ)/build.ninja: | deps
	CC=clang-14 CXX=clang++-14 cmake -S . -B $(FUZZ) $(GEN) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DFORKTAIL_SANITIZE=address -DFORKTAIL_FUZZ=ON

release: deps $(RELEASE)/build.ninja
	cmake --build $(RELEASE) -j $(JOBS)

debug: deps $(DEBUG)/build.ninja
	cmake --build $(DEBUG) -j $(JOBS)

tsan: deps $(TSAN)/build.ninja
	cmake --build $(TSAN) -j $(JOBS) --target scheduler_tests

run: release
	$(RELEASE)/tools/forktail serve --data $(DATA)

# ASan+UBSan build of everything, then CTest (its closing summary is printed).
# Long soak and crash loops carry the label "long" and run from their own targets.
test: debug client-tools
	cd $(DEBUG) && ctest --output-on-failure -j $(JOBS) --timeout 900 -LE long

# The scheduler's tests under ThreadSanitizer (run by CI after `make test`).
tsan-test: tsan
	cd $(TSAN) && ctest --output-on-failure --timeout 900 -R '^scheduler'

# Tests that fork a busy multi-threaded parent many times, in the Release build:
# sanitizer allocators are not fork-safe, so under ASan they skip or read
# in-process (run by CI): the snapshot module, and the SQL and end-to-end
# suites named *Snapshot* (freshness through real snapshot processes).
release-test: deps $(RELEASE)/build.ninja
	cmake --build $(RELEASE) -j $(JOBS) --target snapshot_tests
	cd $(RELEASE) && ctest --output-on-failure --timeout 900 -R '^snapshot\.'
	cmake --build $(RELEASE) -j $(JOBS) --target olap_session_tests olap_sql_tests && cd $(RELEASE) && ctest --output-on-failure --timeout 900 -R '^olap\..*Snapshot'
	cmake --build $(RELEASE) -j $(JOBS) --target server_tests forktail && cd $(RELEASE) && ctest --output-on-failure --timeout 900 -R '^server\..*Snapshot'

# The fuzz targets (fuzz/README.md), ASan+UBSan, each run FUZZ_SECONDS over its
# corpus and regressions; fails on a crash (its input in build/fuzz/artifacts/).
# CI runs it briefly; fuzz-long runs an hour per target (6 hours).
FUZZ_SECONDS ?= 30
fuzz-build: deps $(FUZZ)/build.ninja
	cmake --build $(FUZZ) -j $(JOBS) --target fuzzers

fuzz: fuzz-build
	./scripts/run-fuzzers.sh $(FUZZ) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

fuzz-long:
	$(MAKE) fuzz FUZZ_SECONDS=3600

# Every benchmark, quick by default (a few minutes); BENCH=full for the long
# runs. Results, plots and summary.md in bench/results (scripts/run-benchmarks.sh).
bench: release
	./scripts/run-benchmarks.sh $(RELEASE)

# TPC-C and CH-benCHmark over the wire, Forktail vs PostgreSQL 15 (and DuckDB
# for the CH queries), same driver, data, terminals and duration.
W ?= 1
TERMINALS ?= 4
tpcc-bench: release
	CH_STREAMS=$(or $(CH_STREAMS),1) ./bench/tpcc/tpcc_bench.sh $(RELEASE) $(W) $(TERMINALS) $(SECS)

# Application SQL vs PostgreSQL 15 in one run: pgbench -S, -M prepared, a
# range over an indexed column, psycopg executemany (issue 16's figures)
app-sql-bench: release
	./bench/app_sql/app_sql_bench.sh $(RELEASE)/tools/forktail $(or $(SCALE),10) $(or $(SECS),10)

# The transaction contract under pgbench load, Forktail vs PostgreSQL 15
# (docs/client_contract.md); several minutes at the defaults.
SCALE ?= 10
SECS  ?= 60
pgbench-contract: release
	./bench/pgbench/txn_contract_bench.sh $(RELEASE)/tools/forktail $(SCALE) $(SECS)

crash-long: release
	cd $(RELEASE) && ctest --output-on-failure -L long

format:
	@git ls-files '*.cc' '*.h' | xargs clang-format -i

clean:
	rm -rf build

# TPC-H (scripts/tpch, bench/tpch, tests/olap/sql/tpch_test.cc): data and DuckDB's
# answers in build/tpch/sf$(SF) (a DuckDB venv in build/tpch/tpch-venv).
SF ?= 1
.PHONY: tpch-bench tpch-test tpch-test-sf1 tpch-test-sf10

# Forktail vs DuckDB per query at SF $(SF), 2 threads each, best of 3
# (TPCH_ARGS: more tpch_bench options, e.g. "--runs 1 --queries 1,17").
tpch-bench: deps $(RELEASE)/build.ninja
	cmake --build $(RELEASE) -j $(JOBS) --target tpch_bench
	$(RELEASE)/bench/tpch/tpch_bench --sf $(SF) --data $(CURDIR)/build/tpch/sf$(SF) $(TPCH_ARGS)

# The 22-query differential test at SF $(SF) (Release build); SF 10 needs
# about 11 GB of disk for the data; the loaded database is held in memory.
# FORKTAIL_TPCH_DB=DIR in the environment keeps the loaded database there
# (a checkpoint, ~14 GB at SF 10) and later runs reopen it instead of loading.
tpch-test: deps $(RELEASE)/build.ninja
	cmake --build $(RELEASE) -j $(JOBS) --target olap_sql_tests
	FORKTAIL_TPCH_SF=$(SF) FORKTAIL_TPCH_DATA=$(CURDIR)/build/tpch/sf$(SF) \
	  $(RELEASE)/tests/olap_sql_tests --gtest_filter='TpchTest.*'

tpch-test-sf1:
	$(MAKE) tpch-test SF=1

tpch-test-sf10:
	$(MAKE) tpch-test SF=10
