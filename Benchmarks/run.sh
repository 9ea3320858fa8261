#!/usr/bin/env bash
# Compares Xid's full ID-token verification with OpenSSL's raw verify rate on this machine.
#
#   Benchmarks/run.sh [--seconds N] [--write docs/performance.md] [--skip-build]
#
# 1. builds the XidBenchmarks product in release mode;
# 2. runs `openssl speed -mr -seconds N ecdsap256 rsa2048 ed25519` (one process, one thread) and
#    takes the verify/s of each from its machine-readable summary lines, which in OpenSSL 3.0 read
#        +F2:<i>:2048:<rsa sign/s>:<rsa verify/s>
#        +F4:<i>:256:<ecdsa sign/s>:<ecdsa verify/s>
#        +F6:<i>:253:Ed25519:<eddsa sign/s>:<eddsa verify/s>
#    (the same numbers as the sign/s and verify/s columns of the human-readable table);
# 3. runs XidBenchmarks --seconds N (single-threaded, full verification per token);
# 4. prints, per algorithm, Xid ops/s against the OpenSSL reference (ES256 vs ecdsap256 verify,
#    RS256 and PS256 vs rsa2048 verify, EdDSA vs ed25519 verify), the ratio, the goal and PASS/BELOW.
#
# With --write FILE it also writes the table as Markdown with the machine facts. Anything in an
# existing FILE after the line "<!-- end of generated results -->" is kept (hand-written notes).
#
# Exit status: 0 when everything ran, whatever the ratios (the script reports; it does not gate);
# non-zero when the build, openssl or the benchmark fails, or their output cannot be parsed.
# Raw outputs are kept in Benchmarks/results/ (ignored by git).

set -euo pipefail

seconds=3
write_path=""
skip_build=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --seconds) seconds="${2:?--seconds needs a value}"; shift 2 ;;
    --write) write_path="${2:?--write needs a path}"; shift 2 ;;
    --skip-build) skip_build=1; shift ;;
    -h | --help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
if ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
  echo "run.sh: --seconds must be a positive whole number (openssl speed needs one)" >&2
  exit 2
fi

die() { echo "run.sh: $*" >&2; exit 1; }

package_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$package_root"
results_dir="Benchmarks/results"
mkdir -p "$results_dir"
stamp="$(date -u +%Y%m%dT%H%M%SZ)"
openssl_out="$results_dir/openssl-$stamp.txt"
xid_out="$results_dir/xid-$stamp.txt"

command -v openssl >/dev/null || die "openssl is not installed"
command -v swift >/dev/null || die "swift is not installed"

# --- Build ------------------------------------------------------------------------------------------
if [[ $skip_build -eq 0 ]]; then
  echo "== swift build -c release --product XidBenchmarks" >&2
  swift build -c release --product XidBenchmarks >&2 || die "the release build failed"
fi
bin_dir="$(swift build -c release --show-bin-path)"
benchmark="$bin_dir/XidBenchmarks"
[[ -x "$benchmark" ]] || die "$benchmark is missing; run without --skip-build"

# --- Machine state ----------------------------------------------------------------------------------
# CPU time from /proc/stat (user nice system idle iowait irq softirq steal), sampled around the runs,
# to tell whether something else was using the machine while it was measured.
cpu_sample() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $5 + $6, $9; exit }' /proc/stat; }
cores="$(nproc)"
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
read -r busy0 idle0 steal0 < <(cpu_sample)

# --- OpenSSL ----------------------------------------------------------------------------------------
echo "== openssl speed -mr -seconds $seconds ecdsap256 rsa2048 ed25519" >&2
openssl speed -mr -seconds "$seconds" ecdsap256 rsa2048 ed25519 >"$openssl_out" 2>&1 \
  || die "openssl speed failed (output in $openssl_out)"
