#!/usr/bin/env bash
# Installs everything pgrange needs to build, test and run, from Debian 12 packages.
# Idempotent: packages already present are left alone. Must run as root (apt-get).
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config clang clang-format libclang-rt-14-dev
  libboost1.74-dev libssl-dev libspdlog-dev libtomlplusplus-dev libexpected-dev
  libpqxx-dev libpq-dev libpg-query-dev libprotobuf-c-dev libicu-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  postgresql-15 postgresql-client-15 pgbouncer openssl
  python3-psycopg2 python3-sqlalchemy libpostgresql-jdbc-java openjdk-17-jdk-headless
  chromium python3-prometheus-client
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
else
  if [ "$(id -u)" -ne 0 ]; then
    echo "install-deps: missing packages: ${missing[*]}" >&2
    echo "install-deps: run as root:  sudo $0   (or: sudo apt-get install ${missing[*]})" >&2
    exit 1
  fi
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get -o DPkg::Lock::Timeout=300 update -qq
  apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends "${missing[@]}"
fi

# npm's pg (node-postgres) for the client acceptance test, into .node/ (Debian's node-pg is
# older and does not install beside a newer Node.js). Node.js itself from Debian when absent.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "install-deps: Node.js and npm are missing: sudo apt-get install nodejs npm" >&2
    exit 1
  fi
  apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends nodejs npm
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
if [ ! -f "$root/.node/node_modules/pg/package.json" ]; then
  echo "install-deps: npm install pg@8 into .node/"
  npm install --prefix "$root/.node" --no-audit --no-fund --silent pg@8
fi

# PostgreSQL and PgBouncer refuse to run as root; tests run them as this system user.
if [ "$(id -u)" -eq 0 ] && ! id postgres >/dev/null 2>&1; then
  useradd --system --home-dir /var/lib/postgresql --shell /bin/bash postgres
fi
