#!/usr/bin/env bash
# Compares Xid's full ID-token verification with OpenSSL's raw verify rate on this machine.
#
#   Benchmarks/run.sh [--seconds N] [--rounds R] [--clock wall|cpu] [--write docs/performance.md]
#                     [--skip-build]
#
# 1. builds the XidBenchmarks product in release mode;
# 2. runs `openssl speed -elapsed -mr -seconds N ecdsap256 rsa2048 ed25519` (one process, one
#    thread) and takes the verify/s of each from its machine-readable summary lines, which in
#    OpenSSL 3.0 read
#        +F2:<i>:2048:<rsa sign/s>:<rsa verify/s>
#        +F4:<i>:256:<ecdsa sign/s>:<ecdsa verify/s>
#        +F6:<i>:253:Ed25519:<eddsa sign/s>:<eddsa verify/s>
#    (the numbers of the sign/s and verify/s columns of the human-readable table);
# 3. runs XidBenchmarks --seconds N (single-threaded, full verification per token; on Linux it also
#    reports an in-process ratio against the same raw OpenSSL operation, interleaved with Xid's);
# 4. prints, per algorithm, Xid ops/s against the OpenSSL reference (ES256 vs ecdsap256 verify,
#    RS256 and PS256 vs rsa2048 verify, EdDSA vs ed25519 verify), the ratio, the goal (issue 22: 0.95
#    for ES256, 0.85 for RS256, 0.80 for PS256, 0.95 for EdDSA), PASS/BELOW, and the in-process ratio.
#
# --rounds R (default 1) repeats steps 2 and 3 R times; each rate is the best of its R measurements
# and the in-process ratio the median of its R values.
#
# --clock wall (the default) divides by wall-clock time on both sides: `openssl speed -elapsed` and
# XidBenchmarks' ContinuousClock rate. --clock cpu divides by CPU time on both sides: plain
# `openssl speed` (which by default divides by its user CPU time) and XidBenchmarks' cpu_ops_per_s.
# On a quiet machine they agree; on a busy one, wall-clock rates drop whenever the scheduler runs
# other work on the benchmark's core, and CPU-time rates do not. (The in-process ratio always uses
# CPU time, and interleaving cancels most of what other work does to caches and clock speed.)
#
# --write FILE also writes the table as Markdown with the machine facts. Anything in an existing
# FILE after the line "<!-- end of generated results -->" is kept (hand-written notes).
#
# Exit status: 0 when everything ran, whatever the ratios (the script reports; it does not gate);
# non-zero when the build, openssl or the benchmark fails, or their output cannot be parsed.
# Raw outputs are kept in Benchmarks/results/ (ignored by git).

set -euo pipefail

seconds=3
rounds=1
clock=wall
write_path=""
skip_build=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --seconds) seconds="${2:?--seconds needs a value}"; shift 2 ;;
    --clock) clock="${2:?--clock needs wall or cpu}"; shift 2 ;;
    --rounds) rounds="${2:?--rounds needs a value}"; shift 2 ;;
    --write) write_path="${2:?--write needs a path}"; shift 2 ;;
    --skip-build) skip_build=1; shift ;;
    -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "run.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
if ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
  echo "run.sh: --seconds must be a positive whole number (openssl speed needs one)" >&2
  exit 2
fi
if [[ "$clock" != wall && "$clock" != cpu ]]; then
  echo "run.sh: --clock must be wall or cpu" >&2
  exit 2
fi
if [[ "$clock" == wall ]]; then
  speed_args=(-elapsed -mr -seconds "$seconds")
  xid_rate=verify_ops_per_s
else
  speed_args=(-mr -seconds "$seconds")
  xid_rate=cpu_ops_per_s
fi
if ! [[ "$rounds" =~ ^[1-9][0-9]*$ ]]; then
  echo "run.sh: --rounds must be a positive whole number" >&2
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

# --- OpenSSL and Xid, alternating ------------------------------------------------------------------
: >"$openssl_out"
: >"$xid_out"
# Cores' worth of CPU time used by others between two samples (the benchmark itself keeps one busy).
other_cores_between() { awk -v a="$1" -v b="$2" -v n="$cores" 'BEGIN {
    split(a, x, " "); split(b, y, " "); busy = y[1] - x[1]; total = busy + y[2] - x[2] + y[3] - x[3]
    o = (total > 0 ? busy / total : 0) * n - 1; printf "%.2f\n", (o < 0 ? 0 : o) }'; }
