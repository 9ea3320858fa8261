#!/usr/bin/env bash
# Writes the fuzz targets' seed corpora, Fuzz/Corpus/<Target>/, from real outputs: XidTesting's
# provider (discovery, JWKS, token responses, ID tokens, UserInfo, errors, hostile ID tokens), ID
# tokens signed again with FuzzJWS's fixed keys, the RFC 7520 / RFC 8037 cookbook and Wycheproof's
# JOSE vectors (from $XID_TEST_VECTORS or ../shared/vectors, when present), and hand-written JSON
# edge cases. Each target's folder is replaced. The provider's keys are new on every run, so its
# tokens and keys differ from one run to the next; commit the result only when the seeds should change.
#
#   scripts/make-fuzz-corpus.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
vectors="${XID_TEST_VECTORS:-$root/../shared/vectors}"
cd "$root/Fuzz"
# An ordinary build (no sanitizers), in a folder of its own so that it never invalidates the fuzz build.
nice -n 15 swift build --product MakeFuzzCorpus --scratch-path .build/corpus-maker >&2
.build/corpus-maker/debug/MakeFuzzCorpus Corpus "$vectors"
total=$(find Corpus -type f -exec cat {} + | wc -c)
echo "total: $total bytes in $(find Corpus -type f | wc -l) files"
if ((total > 200 * 1024)); then
  echo "make-fuzz-corpus.sh: the corpus is over 200 KB; keep it small" >&2
  exit 1
fi
