#!/usr/bin/env bash
# Builds the Debian package feedcli_VERSION_amd64.deb from the shipped (static) release build and
# prints its path (the last line). What the package holds:
#   /usr/bin/feedcli                                      the binary: Swift's runtime, SQLite and
#                                                         the C++ runtime inside it
#   /usr/share/man/man1/feedcli.1.gz                      the man page
#   /usr/share/bash-completion/completions/feedcli        bash completion
#   /usr/share/zsh/vendor-completions/_feedcli            zsh completion (Debian's folder for it)
#   /usr/share/fish/vendor_completions.d/feedcli.fish     fish completion
#   /usr/share/doc/feedcli/{README.md.gz,REFERENCE.md.gz,changelog.gz,copyright}
#                                                         (REFERENCE: what the README links to)
#   /usr/lib/systemd/user/feedcli-follow.service          `follow` as a user service
# It depends only on what Debian 12 ships: libcurl4 (linked) and libjq1 (loaded by the jq worker
# when a json feed or a --filter runs), recommends ca-certificates for https, and suggests libpq5
# (loaded only for a store at a postgresql:// URL).
# Usage: bash scripts/package.sh [OUTPUT_FOLDER]   (default: dist/; needs what build-release.sh
# needs, and dpkg-deb, which every Debian has)
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-dist}"
mkdir -p "$out"
binary="$(bash scripts/build-release.sh | tail -n 1)"
version="$("$binary" --version)"
root="$(mktemp -d)"; chmod 0755 "$root"
trap 'rm -rf "$root"' EXIT

install -d "$root/DEBIAN" "$root/usr/bin" "$root/usr/share/man/man1" \
  "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" \
  "$root/usr/share/fish/vendor_completions.d" "$root/usr/share/doc/feedcli" "$root/usr/lib/systemd/user"
install -m 0755 "$binary" "$root/usr/bin/feedcli"
install -m 0644 packaging/systemd/feedcli-follow.service "$root/usr/lib/systemd/user/feedcli-follow.service"
strip --strip-unneeded "$root/usr/bin/feedcli"
gzip -9n < docs/feedcli.1 > "$root/usr/share/man/man1/feedcli.1.gz"
"$binary" --generate-completion-script bash > "$root/usr/share/bash-completion/completions/feedcli"
"$binary" --generate-completion-script zsh > "$root/usr/share/zsh/vendor-completions/_feedcli"
"$binary" --generate-completion-script fish > "$root/usr/share/fish/vendor_completions.d/feedcli.fish"
gzip -9n < README.md > "$root/usr/share/doc/feedcli/README.md.gz"
gzip -9n < docs/REFERENCE.md > "$root/usr/share/doc/feedcli/REFERENCE.md.gz"
gzip -9n < CHANGELOG.md > "$root/usr/share/doc/feedcli/changelog.gz"
cat > "$root/usr/share/doc/feedcli/copyright" <<'COPYRIGHT'
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: feedcli
Comment: SQLite (public domain) and the Swift runtime (Apache-2.0 with Runtime Library
 Exception) are linked into the binary.
COPYRIGHT
chmod 0644 "$root/usr/share/bash-completion/completions/feedcli" "$root/usr/share/zsh/vendor-completions/_feedcli" \
  "$root/usr/share/fish/vendor_completions.d/feedcli.fish" "$root"/usr/share/doc/feedcli/*

# What the binary links, checked rather than assumed: anything beyond libc, libm, libgcc_s and
# libcurl would be a dependency the control file does not name.
unexpected="$(objdump -p "$root/usr/bin/feedcli" | awk '/NEEDED/ {print $2}' \
  | grep -v -E '^(libc\.so\.6|libm\.so\.6|libgcc_s\.so\.1|libcurl\.so\.4|ld-linux-x86-64\.so\.2)$' || true)"
if [ -n "$unexpected" ]; then
  echo "package.sh: the binary links libraries the package does not depend on: $unexpected" >&2
  exit 1
fi

size="$(du -sk --exclude=DEBIAN "$root" | cut -f1)"
cat > "$root/DEBIAN/control" <<CONTROL
Package: feedcli
Version: $version
Architecture: amd64
Maintainer: feedcli maintainers <maintainers@users.noreply.a-seed-05f3e07a.example>
Installed-Size: $size
Depends: libc6 (>= 2.34), libgcc-s1, libcurl4 (>= 7.74), libjq1 (>= 1.6)
Recommends: ca-certificates
Suggests: libpq5
Section: net
Priority: optional
Description: command-line client for JSON post feeds
 feedcli reads JSON feeds (JSON Feed, Graph-style and Link-paged APIs, any JSON
 API through sandboxed jq expressions) into a local store:
 'feedcli next' reads the next post, 'feedcli list' shows what accumulated (as
 text, JSON or JSON Lines for jq), and 'feedcli sync' polls from cron.
CONTROL
deb="$out/feedcli_${version}_amd64.deb"
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
built="$(cd "$(dirname "$deb")" && pwd)/$(basename "$deb")"
# What was made and how to install it (stderr); the package's path alone is the last line of stdout.
echo "package.sh: built $built ($(( $(stat -c %s "$deb") / 1024 )) KiB: feedcli $version, the man page, completions," \
  "the systemd user unit); install it with: sudo apt install $built" >&2
echo "$built"