round_states=""
for ((round = 1; round <= rounds; round++)); do
  start_sample="$(cpu_sample)"
  echo "== round $round/$rounds: openssl speed ${speed_args[*]} ecdsap256 rsa2048 ed25519" >&2
  openssl speed "${speed_args[@]}" ecdsap256 rsa2048 ed25519 >>"$openssl_out" 2>&1 \
    || die "openssl speed failed (output in $openssl_out)"
  echo "== round $round/$rounds: $benchmark --seconds $seconds" >&2
  "$benchmark" --seconds "$seconds" >>"$xid_out" || die "XidBenchmarks failed (output in $xid_out)"
  round_states="$round_states${round_states:+, }$(other_cores_between "$start_sample" "$(cpu_sample)")"
done
# The best verify/s of each OpenSSL algorithm over the rounds.
best_openssl() { awk -F: -v tag="$1" -v col="$2" -v key="$3" -v keycol="$4" '
  $1 == tag && $keycol == key && $col + 0 > best { best = $col + 0 }
  END { if (best > 0) printf "%.1f\n", best }' "$openssl_out"; }
ossl_rsa="$(best_openssl +F2 5 2048 3)"
ossl_ec="$(best_openssl +F4 5 256 3)"
ossl_ed="$(best_openssl +F6 6 Ed25519 4)"
for value in "$ossl_rsa" "$ossl_ec" "$ossl_ed"; do
  [[ "$value" =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "cannot read the verify rates from openssl speed (see $openssl_out)"
done

read -r busy1 idle1 steal1 < <(cpu_sample)
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"
# Share of all cores busy during the runs, and how many cores' worth of that was not ours (the
# benchmarks keep one core busy).
read -r busy_pct other_cores steal_pct < <(awk -v b="$((busy1 - busy0))" -v i="$((idle1 - idle0))" \
  -v s="$((steal1 - steal0))" -v n="$cores" 'BEGIN {
    t = b + i + s; if (t <= 0) t = 1
    u = b / t; o = u * n - 1; if (o < 0) o = 0
    printf "%.0f %.2f %.1f\n", 100 * u, o, 100 * s / t }')
caution=""
if awk -v o="$other_cores" 'BEGIN { exit !(o >= 0.25) }'; then
  machine_state="busy: about $other_cores cores' worth of other work ran alongside (CPU ${busy_pct}% busy overall); numbers are noisy"
  caution="The machine was busy, so the ratios against openssl speed compare runs made under different load and are unreliable (a ratio above 1 is impossible on a quiet machine: Xid does the same OpenSSL operation plus its own work). Trust the in-process ratio, or rerun on a quiet machine."
else
  machine_state="quiet: no significant other work (CPU ${busy_pct}% busy overall, one core being the benchmark)"
fi

# --- Table ------------------------------------------------------------------------------------------
# Rows: algorithm, Xid ops/s, Xid µs/op, parse µs, OpenSSL reference, OpenSSL verify/s, ratio, goal, status,
# in-process ratio
rows="$(awk -v rsa="$ossl_rsa" -v ec="$ossl_ec" -v ed="$ossl_ed" -v rate="$xid_rate" '
  $1 == "xid" {
    alg = $2
    for (f = 3; f <= NF; f++) {
      split($f, kv, "=")
      if (kv[1] == "inproc_ratio") { nr[alg]++; ratios[alg, nr[alg]] = kv[2] + 0; continue }
      if (!((alg, kv[1]) in v)) { v[alg, kv[1]] = kv[2] + 0; continue }
      if (kv[1] ~ /ops_per_s$/) { if (kv[2] + 0 > v[alg, kv[1]]) v[alg, kv[1]] = kv[2] + 0 }
      else if (kv[2] + 0 < v[alg, kv[1]]) v[alg, kv[1]] = kv[2] + 0
    }
    seen[alg] = 1
  }
  END {
    n = split("ES256 RS256 PS256 EdDSA", order, " ")
    for (k = 1; k <= n; k++) {
      alg = order[k]
      if (!(alg in seen)) exit 1
      if (alg == "ES256") { ref = "ecdsap256"; r = ec; goal = 0.95 }
      else if (alg == "RS256") { ref = "rsa2048"; r = rsa; goal = 0.85 }
      else if (alg == "PS256") { ref = "rsa2048"; r = rsa; goal = 0.80 }
      else { ref = "ed25519"; r = ed; goal = 0.95 }
      ops = v[alg, rate]
      if (ops <= 0) exit 1
      ratio = ops / r
      status = goal == 0 ? "-" : (ratio >= goal ? "PASS" : "BELOW")
      # The in-process ratio: median over the rounds (it is already corrected for noise by interleaving).
      m = nr[alg]
      for (i = 1; i <= m; i++) sorted[i] = ratios[alg, i]
      for (i = 2; i <= m; i++) for (j = i; j > 1 && sorted[j - 1] > sorted[j]; j--) {
        t = sorted[j]; sorted[j] = sorted[j - 1]; sorted[j - 1] = t }
      if (m == 0) inproc = "-"
      else {
        med = (m % 2 ? sorted[(m + 1) / 2] : (sorted[m / 2] + sorted[m / 2 + 1]) / 2)
        inproc = sprintf("%.3f", med) (goal == 0 ? "" : (med >= goal ? " PASS" : " BELOW"))
      }
      printf "%s|%.0f|%.1f|%.1f|%s|%.0f|%.3f|%s|%s|%s\n", alg, ops, 1e6 / ops, v[alg, "parse_us"], ref, r, \
        ratio, (goal == 0 ? "-" : sprintf("%.2f", goal)), status, inproc
    }
  }' "$xid_out")" || die "cannot read the four result lines of XidBenchmarks (see $xid_out)"

print_table() {
  printf '%-7s %10s %8s %9s  %-10s %13s %6s %5s  %-6s %s\n' \
    algorithm "Xid ops/s" "Xid µs" "parse µs" reference "OpenSSL ops/s" ratio goal status "in-process ratio"
  while IFS='|' read -r alg xops xus parse ref rops ratio goal status inproc; do
    printf '%-7s %10s %8s %9s  %-10s %13s %6s %5s  %-6s %s\n' \
      "$alg" "$xops" "$xus" "$parse" "$ref" "$rops" "$ratio" "$goal" "$status" "$inproc"
  done <<<"$rows"
}

if [[ "$clock" == wall ]]; then
  clock_text="wall-clock time (openssl speed -elapsed, ContinuousClock)"
else
  clock_text="CPU time (openssl speed's user time, the thread's CPU time)"
fi
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
echo "clock:   $clock_text"
echo "machine: $cpu_model, $cores cores, $virtualised; $openssl_version; $swift_version"
echo "state:   $machine_state; other work per round (cores): $round_states; load average $load_before before, $load_after after; steal ${steal_pct}%"
echo "raw:     $openssl_out, $xid_out"
if [[ -n "$caution" ]]; then echo "CAUTION: $caution"; fi

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
    echo "work around it. Goals: ES256 and EdDSA at least 0.95 of ECDSA P-256 and Ed25519 verify, RS256 at"
    echo "least 0.85 and PS256 at least 0.80 of RSA-2048 verify. *Parse µs* is the same token's parsing"
    echo "alone (\`CompactJWS\` and \`JWTClaims\`"
    echo "without the signature). With \`--rounds R\` OpenSSL and Xid alternate R times and every rate is"
    echo "the best of its R measurements."
    echo
    echo "\`openssl speed\` and Xid run one after the other, so on a shared machine their ratio also measures"
    echo "how the machine's load changed in between. The *in-process ratio* does not: XidBenchmarks"
    echo "alternates 100 ms slices of Xid's full verification with the very operation \`openssl speed\`"
    echo "times (same libcrypto, a prepared context, a short pre-hashed message) and divides the two rates"
    echo "per second of the thread's CPU time (median over the rounds). It is the steadier figure when the"
    echo "machine is busy."
    echo
    echo "Regenerate with \`Benchmarks/run.sh --seconds $seconds --rounds $rounds --clock $clock --write $write_path\`."
    echo "Rates here are per second of $clock_text; *Parse µs* is always wall-clock."
    echo
    echo "## Results"
    echo
    echo "| Algorithm | Xid ops/s | Xid µs/op | Parse µs | OpenSSL reference | OpenSSL verify/s | Ratio | Goal | Status | In-process ratio |"
    echo "|---|--:|--:|--:|---|--:|--:|--:|---|---|"
    while IFS='|' read -r alg xops xus parse ref rops ratio goal status inproc; do
      echo "| $alg | $xops | $xus | $parse | $ref | $rops | $ratio | $goal | $status | $inproc |"
    done <<<"$rows"
    echo
    if [[ -n "$caution" ]]; then
      echo "**Caution:** $caution"
      echo
    fi
    echo "## Machine"
    echo
    echo "- Date: $run_date; $seconds s per measurement, best of $rounds round(s) of OpenSSL then Xid; rates per second of $clock_text"
    echo "- CPU: $cpu_model, ${cpu_mhz} MHz, $cores cores, $virtualised (flags: ${cpu_flags:-none of avx2/bmi2/adx/sha_ni})"
    echo "- Kernel: $kernel"
    echo "- OpenSSL: $openssl_version"
    echo "- Swift: $swift_version"
    echo "- State: $machine_state; other work per round, in cores: $round_states; load average $load_before before and $load_after after; steal ${steal_pct}%"
    echo
    echo "$marker"
    if [[ -n "$kept" ]]; then printf '%s\n' "$kept"; fi
  } >"$write_path.tmp"
  mv "$write_path.tmp" "$write_path"
  echo "wrote $write_path" >&2
fi
