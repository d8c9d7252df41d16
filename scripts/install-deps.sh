#!/usr/bin/env bash
# Installs the Debian packages Forktail needs to build, test and run.
# libjemalloc-dev: the allocator of release builds (storage/allocator.h).
# libssl-dev: SCRAM-SHA-256 for the wire server. libpq-dev: the TPC-C driver
# (bench/tpcc) is a libpq client. postgresql(-client), python3-psycopg,
# python3-pytest: the end-to-end tests drive the server with psql, pgbench and
# psycopg (Debian's /usr/bin/python3), and benchmarks compare against PostgreSQL 15.
# python3-sqlalchemy, python3-psycopg2: an ORM over the other common Python
# driver (tests/server/orm_test.cc).
# python3-venv: the TPC-H tests install duckdb from PyPI into a venv.
# openjdk-17-jdk-headless (Debian 12's default JDK), maven: the JDBC end-to-end test
# (tests/server/jdbc_test.cc) builds its pgJDBC client with Maven. The sqllogictest
# runner needs a recent cargo (rustup): scripts/install-client-tools.sh builds it.
# clang-14, libclang-rt-14-dev: libFuzzer and the sanitizer runtimes for clang
# (`make fuzz`, fuzz/README.md).
# Idempotent: checks each package first and runs `apt-get update` once, only
# when something is missing. Safe to call from every make target.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  liburing-dev libnuma-dev librocksdb-dev liblz4-dev libzstd-dev libsnappy-dev libbz2-dev zlib1g-dev
  libjemalloc-dev
  libgtest-dev libgmock-dev libbenchmark-dev libfmt-dev libcli11-dev libxxhash-dev libgflags-dev
  clang-format clang-14 libclang-rt-14-dev
  libssl-dev libpq-dev
  postgresql-client postgresql python3-venv python3-psycopg python3-pytest
  python3-sqlalchemy python3-psycopg2
  openjdk-17-jdk-headless maven
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo_cmd=""
if [ "$(id -u)" -ne 0 ]; then sudo_cmd="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo_cmd apt-get update -qq
$sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
