#!/usr/bin/env bash
# Installs the client tools the server's end-to-end tests drive, into caches
# that later runs reuse (never called from a unit test: the first run takes
# minutes):
#   - the sqllogictest runner (crates.io sqllogictest-bin) into build/tools/cargo/bin
#     (tests/server/slt_test.cc looks there, then on PATH). Built unoptimized
#     (--debug): ~2 CPU-minutes instead of ~6, and the runner's own speed does
#     not matter for a few hundred records;
#   - the Maven artifacts of tests/server/e2e/jdbc (pgJDBC, plugins) into
#     ~/.m2, so that tests/server/jdbc_test.cc builds it without network.
# Needs cargo (rustup's: Debian 12's rustc 1.63 is too old for this crate) and
# java + maven (scripts/install-deps.sh). `make test` runs it; without cargo
# the sqllogictest tests skip and say so.
# Idempotent: does nothing for what is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

SLT_VERSION=0.29.1
tools=build/tools/cargo
if [ ! -x "$tools/bin/sqllogictest" ]; then
  if command -v cargo >/dev/null; then
    echo "install-client-tools: building sqllogictest-bin $SLT_VERSION into $tools"
    # A failed build (no registry access) must not fail `make test`: the
    # sqllogictest tests then skip and say why.
    cargo install --locked --debug --root "$tools" --version "$SLT_VERSION" sqllogictest-bin ||
      echo "install-client-tools: building sqllogictest-bin failed: its tests will skip" >&2
  else
    echo "install-client-tools: no cargo: skipping the sqllogictest runner" >&2
  fi
fi

if command -v mvn >/dev/null; then
  out=build/tools/jdbc
  mvn -B -q -f tests/server/e2e/jdbc/pom.xml -Dforktail.build.dir="$PWD/$out" \
    -Dmdep.outputFile="$PWD/$out/classpath.txt" compile dependency:build-classpath ||
    echo "install-client-tools: Maven failed: the JDBC test will retry on its own" >&2
else
  echo "install-client-tools: no maven: skipping the JDBC client's artifacts" >&2
fi
