#!/usr/bin/env bash
# Builds the shipped configuration of feedcli and prints the binary's path (the last line):
# Swift's runtime, FoundationEssentials, SQLite and the C++ runtime inside the binary, libcurl
# (with TLS and its certificates) from the system. Start-up is most of what `feedcli next` costs,
# and every shared library loaded is symbols bound at each start (scripts/bench.sh, `next` row).
# Its own build folder (.build-static), so debug builds and tests are not disturbed.
# Usage: bash scripts/build-release.sh   (needs libcurl4-openssl-dev, libsqlite3-dev, libjq-dev and libpq-dev)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
flags=(-c release --static-swift-stdlib --scratch-path .build-static --product feedcli)
# The toolchain links the C++ runtime as `-lstdc++`, which finds the shared library first. A
# folder holding only the static archive, searched first, makes it the static one.
archive="$(find /usr/lib/gcc -name libstdc++.a 2>/dev/null | sort -V | tail -n 1)"
if [ -n "$archive" ]; then
  mkdir -p .build-static/static-libs
  ln -sf "$archive" .build-static/static-libs/libstdc++.a
  flags+=(-Xlinker -L"$PWD/.build-static/static-libs")
fi
# SQLite inside the binary, so no start binds its symbols: the package's StaticSQLite trait links
# the archive in place of the shared library (Package.swift).
flags+=(--traits StaticSQLite)
# FeedCore is several modules: generic code of one (the reactive operators, the store's rows) is
# specialized where another uses it, as it was when they were one module.
flags+=(-Xswiftc -cross-module-optimization)
swift build "${flags[@]}" 2>&1 | grep -v "the use of \`mktemp' is dangerous" | tail -n 1 >&2
echo "$(swift build "${flags[@]}" --show-bin-path)/feedcli"
