#!/usr/bin/env bash
# Checks that docs/feedcli.1 is the man page the command definitions generate (through
# swift-argument-parser's generate-manual plugin), its generic EXIT STATUS replaced by the
# sections written by hand in docs/feedcli.1.sections (EXIT STATUS, ENVIRONMENT, FILES,
# EXAMPLES); the date line is not compared.
# Usage: bash scripts/check-manual.sh [--update]   (--update rewrites docs/feedcli.1)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
swift package --allow-writing-to-package-directory generate-manual >/dev/null
plugin=.build/plugins/GenerateManual/outputs/FeedCLI/feedcli.1
generated=.build/feedcli.1
# Everything up to the plugin's `.Sh "EXIT STATUS"`, then the hand-written sections.
sed '/^\.Sh "EXIT STATUS"/,$d' "$plugin" > "$generated"
cat docs/feedcli.1.sections >> "$generated"
if [ "${1:-}" = "--update" ]; then
  cp "$generated" docs/feedcli.1
  echo "docs/feedcli.1 updated"
  exit 0
fi
if ! diff <(grep -v '^\.Dd ' "$generated") <(grep -v '^\.Dd ' docs/feedcli.1) >/dev/null; then
  diff <(grep -v '^\.Dd ' "$generated") <(grep -v '^\.Dd ' docs/feedcli.1) | head -20 >&2
  echo "docs/feedcli.1 is out of date: run bash scripts/check-manual.sh --update" >&2
  exit 1
fi
echo "docs/feedcli.1 is current"
