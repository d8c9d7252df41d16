#!/usr/bin/env bash
# Installs the client tools the server's end-to-end tests drive, into caches
# that later runs reuse (never called from a unit test: the first run takes
# minutes):
#   - the sqllogictest runner (crates.io sqllogictest-bin, ~6 min to build) into
#     build/tools/cargo/bin (tests/server/slt_test.cc looks there, then on PATH);
#   - the Maven artifacts of tests/server/e2e/jdbc (pgJDBC, plugins) into
#     ~/.m2, so that tests/server/jdbc_test.cc builds it without network.
# Needs cargo (rustup or Debian's cargo) and java + maven (scripts/install-deps.sh).
# Idempotent: does nothing for what is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

SLT_VERSION=0.29.1
tools=build/tools/cargo
if [ ! -x "$tools/bin/sqllogictest" ]; then
  if command -v cargo >/dev/null; then
    echo "install-client-tools: building sqllogictest-bin $SLT_VERSION into $tools"
    cargo install --locked --root "$tools" --version "$SLT_VERSION" sqllogictest-bin
  else
    echo "install-client-tools: no cargo: skipping the sqllogictest runner" >&2
  fi
fi

if command -v mvn >/dev/null; then
  out=build/tools/jdbc
  mvn -B -q -f tests/server/e2e/jdbc/pom.xml -Dforktail.build.dir="$PWD/$out" \
    -Dmdep.outputFile="$PWD/$out/classpath.txt" compile dependency:build-classpath
else
  echo "install-client-tools: no maven: skipping the JDBC client's artifacts" >&2
fi
