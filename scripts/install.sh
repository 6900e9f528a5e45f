#!/usr/bin/env bash
# Builds the release binary and installs it, its man page and its shell completions under
# PREFIX (default ~/.local):
#   PREFIX/bin/feedcli
#   PREFIX/share/man/man1/feedcli.1
#   PREFIX/share/bash-completion/completions/feedcli
#   PREFIX/share/zsh/site-functions/_feedcli
#   PREFIX/share/fish/vendor_completions.d/feedcli.fish
# Usage: bash scripts/install.sh [PREFIX]
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
prefix="${1:-$HOME/.local}"
missing=()
pkg-config --exists libcurl 2>/dev/null || missing+=(libcurl4-openssl-dev pkg-config)
[ -f /usr/include/sqlite3.h ] || missing+=(libsqlite3-dev)
[ -f /usr/include/jq.h ] || missing+=(libjq-dev)
[ -f /usr/include/postgresql/libpq-fe.h ] || missing+=(libpq-dev)
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi

# Swift's runtime, SQLite and the C++ runtime inside the binary: it runs without a Swift toolchain.
binary="$(bash scripts/build-release.sh | tail -n 1)"

install -d "$prefix/bin" "$prefix/share/man/man1" "$prefix/share/bash-completion/completions" \
  "$prefix/share/zsh/site-functions" "$prefix/share/fish/vendor_completions.d"
install -m 0755 "$binary" "$prefix/bin/feedcli"
install -m 0644 docs/feedcli.1 "$prefix/share/man/man1/feedcli.1"
"$prefix/bin/feedcli" --generate-completion-script bash > "$prefix/share/bash-completion/completions/feedcli"
"$prefix/bin/feedcli" --generate-completion-script zsh > "$prefix/share/zsh/site-functions/_feedcli"
"$prefix/bin/feedcli" --generate-completion-script fish > "$prefix/share/fish/vendor_completions.d/feedcli.fish"
absolute="$(cd "$prefix/bin" && pwd)/feedcli"
echo "installed feedcli $("$prefix/bin/feedcli" --version) at $absolute"
case ":$PATH:" in *":$prefix/bin:"*) ;; *) echo "add $prefix/bin to your PATH" ;; esac
# Cron's PATH is /usr/bin:/bin: a crontab line names feedcli by its absolute path.
echo "a crontab line (crontab -e) that polls every five minutes:"
# and the store by --state (the one feedcli uses in this shell): cron's environment may lack the
# FEEDCLI_STATE or XDG_STATE_HOME that finds it.
case "${XDG_STATE_HOME:-}" in /*) state="$XDG_STATE_HOME/feedcli/feedcli.sqlite" ;; *) state="$HOME/.local/state/feedcli/feedcli.sqlite" ;; esac
[ -n "${FEEDCLI_STATE:-}" ] && state="$FEEDCLI_STATE"
echo "*/5 * * * * $absolute sync --jsonl --quiet --state $state >> \$HOME/feeds.jsonl 2>> \$HOME/feeds.err"
