#!/bin/sh
# Runs the fault matrix (Tests/XidSessionTests/FaultMatrix) and writes docs/reliability.md from its
# results: nothing in that file is written by hand. Arguments go to `swift test` (for example
# --skip-build, or --sanitize=thread).
#
# usage: scripts/reliability-report.sh [SWIFT_TEST_ARGUMENTS...]
set -eu
cd "$(dirname "$0")/.."
results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT INT TERM
XID_RELIABILITY_RESULTS="$results" swift test --filter 'XidSessionTests.FaultMatrixTests' "$@"
for mode in one-process eight-processes; do
  [ -s "$results/$mode.json" ] || { echo "reliability-report: the suite wrote no $mode results" >&2; exit 1; }
done
python3 scripts/render-reliability.py "$results" > docs/reliability.md.tmp
mv docs/reliability.md.tmp docs/reliability.md
echo "reliability-report: wrote docs/reliability.md"
