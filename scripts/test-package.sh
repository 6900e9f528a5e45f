#!/usr/bin/env bash
# Installs the Debian package into a clean Debian 12 root with no Swift in it (debootstrap
# --variant=minbase bookworm from Debian's registry), with `apt install ./feedcli_…deb` as a user
# would, and runs the README's first-feed steps there as a plain user against the fixture server,
# which runs outside (a chroot shares the loopback). Prints every step and its output; exits
# non-zero at the first step that fails.
# The clean root is made once and kept as a tarball (FEEDCLI_DEBIAN_ROOT, default
# /var/tmp/feedcli-bookworm-minbase.tar); every run unpacks a fresh copy of it.
# Usage: bash scripts/test-package.sh [PACKAGE.deb]   (as root: debootstrap and chroot need it;
# default: the package scripts/package.sh builds)
# Exit status: 0 when every step passed, 1 when a step failed, 77 when the clean root cannot be
# made here (not root, no mount, Debian's registry unreachable): nothing was tested.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "test-package.sh: run as root (debootstrap, chroot)" >&2; exit 77; }
command -v debootstrap >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap; }
deb="${1:-$(bash scripts/package.sh | tail -n 1)}"
cache="${FEEDCLI_DEBIAN_ROOT:-/var/tmp/feedcli-bookworm-minbase.tar}"
work="$(mktemp -d)"; root="$work/root"
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null
  for mount in "$root/proc" "$root/dev"; do mountpoint -q "$mount" && umount -l "$mount"; done
  rm -rf "$work"
}
trap cleanup EXIT

if [ ! -f "$cache" ]; then
  echo "# making a clean Debian 12 root (once): debootstrap --variant=minbase bookworm"
  debootstrap --variant=minbase bookworm "$work/fresh" http://deb.debian.org/debian > "$work/debootstrap.log" 2>&1 \
    || { tail -n 5 "$work/debootstrap.log" >&2; echo "test-package.sh: debootstrap failed" >&2; exit 77; }
  tar -C "$work/fresh" -cf "$cache.tmp" . && mv "$cache.tmp" "$cache"
  rm -rf "$work/fresh"
fi
mkdir "$root" && tar -C "$root" -xf "$cache"
{ mount -t proc proc "$root/proc" && mount --bind /dev "$root/dev"; } \
  || { echo "test-package.sh: cannot mount /proc and /dev in the clean root" >&2; exit 77; }
cp /etc/resolv.conf "$root/etc/resolv.conf"
cp "$deb" "$root/tmp/"
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME="${HOME_IN_ROOT:-/root}" LANG=C.UTF-8 "$@"; }

echo "# in the clean root: $(cat "$root/etc/debian_version"), swift: $(in_root sh -c 'command -v swift || echo none')"
echo "\$ apt install ./$(basename "$deb")"
# The registry unreachable from the root is this machine's limit (77); the package not
# installing from a reachable registry is the package's fault (1).
if ! in_root apt-get update -qq > "$work/apt.log" 2>&1; then
  tail -n 5 "$work/apt.log" >&2; echo "test-package.sh: Debian's registry cannot be reached from the clean root" >&2; exit 77
fi
if ! in_root sh -c "DEBIAN_FRONTEND=noninteractive apt-get install -y -qq /tmp/$(basename "$deb")" > "$work/apt.log" 2>&1; then
  cat "$work/apt.log" >&2; echo "test-package.sh: apt install failed" >&2; exit 1
fi
awk '/^Setting up/ { n++; if ($3 == "feedcli") print "  " $0 } END { print "  (" n " packages set up with it)" }' "$work/apt.log"
in_root dpkg -s feedcli | grep -E '^(Status|Version|Depends):'
in_root useradd -m reader

port_file="$work/port"
python3 Fixtures/serve.py --port 0 --port-file "$port_file" >/dev/null 2>&1 &
server_pid=$!
for _ in $(seq 1 100); do [ -s "$port_file" ] && break; sleep 0.05; done
port="$(cat "$port_file")"

# The README's first feed, as the user `reader`, each step printed with its output.
steps=(
  "feedcli --version"
  "feedcli feeds add fireball http://127.0.0.1:$port/jsonfeed/DaringFireball.json"
  "feedcli sync fireball | tail -n 3"
  "feedcli next fireball"
  "feedcli status"
  "feedcli feeds add picked http://127.0.0.1:$port/jsonfeed/inessential.json --kind jsonfeed --filter '.title != null'"
  "feedcli sync picked | wc -l"
  "feedcli list --jsonl | wc -l"
  "ls /usr/share/man/man1/feedcli.1.gz /usr/share/bash-completion/completions/feedcli /usr/share/zsh/vendor-completions/_feedcli /usr/share/fish/vendor_completions.d/feedcli.fish /usr/share/doc/feedcli/REFERENCE.md.gz"
)
for step in "${steps[@]}"; do
  echo "\$ $step"
  HOME_IN_ROOT=/home/reader in_root /usr/sbin/runuser -u reader -- bash -o pipefail -c "$step" 2>&1 \
    | sed 's/^/  /' | head -n 12
  [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "test-package.sh: failed: $step" >&2; exit 1; }
done
# The user unit as installed, verified by systemd (the host's: the clean root has no systemd).
unit=/usr/lib/systemd/user/feedcli-follow.service
echo "\$ systemd-analyze --user verify $unit"
command -v systemd-analyze >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends systemd >/dev/null; }
mkdir -p "$work/runtime" && chmod 700 "$work/runtime"
# Its ExecStart names /usr/bin/feedcli, which is in the root, not on the host: a copy names it there.
sed "s|/usr/bin/feedcli|$root/usr/bin/feedcli|g" "$root$unit" > "$work/feedcli-follow.service"
verify=$(XDG_RUNTIME_DIR="$work/runtime" systemd-analyze --user verify --man=no "$work/feedcli-follow.service" 2>&1)
[ -z "$verify" ] || { echo "$verify" | sed 's/^/  /'; echo "test-package.sh: the unit does not verify" >&2; exit 1; }
echo "# the package installs and runs in a clean Debian 12 root"
