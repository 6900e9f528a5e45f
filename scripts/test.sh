#!/usr/bin/env bash
# Installs what a fresh Debian machine lacks, builds feedcli and runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"

missing=()
pkg-config --exists libcurl 2>/dev/null || missing+=(libcurl4-openssl-dev pkg-config)
[ -f /usr/include/sqlite3.h ] || missing+=(libsqlite3-dev)
command -v jq >/dev/null || missing+=(jq)
command -v python3 >/dev/null || missing+=(python3)
command -v openssl >/dev/null || missing+=(openssl)
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi

swift build --build-tests
swift test
# The man page in docs/ must be what the command definitions generate.
bash scripts/check-manual.sh
# Every decoder of server bytes, fuzzed for a bounded time (scripts/fuzz.sh 60 for longer runs).
bash scripts/fuzz.sh "${FUZZ_SECONDS:-20}"
