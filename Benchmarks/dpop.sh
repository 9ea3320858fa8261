#!/usr/bin/env bash
# What DPoP costs a client: proof creation against OpenSSL's raw ECDSA P-256 signing rate, and
# Xid.send over loopback with DPoP against Bearer.
#
#   Benchmarks/dpop.sh [--seconds N] [--rounds R] [--batches B] [--skip-build]
#
# 1. builds the XidDPoPBenchmarks product in release mode;
# 2. runs `openssl speed -mr -seconds N ecdsap256` (one process, one thread; rates per second of user
#    CPU time) and takes the sign/s from its machine-readable line `+F4:<i>:256:<sign/s>:<verify/s>`;
# 3. runs XidDPoPBenchmarks --seconds N --batches B, which prints (per second of the thread's CPU
#    time, each interleaved in 100 ms slices with the raw signature `openssl speed` times):
#      proof    DPoPProof.make(key:method:url:accessToken:nonce:issuedAt:), a resource proof;
#      headers  Xid.authorizationHeaders(method:url:), what a session makes per request;
#    and Xid.send(GET) medians over loopback, DPoP against Bearer (wall-clock, batches rotating), with
#    a Bearer request padded to the proof's size as a third variant, and the process's CPU time;
# 4. prints a Markdown table: each proof rate against `openssl speed`'s sign rate (goal ≥ 0.80), the
#    in-process ratio, and the send medians with their difference (goal ≤ +100 µs) and ratio.
#
# --rounds R (default 1) repeats steps 2 and 3; rates are the best of the rounds, in-process ratios and
# send figures the medians. Raw outputs go to Benchmarks/results/ (ignored by git).

set -euo pipefail

seconds=3
rounds=1
batches=200
skip_build=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --seconds) seconds="${2:?--seconds needs a value}"; shift 2 ;;
    --rounds) rounds="${2:?--rounds needs a value}"; shift 2 ;;
    --batches) batches="${2:?--batches needs a value}"; shift 2 ;;
    --skip-build) skip_build=1; shift ;;
    -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "dpop.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
[[ "$seconds" =~ ^[1-9][0-9]*$ ]] || { echo "dpop.sh: --seconds must be a positive whole number" >&2; exit 2; }

cd "$(dirname "$0")/.."
die() { echo "dpop.sh: $*" >&2; exit 1; }
mkdir -p Benchmarks/results
stamp="$(date -u +%Y%m%dT%H%M%SZ)"
openssl_out="Benchmarks/results/dpop-openssl-$stamp.txt"
xid_out="Benchmarks/results/dpop-xid-$stamp.txt"

if [[ $skip_build -eq 0 ]]; then
  swift build -c release --product XidDPoPBenchmarks >&2 || die "the release build failed"
fi
binary="$(swift build -c release --show-bin-path)/XidDPoPBenchmarks"
[[ -x "$binary" ]] || die "no $binary; build it or drop --skip-build"

for round in $(seq 1 "$rounds"); do
  echo "== round $round/$rounds: openssl speed -mr -seconds $seconds ecdsap256" >&2
  openssl speed -mr -seconds "$seconds" ecdsap256 >>"$openssl_out" 2>&1 || die "openssl speed failed ($openssl_out)"
  echo "== round $round/$rounds: XidDPoPBenchmarks --seconds $seconds --batches $batches" >&2
  "$binary" --seconds "$seconds" --batches "$batches" >>"$xid_out" || die "XidDPoPBenchmarks failed ($xid_out)"
done

sign="$(awk -F: '$1 == "+F4" && $3 == 256 { if ($4 > best) best = $4 } END { print best + 0 }' "$openssl_out")"
awk -v sign="$sign" -v rounds="$rounds" '
  function field(name,   i, kv) { for (i = 3; i <= NF; i++) { split($i, kv, "="); if (kv[1] == name) return kv[2] + 0 } return -1 }
  function median(list, n,   i, j, t) {
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (list[j] < list[i]) { t = list[i]; list[i] = list[j]; list[j] = t }
    return n % 2 ? list[(n + 1) / 2] : (list[n / 2] + list[n / 2 + 1]) / 2
  }
  $1 == "dpop" && ($2 == "proof" || $2 == "headers") {
    what = $2; rate = field("cpu_ops_per_s"); if (rate > best[what]) best[what] = rate
    n[what]++; inproc[what, n[what]] = field("inproc_ratio")
  }
  $1 == "dpop" && $2 == "send" {
    s++; bearer[s] = field("bearer_median_us"); dpop[s] = field("dpop_median_us")
    diff[s] = field("dpop_minus_bearer_us"); ratio[s] = field("ratio"); padded[s] = field("padded_median_us")
    cpub[s] = field("bearer_cpu_us"); cpup[s] = field("padded_cpu_us"); cpud[s] = field("dpop_cpu_us")
  }
  END {
    if (sign <= 0) { print "dpop.sh: cannot read the sign rate from openssl speed" > "/dev/stderr"; exit 1 }
    printf "| Proof | Xid proofs/s | µs/proof | openssl speed ecdsap256 sign/s | Ratio | Goal | Status | In-process ratio |\n"
    printf "|---|--:|--:|--:|--:|--:|---|--:|\n"
    split("proof headers", names, " ")
    label["proof"] = "`DPoPProof.make` (resource proof: `ath`, `nonce`)"
    label["headers"] = "`Xid.authorizationHeaders(method:url:)`"
    for (k = 1; k <= 2; k++) {
      w = names[k]
      if (!(w in best)) continue
      for (i = 1; i <= n[w]; i++) list[i] = inproc[w, i]
      r = best[w] / sign
      printf "| %s | %.0f | %.1f | %.0f | %.3f | 0.80 | %s | %.3f |\n", label[w], best[w], 1e6 / best[w], sign, r, (r >= 0.8 ? "PASS" : "BELOW"), median(list, n[w])
    }
    if (s > 0) {
      for (i = 1; i <= s; i++) list[i] = bearer[i]; b = median(list, s)
      for (i = 1; i <= s; i++) list[i] = dpop[i]; d = median(list, s)
      for (i = 1; i <= s; i++) list[i] = diff[i]; m = median(list, s)
      for (i = 1; i <= s; i++) list[i] = ratio[i]; q = median(list, s)
      for (i = 1; i <= s; i++) list[i] = padded[i]; p = median(list, s)
      for (i = 1; i <= s; i++) list[i] = cpub[i]; cb = median(list, s)
      for (i = 1; i <= s; i++) list[i] = cpup[i]; cp = median(list, s)
      for (i = 1; i <= s; i++) list[i] = cpud[i]; cd = median(list, s)
      printf "\n| Xid.send over loopback | Bearer median µs | DPoP median µs | DPoP − Bearer µs | Goal | Status | Ratio | Bearer + proof-sized header µs | CPU µs/request: Bearer, padded, DPoP |\n"
      printf "|---|--:|--:|--:|--:|---|--:|--:|---|\n"
      printf "| GET, 200 from a server that checks nothing | %.1f | %.1f | %+.1f | ≤ +100 | %s | %.3f | %.1f | %.0f, %.0f, %.0f |\n", b, d, m, (m <= 100 ? "PASS" : "ABOVE"), q, p, cb, cp, cd
    }
  }' "$xid_out"
echo "(raw outputs: $openssl_out, $xid_out)" >&2
