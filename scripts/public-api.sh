#!/usr/bin/env bash
# Counts the public declarations of each library module: every folder of Sources/ except COpenSSL,
# COpenSSLLoader and XidTool.
#
#   scripts/public-api.sh [--list | --help]
#
# A public declaration is a line of a Swift file that starts with `public` or `open`, after any
# attributes on the same line (`@discardableResult`, `@inlinable`, `@MainActor`…) and `nonisolated`
# or `nonisolated(nonsending)`. Comments and multi-line string literals are not read. Prints one line
# per module, sorted by name, then the total; --list prints the declarations themselves instead
# (file:line: text).
set -euo pipefail

usage() { sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; }
list=0
case ${1-} in
  "") ;;
  --list) list=1 ;;
  -h | --help) usage; exit 0 ;;
  *) echo "public-api.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
esac
cd "$(dirname "$0")/.."
export LC_ALL=C

# The public declarations of a module's Swift files, one a line.
declarations() {
  find "Sources/$1" -name '*.swift' | sort | xargs -r awk '
    FNR == 1 { comment = 0; string = 0 }
    comment { if (index($0, "*/")) comment = 0; next }
    string { if (gsub(/"""/, "&") % 2) string = 0; next }
    /^[ \t]*\/\// { next }
    { sub(/^[ \t]*\/\*.*\*\//, "") }
    /^[ \t]*\/\*/ { comment = 1; next }
    /^[ \t]*((@[A-Za-z_][A-Za-z0-9_]*|nonisolated)(\([^)]*\))?[ \t]+)*(public|open)[ \t]+[A-Za-z@]/ {
      print FILENAME ":" FNR ": " $0
    }
    gsub(/"""/, "&") % 2 { string = 1 }
  '
}

total=0
for folder in Sources/*/; do
  module=$(basename "$folder")
  case $module in COpenSSL | COpenSSLLoader | XidTool) continue ;; esac
  if ((list)); then declarations "$module"; continue; fi
  n=$(declarations "$module" | wc -l)
  printf '%-16s %5d\n' "$module" "$n"
  total=$((total + n))
done
((list)) || printf '%-16s %5d\n' total "$total"
