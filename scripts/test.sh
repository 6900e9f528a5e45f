#!/usr/bin/env bash
# Installs what a fresh Debian machine lacks, builds feedcli and runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"

missing=()
pkg-config --exists libcurl 2>/dev/null || missing+=(libcurl4-openssl-dev pkg-config)
[ -f /usr/include/sqlite3.h ] || missing+=(libsqlite3-dev)
[ -f /usr/include/jq.h ] || missing+=(libjq-dev)
command -v jq >/dev/null || missing+=(jq)
command -v python3 >/dev/null || missing+=(python3)
command -v openssl >/dev/null || missing+=(openssl)
command -v zsh >/dev/null || missing+=(zsh)     # the completion tests run each shell
command -v fish >/dev/null || missing+=(fish)
command -v strace >/dev/null || missing+=(strace)  # shows the writes of an entry (OutputBoundaryProcessTests)
[ -f /usr/include/postgresql/libpq-fe.h ] || missing+=(libpq-dev)   # the PostgreSQL store
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
if [ ${#missing[@]} -gt 0 ]; then
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi
# Real readers that read the export and OPML (RealReaderTests), and systemd-analyze, which
# verifies the user unit (ServiceTests): their tests run where they install; one that cannot be
# installed is said so, and its tests are skipped.
readers=()
command -v systemd-analyze >/dev/null || readers+=(systemd)
command -v newsboat >/dev/null || readers+=(newsboat)
command -v sfeed >/dev/null || readers+=(sfeed)
# Debian's Python, where python3-feedparser goes (a pyenv python3 first on the PATH has none).
python=python3; [ -x /usr/bin/python3 ] && python=/usr/bin/python3
"$python" -c 'import feedparser' 2>/dev/null || readers+=(python3-feedparser)
if [ ${#readers[@]} -gt 0 ]; then
  { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${readers[@]}"; } >/dev/null 2>&1 || true
fi
for reader in newsboat sfeed systemd-analyze; do
  command -v "$reader" >/dev/null || echo "test.sh: $reader could not be installed: its tests are skipped" >&2
done
"$python" -c 'import feedparser' 2>/dev/null || echo "test.sh: feedparser could not be installed: its RealReaderTests are skipped" >&2

# A private PostgreSQL cluster for the store's tests on PostgreSQL, stopped and
# removed however the run ends. A cluster given in FEEDCLI_TEST_POSTGRES is used instead.
if [ -z "${FEEDCLI_TEST_POSTGRES:-}" ]; then
  cluster=$(mktemp -d /tmp/feedcli-postgres.XXXXXX)
  trap 'bash scripts/postgres-cluster.sh stop "$cluster"' EXIT
  FEEDCLI_TEST_POSTGRES=$(bash scripts/postgres-cluster.sh start "$cluster")
  export FEEDCLI_TEST_POSTGRES
fi

# The code as swift-format (it ships with the toolchain) lays it out, by the repository's
# .swift-format: `swift format format -i -r -p Sources Tests Fuzz Package.swift` mends it.
swift format lint --strict -r -p Sources Tests Fuzz Package.swift
# A target that imports one it does not declare (a layer reaching sideways or up) fails the build.
swift build --build-tests --explicit-target-dependency-import-check error
# A test that hangs must fail the run, with every thread's stack printed, rather than hold CI
# until its own time limit (Swift Testing's `.timeLimit` cannot end a test blocked in a wait).
# The watchdog ends only what this run started: the processes below `swift test`, found by PID.
descendants() { local child; for child in $(pgrep -P "$1" || true); do echo "$child"; descendants "$child"; done; }
swift test &
tests=$!
(
  sleep "${TEST_MINUTES:-15}m" </dev/null >/dev/null 2>&1
  kill -0 "$tests" 2>/dev/null || exit 0
  echo "swift test still running after ${TEST_MINUTES:-15} minutes; the stacks of its processes:" >&2
  started=$(descendants "$tests")
  for pid in $started; do
    ps -o pid,etime,args -p "$pid" >&2 || true
    command -v gdb >/dev/null && gdb -p "$pid" -batch -ex 'thread apply all bt 30' 2>/dev/null >&2
  done
  kill -KILL $started 2>/dev/null || true
  kill "$tests" 2>/dev/null || true
) &
watchdog=$!
status=0
wait "$tests" || status=$?
sleeper=$(pgrep -P "$watchdog" sleep || true)
{ kill -KILL "$watchdog" $sleeper && wait "$watchdog"; } 2>/dev/null || true
[ "$status" -eq 0 ] || exit "$status"
# The man page in docs/ must be what the command definitions generate.
bash scripts/check-manual.sh
# Every decoder of server bytes, fuzzed for a bounded time (scripts/fuzz.sh 60 for longer runs).
bash scripts/fuzz.sh "${FUZZ_SECONDS:-20}"
# The Debian package, installed into a clean Debian 12 root with no Swift, runs the README's first
# feed (skipped, saying why, where no clean root can be made: not root, no mount, no registry).
package_status=0
bash scripts/test-package.sh || package_status=$?
if [ "$package_status" -eq 77 ]; then
  echo "test.sh: the package test was skipped: no clean Debian 12 root can be made on this machine" >&2
elif [ "$package_status" -ne 0 ]; then
  exit "$package_status"
fi