ossl_rsa="$(awk -F: '$1 == "+F2" && $3 == "2048" { print $5 }' "$openssl_out")"
ossl_ec="$(awk -F: '$1 == "+F4" && $3 == "256" { print $5 }' "$openssl_out")"
ossl_ed="$(awk -F: '$1 == "+F6" && $4 == "Ed25519" { print $6 }' "$openssl_out")"
for value in "$ossl_rsa" "$ossl_ec" "$ossl_ed"; do
  [[ "$value" =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "cannot read the verify rates from openssl speed (see $openssl_out)"
done

# --- Xid --------------------------------------------------------------------------------------------
echo "== $benchmark --seconds $seconds" >&2
"$benchmark" --seconds "$seconds" >"$xid_out" || die "XidBenchmarks failed (output in $xid_out)"

read -r busy1 idle1 steal1 < <(cpu_sample)
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"
# Share of all cores busy during the runs, and how many cores' worth of that was not ours (the
# benchmarks keep one core busy).
read -r busy_pct other_cores steal_pct < <(awk -v b="$((busy1 - busy0))" -v i="$((idle1 - idle0))" \
  -v s="$((steal1 - steal0))" -v n="$cores" 'BEGIN {
    t = b + i + s; if (t <= 0) t = 1
    u = b / t; o = u * n - 1; if (o < 0) o = 0
    printf "%.0f %.2f %.1f\n", 100 * u, o, 100 * s / t }')
if awk -v o="$other_cores" 'BEGIN { exit !(o >= 0.25) }'; then
  machine_state="busy: about $other_cores cores' worth of other work ran alongside (CPU ${busy_pct}% busy overall); numbers are noisy"
else
  machine_state="quiet: no significant other work (CPU ${busy_pct}% busy overall, one core being the benchmark)"
fi

# --- Table ------------------------------------------------------------------------------------------
# Rows: algorithm, Xid ops/s, Xid µs/op, parse µs, OpenSSL reference, OpenSSL verify/s, ratio, goal, status
rows="$(awk -v rsa="$ossl_rsa" -v ec="$ossl_ec" -v ed="$ossl_ed" '
  $1 == "xid" {
    alg = $2
    for (f = 3; f <= NF; f++) { split($f, kv, "="); v[kv[1]] = kv[2] }
    if (alg == "ES256") { ref = "ecdsap256"; r = ec; goal = 0.90 }
    else if (alg == "RS256") { ref = "rsa2048"; r = rsa; goal = 0.75 }
    else if (alg == "PS256") { ref = "rsa2048"; r = rsa; goal = 0 }
    else if (alg == "EdDSA") { ref = "ed25519"; r = ed; goal = 0 }
    else next
    ratio = v["verify_ops_per_s"] / r
    status = goal == 0 ? "-" : (ratio >= goal ? "PASS" : "BELOW")
    printf "%s|%.0f|%.1f|%.1f|%s|%.0f|%.2f|%s|%s\n", alg, v["verify_ops_per_s"], v["us_per_op"], \
      v["parse_us"], ref, r, ratio, (goal == 0 ? "-" : sprintf("%.2f", goal)), status
    n++
  }
  END { if (n != 4) exit 1 }' "$xid_out")" || die "cannot read the four result lines of XidBenchmarks (see $xid_out)"

print_table() {
  printf '%-7s %12s %9s %9s  %-10s %13s %7s %6s  %s\n' \
    algorithm "Xid ops/s" "Xid µs" "parse µs" reference "OpenSSL ops/s" ratio goal status
  while IFS='|' read -r alg xops xus parse ref rops ratio goal status; do
    printf '%-7s %12s %9s %9s  %-10s %13s %7s %6s  %s\n' \
      "$alg" "$xops" "$xus" "$parse" "$ref" "$rops" "$ratio" "$goal" "$status"
  done <<<"$rows"
}

openssl_version="$(openssl version)"
swift_version="$(swift --version 2>&1 | head -n1)"
cpu_model="$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
cpu_mhz="$(awk -F': ' '/^cpu MHz/ { printf "%.0f", $2; exit }' /proc/cpuinfo)"
cpu_flags="$(awk -F': ' '/^flags/ { n = split($2, f, " "); for (i = 1; i <= n; i++) if (f[i] ~ /^(avx2|bmi2|adx|sha_ni|avx512f|avx512ifma)$/) s = s " " f[i]; print substr(s, 2); exit }' /proc/cpuinfo)"
virtualised="$(grep -qw hypervisor /proc/cpuinfo && echo "virtual machine" || echo "bare metal")"
kernel="$(uname -sr)"
run_date="$(date -u '+%Y-%m-%d %H:%M UTC')"

echo
print_table
echo
echo "machine: $cpu_model, $cores cores, $virtualised; $openssl_version; $swift_version"
echo "state:   $machine_state; load average $load_before before, $load_after after; steal ${steal_pct}%"
echo "raw:     $openssl_out, $xid_out"

# --- Markdown ---------------------------------------------------------------------------------------
if [[ -n "$write_path" ]]; then
  marker="<!-- end of generated results -->"
  kept=""
  if [[ -f "$write_path" ]] && grep -qxF "$marker" "$write_path"; then
    kept="$(awk -v m="$marker" 'found { print } $0 == m { found = 1 }' "$write_path")"
  fi
  mkdir -p "$(dirname "$write_path")"
  {
    echo "# Performance: ID-token verification"
    echo
    echo "Xid verifies every ID token it receives, so verification should cost little more than the"
    echo "signature check itself. \`Benchmarks/XidBenchmarks\` (release build) times the full verification"
    echo "of one realistic ID token per algorithm, single-threaded, with the key set prepared beforehand:"
    echo "\`SignedJWT(verifying:using:allowedAlgorithms:)\` (base64url, header and claims JSON, key"
    echo "selection, SHA-256 and the OpenSSL signature check), then \`validateTimes(now:leeway:)\` and the"
    echo "\`iss\`, \`aud\`, \`azp\` and \`nonce\` comparisons. The token has a \`kid\`/\`typ: JWT\` header and the"
    echo "claims of a large provider (about 1 KB for ES256 and EdDSA, 1.2 KB for RS256 and PS256)."
    echo "\`Benchmarks/run.sh\` runs \`openssl speed\` for ecdsap256, rsa2048 and ed25519 in the same run and"
    echo "divides Xid's rate by OpenSSL's raw verify rate (which hashes nothing and reuses one context), so"
    echo "the ratio is the share of the machine's signature-verification speed that survives all of Xid's"
    echo "work around it. Goals: ES256 at least 0.90 of ECDSA P-256 verify, RS256 at least 0.75 of"
    echo "RSA-2048 verify. *Parse µs* is the same token's parsing alone (\`CompactJWS\` and \`JWTClaims\`"
    echo "without the signature)."
    echo
    echo "Regenerate with \`Benchmarks/run.sh --seconds $seconds --write $write_path\`."
    echo
    echo "## Results"
    echo
    echo "| Algorithm | Xid ops/s | Xid µs/op | Parse µs | OpenSSL reference | OpenSSL verify/s | Ratio | Goal | Status |"
    echo "|---|--:|--:|--:|---|--:|--:|--:|---|"
    while IFS='|' read -r alg xops xus parse ref rops ratio goal status; do
      echo "| $alg | $xops | $xus | $parse | $ref | $rops | $ratio | $goal | $status |"
    done <<<"$rows"
    echo
    echo "## Machine"
    echo
    echo "- Date: $run_date, $seconds s per measurement"
    echo "- CPU: $cpu_model, ${cpu_mhz} MHz, $cores cores, $virtualised (flags: ${cpu_flags:-none of avx2/bmi2/adx/sha_ni})"
    echo "- Kernel: $kernel"
    echo "- OpenSSL: $openssl_version"
    echo "- Swift: $swift_version"
    echo "- State: $machine_state; load average $load_before before and $load_after after; steal ${steal_pct}%"
    echo
    echo "$marker"
    if [[ -n "$kept" ]]; then printf '%s\n' "$kept"; fi
  } >"$write_path.tmp"
  mv "$write_path.tmp" "$write_path"
  echo "wrote $write_path" >&2
fi
