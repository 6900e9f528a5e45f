#!/usr/bin/env bash
# The README's demo, offline: builds feedcli, starts the fixture server (Fixtures/serve.py,
# python3 standard library) on 127.0.0.1, reads and lists posts against it, then stops it.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
if ! pkg-config --exists libcurl 2>/dev/null || ! command -v jq >/dev/null || [ ! -f /usr/include/jq.h ] \
    || [ ! -f /usr/include/sqlite3.h ]; then
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq libcurl4-openssl-dev libsqlite3-dev libjq-dev pkg-config jq
fi

swift build -c release --product feedcli 2>&1 | tail -n 1
feedcli="$(swift build -c release --show-bin-path)/feedcli"

work="$(mktemp -d)"
python3 Fixtures/serve.py --port-file "$work/port" >/dev/null &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 50); do [ -s "$work/port" ] && break; sleep 0.1; done
base="http://127.0.0.1:$(cat "$work/port")"
export FEEDCLI_STATE="$work/feedcli.sqlite"

step() { printf '\n$ %s\n' "$*"; }

step feedcli feeds add local "$base/posts" --kind indexed
"$feedcli" feeds add local "$base/posts" --kind indexed
for _ in 1 2 3; do
  step feedcli next local
  "$feedcli" next local
done
step feedcli list local
"$feedcli" list local
step "feedcli list local --json | jq '.[].title'"
"$feedcli" list local --json | jq '.[].title'

step feedcli feeds add memories "$base/graph" --kind graph
"$feedcli" feeds add memories "$base/graph" --kind graph
step feedcli sync memories
"$feedcli" sync memories
step feedcli feeds add fireball "$base/jsonfeed/DaringFireball/1.json" --kind jsonfeed
"$feedcli" feeds add fireball "$base/jsonfeed/DaringFireball/1.json" --kind jsonfeed
step "feedcli sync fireball --jsonl | jq -r '.published + \"  \" + .title'"
"$feedcli" sync fireball --jsonl | jq -r '.published + "  " + .title'
step "feedcli feeds add golang \"$base/r/golang/new.json\"   # no --kind: it is a Reddit listing (the reddit preset)"
"$feedcli" feeds add golang "$base/r/golang/new.json"
step "feedcli sync golang --jsonl | jq -r '.author + \": \" + .title + \"  \" + .url'"
"$feedcli" sync golang --jsonl | jq -r '.author + ": " + .title + "  " + .url'
step "feedcli sync memories fireball   # again: nothing new, so nothing at all (the server answers 304)"
"$feedcli" sync memories fireball
echo "(exit $?)"
step feedcli status fireball
"$feedcli" status fireball

cat <<CRON

A crontab line that polls every 5 minutes and appends new entries as JSON Lines:
*/5 * * * * $HOME/.local/bin/feedcli sync --jsonl --quiet >> \$HOME/feeds.jsonl 2>> \$HOME/feeds.err
(cron's PATH lacks ~/.local/bin: use the absolute path that scripts/install.sh prints)
CRON
