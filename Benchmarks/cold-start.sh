#!/usr/bin/env bash
# Times the cold start of a process that reads its access token from FileTokenStorage, against a bare
# Swift process that only starts Foundation, and measures the peak memory (RSS) of both. Goals:
#   - XidCoreColdStart (XidCore alone): at most 2 ms above BareStart and a peak RSS of at most 1.2 ×
#     BareStart's, in the dynamic build;
#   - XidColdStart (the whole of Xid, as `import Xid` gives it): at most 5 ms above BareStart.
#
#   Benchmarks/cold-start.sh [--runs N] [--rounds R] [--warmup W] [--steps K] [--no-static]
#                            [--python-timer] [--skip-build] [--write docs/performance.md]
#
# 1. builds, in release mode, XidSessionBenchmarks (only to prepare the state), XidColdStart,
#    XidCoreColdStart, BareStart and NetStart; then all but the first again with
#    --static-swift-stdlib in .build/static-stdlib (the Swift runtime and Foundation linked into the
#    binary; the system libcurl and its libraries stay shared, and linking FoundationNetworking
#    statically needs libcurl's development files, libcurl4-openssl-dev on Debian: without them the
#    static variant is skipped with a message);
# 2. signs in against the in-memory TestProvider and stores the tokens in a FileTokenStorage
#    directory (`XidSessionBenchmarks --prepare-cold-start DIR`; the access token lives a day), and
#    checks that every program answers as it should (XidColdStart and XidCoreColdStart the token's
#    length, the others the record file's size);
# 3. checks that the read path starts no OpenSSL: runs XidCoreColdStart and XidColdStart once with
#    LD_DEBUG=bindings,libs (glibc's loader binds a call into a library on its first use and reports
#    it) and lists every binding to or from libcrypto after the loader transferred control to the
#    program, that is every OpenSSL function the program ran (the list should be empty);
# 4. times whole runs of seven programs per build, with hyperfine (-N: no shell; W warm-ups) when it
#    is installed (unless --python-timer), else with a Python loop that interleaves the programs run
#    by run (fork and exec from Python add a constant to every program alike):
#
#      BareStart FILE                          imports Foundation, reads the record file, prints its size
#      NetStart FILE                           the same, also linking FoundationNetworking
#      XidColdStart --read-only FILE           the same from XidColdStart's binary: Xid linked, unused
#      XidColdStart --transport none DIR       Xid's work, without creating a URLSession
#      XidColdStart DIR                        what a program does: Xid with its default configuration
#      XidCoreColdStart --read-only FILE       reads the record file from XidCoreColdStart's binary:
#                                              XidCore linked, unused
#      XidCoreColdStart DIR                    XidCore alone: SessionEngine, FileTokenStorage, the token
#
#    R rounds of N runs of each (by default 20 × 10, after W = 3 warm-ups per round), the programs'
#    order rotating between rounds; the medians are over all R × N runs. Many short rounds rather
#    than a few long ones: on a shared virtual machine the same program's median moves by ±1.5 ms
#    from one batch of 60 runs to the next, and in long batches that drift lands on whichever program
#    ran then. (The Python loop interleaves the programs run by run, which is better still.)
#    Consecutive differences split XidColdStart's cost above BareStart into: loading
#    FoundationNetworking (and libcurl), loading the rest of Xid's binary, Xid's own work, and
#    creating the URLSession; and XidCoreColdStart's into: loading its binary, and
#    XidCore's own work. The CPU time of the runs (user + system: hyperfine's per-round means, or
#    the loop's wait4) gives a second view of the same differences: on a busy machine a process
#    waiting for a core gains wall-clock time but no CPU time.
#    In every round, after the timing, BareStart, XidCoreColdStart and XidColdStart also run once
#    each under GNU time (`/usr/bin/time -f %M`: the peak resident set size, in KiB; bash's `time`
#    keyword has no memory figure); the RSS figures are the medians of those R runs. GNU time is the
#    Debian package `time`: `apt-get install -y time` if /usr/bin/time is missing (without it the
#    RSS is skipped with a message);
# 5. runs `XidColdStart --steps DIR` K times per build and reports the median CPU time before `main`
#    and the median wall-clock time of each step in the process;
# 6. prints the tables, the goals' status and the machine facts.
#
# --write FILE replaces the part of FILE between the lines "<!-- cold-start results: begin -->" and
# "<!-- cold-start results: end -->" with the tables and machine facts (both lines must be there).
#
# Exit status: 0 when everything ran, whatever the figures (the script reports; it does not gate);
# non-zero when a build, the preparation, a check or a timing fails. Raw outputs are kept in
# Benchmarks/results/ (ignored by git); the state directory is removed at the end.

set -euo pipefail

runs=10
rounds=20
warmup=3
step_runs=20
static=1
python_timer=0
skip_build=0
write_path=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --runs) runs="${2:?--runs needs a value}"; shift 2 ;;
    --rounds) rounds="${2:?--rounds needs a value}"; shift 2 ;;
    --warmup) warmup="${2:?--warmup needs a value}"; shift 2 ;;
    --steps) step_runs="${2:?--steps needs a value}"; shift 2 ;;
    --no-static) static=0; shift ;;
    --python-timer) python_timer=1; shift ;;
    --skip-build) skip_build=1; shift ;;
    --write) write_path="${2:?--write needs a path}"; shift 2 ;;
    -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "cold-start.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
for value in "$runs" "$rounds" "$step_runs"; do
  [[ "$value" =~ ^[1-9][0-9]*$ ]] || { echo "cold-start.sh: --runs, --rounds and --steps need positive whole numbers" >&2; exit 2; }
done
[[ "$warmup" =~ ^[0-9]+$ ]] || { echo "cold-start.sh: --warmup needs a whole number" >&2; exit 2; }

die() { echo "cold-start.sh: $*" >&2; exit 1; }

package_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$package_root"
results_dir="Benchmarks/results"
mkdir -p "$results_dir"
stamp="$(date -u +%Y%m%dT%H%M%SZ)"
raw_prefix="$results_dir/cold-start-$stamp"
static_scratch=".build/static-stdlib"
goal_ms=5           # XidColdStart − BareStart
core_goal_ms=2      # XidCoreColdStart − BareStart, dynamic build
core_goal_rss=1.2   # XidCoreColdStart's peak RSS ÷ BareStart's, dynamic build

command -v swift >/dev/null || die "swift is not installed"
command -v python3 >/dev/null || die "python3 is needed for the statistics"
# GNU time, for the peak RSS (%M); not bash's `time` keyword, which has no memory figure.
gnu_time=/usr/bin/time
rss_note=""
if ! [[ "$("$gnu_time" -f %M true 2>&1)" =~ ^[0-9]+$ ]]; then
  gnu_time=""
  rss_note="peak RSS not measured: it needs GNU time as /usr/bin/time (apt-get install -y time)"
  echo "cold-start.sh: $rss_note" >&2
fi

# --- Build ------------------------------------------------------------------------------------------
# The static build needs libcurl's development files (libcurl.so), since FoundationNetworking's static
# library links the system libcurl.
has_curl_dev() { ldconfig -p 2>/dev/null | grep -qE '[[:space:]]libcurl\.so[[:space:]]'; }
static_note=""
if [[ $static -eq 1 ]] && ! has_curl_dev; then
  static=0
  static_note="static variant skipped: --static-swift-stdlib needs libcurl's development files (apt-get install -y libcurl4-openssl-dev)"
  echo "cold-start.sh: $static_note" >&2
fi
if [[ $skip_build -eq 0 ]]; then
  for product in XidSessionBenchmarks XidColdStart XidCoreColdStart BareStart NetStart; do
    echo "== swift build -c release --product $product" >&2
    swift build -c release --product "$product" >&2 || die "the release build of $product failed"
  done
  if [[ $static -eq 1 ]]; then
    for product in XidColdStart XidCoreColdStart BareStart NetStart; do
      echo "== swift build -c release --static-swift-stdlib --scratch-path $static_scratch --product $product" >&2
      swift build -c release --static-swift-stdlib --scratch-path "$static_scratch" --product "$product" >&2 \
        || die "the static release build of $product failed"
    done
  fi
fi
dynamic_bin="$(swift build -c release --show-bin-path)"
builds=(dynamic)
bins=("$dynamic_bin")
if [[ $static -eq 1 ]]; then
  builds+=(static)
  bins+=("$(swift build -c release --static-swift-stdlib --scratch-path "$static_scratch" --show-bin-path)")
fi
for bin in "${bins[@]}"; do
  for product in XidColdStart XidCoreColdStart BareStart NetStart; do
    [[ -x "$bin/$product" ]] || die "$bin/$product is missing; run without --skip-build"
  done
done
[[ -x "$dynamic_bin/XidSessionBenchmarks" ]] || die "$dynamic_bin/XidSessionBenchmarks is missing; run without --skip-build"

# --- State ------------------------------------------------------------------------------------------
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
state="$work/state"
record="$("$dynamic_bin/XidSessionBenchmarks" --prepare-cold-start "$state")" || die "preparing the state failed"
[[ -f "$record" ]] || die "the prepared record $record is missing"
record_size="$(stat -c %s "$record")"

# The seven programs of a build, as name|command (the record's path and the directory contain no '|').
programs() {
  local bin="$1"
  echo "BareStart|$bin/BareStart $record"
  echo "NetStart|$bin/NetStart $record"
  echo "XidColdStart --read-only|$bin/XidColdStart --read-only $record"
  echo "XidColdStart --transport none|$bin/XidColdStart --transport none $state"
  echo "XidColdStart|$bin/XidColdStart $state"
  echo "XidCoreColdStart --read-only|$bin/XidCoreColdStart --read-only $record"
  echo "XidCoreColdStart|$bin/XidCoreColdStart $state"
}
# The programs whose peak RSS is measured, the reference first.
rss_programs() {
  local bin="$1"
  echo "BareStart|$bin/BareStart $record"
  echo "XidCoreColdStart|$bin/XidCoreColdStart $state"
  echo "XidColdStart|$bin/XidColdStart $state"
}

# Every program must answer, and correctly, before it is timed.
for index in "${!builds[@]}"; do
  while IFS='|' read -r name command; do
    output="$($command)" || die "${builds[$index]} $name failed"
    case "$name" in
      "XidColdStart" | "XidColdStart --transport none" | "XidCoreColdStart")
        [[ "$output" =~ ^[1-9][0-9]*$ ]] || die "${builds[$index]} $name printed '$output', not a token length" ;;
      *)
        [[ "$output" == "$record_size" ]] || die "${builds[$index]} $name printed '$output', not the file size $record_size" ;;
    esac
  done < <(programs "${bins[$index]}")
done

# --- OpenSSL on the read path -----------------------------------------------------------------------
# glibc's loader binds a call from one object into another on its first use (unless LD_BIND_NOW) and,
# with LD_DEBUG=bindings, reports it; "libs" adds the line "transferring control" that ends start-up.
# Every binding to or from libcrypto after that line is an OpenSSL function the program ran.
openssl_calls() {
  local log="$1"
  shift
  env -u LD_BIND_NOW LD_DEBUG=bindings,libs LD_DEBUG_OUTPUT="$log" "$@" >/dev/null || return 1
  cat "$log".* >"$log" && rm -f "$log".*
  grep -q 'transferring control' "$log" || return 1
  awk '/transferring control/ { started = 1; next }
       started && /binding file/ && /libcrypto/ { sub(/.*`/, ""); sub(/\047.*/, ""); print }' "$log" | sort -u |
    awk '{ names[NR] = $0 } END { for (i = 1; i <= NR && i <= 8; i++) printf "%s%s", (i > 1 ? " " : ""), names[i];
           if (NR > 8) printf " … (%d in all)", NR; if (NR) print "" }'
}
openssl_facts=""
for index in "${!builds[@]}"; do
  for product in XidCoreColdStart XidColdStart; do
    log="$raw_prefix-${builds[$index]}-$product-ld-debug.txt"
    calls="$(openssl_calls "$log" "${bins[$index]}/$product" "$state")" \
      || die "LD_DEBUG=bindings did not work for ${builds[$index]} $product (see $log)"
    [[ -z "$calls" ]] && calls="none"
    openssl_facts="$openssl_facts${openssl_facts:+; }${builds[$index]} $product: $calls"
    # The log is large (every binding of the process); keep only what concerns libcrypto.
    grep -E 'libcrypto|transferring control' "$log" >"$log.tmp" && mv "$log.tmp" "$log"
  done
done
echo "== OpenSSL functions run on the read path: $openssl_facts" >&2

# --- Machine state ----------------------------------------------------------------------------------
cpu_sample() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $5 + $6, $9; exit }' /proc/stat; }
cores="$(nproc)"
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
read -r busy0 idle0 steal0 < <(cpu_sample)

# --- Timing -----------------------------------------------------------------------------------------
# Each timing writes one JSON file per build and round: {"results": [{"command": name, "times": [s…]}]}
# (hyperfine's --export-json format, which the Python loop imitates).
use_hyperfine=0
if [[ $python_timer -eq 0 ]] && command -v hyperfine >/dev/null; then use_hyperfine=1; fi
if [[ $use_hyperfine -eq 1 ]]; then
  timer="hyperfine $(hyperfine --version | awk '{ print $2 }') (-N, $warmup warm-ups)"
else
  timer="a Python loop (fork and exec from Python, $warmup warm-ups)"
fi
for index in "${!builds[@]}"; do
  build="${builds[$index]}"
  mapfile -t lines < <(programs "${bins[$index]}")
  for ((round = 1; round <= rounds; round++)); do
    # Rotate the order, so that no program always runs first or after the same one.
    ordered=()
    for ((k = 0; k < ${#lines[@]}; k++)); do ordered+=("${lines[$(((k + round - 1) % ${#lines[@]}))]}"); done
    json="$raw_prefix-$build-round$round.json"
    echo "== $build, round $round/$rounds: $runs runs of each program" >&2
    if [[ $use_hyperfine -eq 1 ]]; then
      args=()
      for line in "${ordered[@]}"; do args+=(-n "${line%%|*}" "${line#*|}"); done
      hyperfine -N --style basic --warmup "$warmup" --runs "$runs" --export-json "$json" "${args[@]}" \
        >>"$raw_prefix-hyperfine.txt" 2>&1 || die "hyperfine failed (see $raw_prefix-hyperfine.txt)"
    else
      printf '%s\n' "${ordered[@]}" >"$work/programs"
      python3 - "$runs" "$warmup" "$json" "$work/programs" <<'PY' || die "the timing loop failed"
import json, os, shlex, subprocess, sys, time
runs, warmup, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
programs = [line.rstrip("\n").split("|", 1) for line in open(sys.argv[4]) if line.strip()]
times = {name: [] for name, _ in programs}
user = {name: [] for name, _ in programs}
system = {name: [] for name, _ in programs}
for i in range(warmup + runs):
    for name, command in programs:  # interleaved: every program sees the same machine conditions
        start = time.perf_counter()
        child = subprocess.Popen(shlex.split(command), stdout=subprocess.DEVNULL)
        _, status, usage = os.wait4(child.pid, 0)
        elapsed = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode != 0:
            sys.exit(f"{name} exited with {child.returncode}")
        if i >= warmup:
            times[name].append(elapsed)
            user[name].append(usage.ru_utime)
            system[name].append(usage.ru_stime)
# hyperfine's format: the run times, and the means of user and system CPU time.
json.dump({"results": [{"command": name, "times": times[name], "user": sum(user[name]) / runs,
                        "system": sum(system[name]) / runs} for name, _ in programs]}, open(path, "w"))
PY
    fi
    # Peak RSS, one run of each per round (in the same rotating order).
    if [[ -n "$gnu_time" ]]; then
      mapfile -t rss_lines < <(rss_programs "${bins[$index]}")
      for ((k = 0; k < ${#rss_lines[@]}; k++)); do
        line="${rss_lines[$(((k + round - 1) % ${#rss_lines[@]}))]}"
        kib="$("$gnu_time" -f %M -o "$work/rss" ${line#*|} >/dev/null && cat "$work/rss")" \
          || die "$build ${line%%|*} failed under GNU time"
        echo "${line%%|*}|$kib" >>"$raw_prefix-$build-rss.txt"
      done
    fi
  done
  echo "== $build: $step_runs runs of XidColdStart --steps" >&2
  for ((k = 0; k < step_runs; k++)); do
    "${bins[$index]}/XidColdStart" --steps "$state" 2>>"$raw_prefix-$build-steps.txt" >/dev/null \
      || die "XidColdStart --steps failed"
  done
done

read -r busy1 idle1 steal1 < <(cpu_sample)
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"
read -r busy_pct steal_pct < <(awk -v b="$((busy1 - busy0))" -v i="$((idle1 - idle0))" -v s="$((steal1 - steal0))" '
  BEGIN { t = b + i + s; if (t <= 0) t = 1; printf "%.0f %.1f\n", 100 * b / t, 100 * s / t }')

# --- Results ----------------------------------------------------------------------------------------
cpu_model="$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
virtualised="$(grep -qw hypervisor /proc/cpuinfo && echo "virtual machine" || echo "bare metal")"
machine="$cpu_model, $cores cores, $virtualised; $(uname -sr); $(swift --version 2>&1 | head -n1)"
state_line="load average $load_before before and $load_after after; CPU ${busy_pct}% busy overall during the runs, the measured processes included (one at a time); steal ${steal_pct}%"
libraries=""
for index in "${!builds[@]}"; do
  counts=""
  for product in BareStart NetStart XidCoreColdStart XidColdStart; do
    counts="$counts${counts:+, }$product $(ldd "${bins[$index]}/$product" | grep -c '=>')"
  done
  libraries="$libraries${libraries:+; }${builds[$index]}: $counts"
done

python3 - "$raw_prefix" "$goal_ms" "$core_goal_ms" "$core_goal_rss" "$rounds" "$runs" "$timer" "$machine" \
  "$state_line" "$libraries" "$openssl_facts" "$static_note" "$rss_note" "$(date -u '+%Y-%m-%d %H:%M UTC')" \
  "$write_path" "${builds[@]}" <<'PY'
import glob, json, os, re, statistics, sys
(prefix, goal, core_goal, core_goal_rss, rounds, runs, timer, machine, state_line, libraries, openssl_facts,
 static_note, rss_note, date, write_path) = sys.argv[1:16]
builds = sys.argv[16:]
goal, core_goal, core_goal_rss = float(goal), float(core_goal), float(core_goal_rss)
names = ["BareStart", "NetStart", "XidColdStart --read-only", "XidColdStart --transport none", "XidColdStart",
         "XidCoreColdStart --read-only", "XidCoreColdStart"]
rss_names = ["BareStart", "XidCoreColdStart", "XidColdStart"]

def ms(values):
    return statistics.median(values) * 1000

medians, spreads, cpu = {}, {}, {}
for build in builds:
    pooled = {name: [] for name in names}
    # CPU time (user + system) per run, one mean per round (hyperfine reports means only).
    cpu_means = {name: [] for name in names}
    for path in sorted(glob.glob(f"{prefix}-{build}-round*.json")):
        for result in json.load(open(path))["results"]:
            pooled[result["command"]].extend(result["times"])
            cpu_means[result["command"]].append(result["user"] + result["system"])
    for name in names:
        cpu[build, name] = ms(cpu_means[name])
    for name in names:
        values = sorted(pooled[name])
        medians[build, name] = ms(values)
        # The middle 80 % of the runs, as a spread.
        spreads[build, name] = (values[int(0.1 * (len(values) - 1))] * 1000, values[int(0.9 * (len(values) - 1))] * 1000)

# Peak RSS in KiB, per build and program: median, min, max.
rss = {}
for build in builds:
    path = f"{prefix}-{build}-rss.txt"
    if not os.path.exists(path):
        continue
    samples = {}
    for line in open(path):
        name, kib = line.strip().rsplit("|", 1)
        samples.setdefault(name, []).append(int(kib))
    for name, values in samples.items():
        rss[build, name] = (statistics.median(values), min(values), max(values))

steps = {}
for build in builds:
    fields = {}
    for line in open(f"{prefix}-{build}-steps.txt"):
        for key, value in re.findall(r"(\w+)_ms=([0-9.]+)", line):
            fields.setdefault(key, []).append(float(value))
    steps[build] = {key: statistics.median(values) for key, values in fields.items()}

def f(x):
    return f"{x:.1f}"

def g(x):
    return f"{x:+.1f}"

def status(value, limit, unit):
    if value <= limit:
        return "PASS"
    # Two decimals where one would print a miss as 0.0.
    by = value - limit
    return f"MISSED by {by:.{2 if unit == '×' or by < 0.1 else 1}f}{' ms' if unit == 'ms' else '×'}"

lines = []
out = lines.append
out("| Program | " + " | ".join(f"{b} median ms (p10–p90)" for b in builds) + " |")
out("|---|" + "--:|" * len(builds))
for name in names:
    cells = [f"{f(medians[b, name])} ({f(spreads[b, name][0])}–{f(spreads[b, name][1])})" for b in builds]
    out(f"| `{name}` | " + " | ".join(cells) + " |")
out("")

# XidCore alone.
core_totals = {b: medians[b, "XidCoreColdStart"] - medians[b, "BareStart"] for b in builds}
out("| Part of XidCoreColdStart above BareStart | " + " | ".join(f"{b} ms" for b in builds) + " |")
out("|---|" + "--:|" * len(builds))
core_parts = [
    ("Loading XidCore's binary (`XidCoreColdStart --read-only` − `BareStart`)",
     "XidCoreColdStart --read-only", "BareStart"),
    ("XidCore's own work (`XidCoreColdStart` − `--read-only`)", "XidCoreColdStart", "XidCoreColdStart --read-only"),
]
for label, a, b in core_parts:
    out(f"| {label} | " + " | ".join(g(medians[x, a] - medians[x, b]) for x in builds) + " |")
out("| **XidCoreColdStart − BareStart** | " + " | ".join(f"**{g(core_totals[b])}**" for b in builds) + " |")
out(f"| Goal (dynamic build): at most +{core_goal:.0f} ms | " + " | ".join(
    status(core_totals[b], core_goal, "ms") if b == "dynamic" else "–" for b in builds) + " |")
out("")

# CPU time: what other work on a shared machine changes least (a process waiting for a core uses none).
out("| CPU time (user + system) above BareStart, median of the rounds' means | " + " | ".join(
    f"{b} ms" for b in builds) + " |")
out("|---|" + "--:|" * len(builds))
out(f"| `BareStart` itself | " + " | ".join(f(cpu[b, "BareStart"]) for b in builds) + " |")
for name in ["XidCoreColdStart --read-only", "XidCoreColdStart", "NetStart", "XidColdStart"]:
    out(f"| `{name}` | " + " | ".join(g(cpu[b, name] - cpu[b, "BareStart"]) for b in builds) + " |")
out("")

# Peak RSS.
rss_builds = [b for b in builds if (b, "BareStart") in rss]
ratios = {}
if rss_builds:
    out("| Peak RSS (GNU time, median of the rounds) | " + " | ".join(
        f"{b} MiB (min–max) | {b} ÷ BareStart" for b in rss_builds) + " |")
    out("|---|" + "--:|--:|" * len(rss_builds))
    for name in rss_names:
        cells = []
        for b in rss_builds:
            median, low, high = rss[b, name]
            ratios[b, name] = median / rss[b, "BareStart"][0]
            cells.append(f"{median / 1024:.1f} ({low / 1024:.1f}–{high / 1024:.1f}) | {ratios[b, name]:.2f}")
        out(f"| `{name}` | " + " | ".join(cells) + " |")
    out(f"| Goal (dynamic build): `XidCoreColdStart` at most {core_goal_rss:.1f} × BareStart | " + " | ".join(
        ("| " + status(ratios[b, "XidCoreColdStart"], core_goal_rss, "×")) if b == "dynamic" else "| –"
        for b in rss_builds) + " |")
    out("")

# The whole of Xid.
totals = {b: medians[b, "XidColdStart"] - medians[b, "BareStart"] for b in builds}
out("| Part of XidColdStart above BareStart | " + " | ".join(f"{b} ms" for b in builds) + " |")
out("|---|" + "--:|" * len(builds))
parts = [
    ("Loading FoundationNetworking and libcurl (`NetStart` − `BareStart`)", "NetStart", "BareStart"),
    ("Loading the rest of Xid's binary (`--read-only` − `NetStart`)", "XidColdStart --read-only", "NetStart"),
    ("Xid's own work (`--transport none` − `--read-only`)", "XidColdStart --transport none", "XidColdStart --read-only"),
    ("Creating the URLSession (`XidColdStart` − `--transport none`)", "XidColdStart", "XidColdStart --transport none"),
]
for label, a, b in parts:
    out(f"| {label} | " + " | ".join(g(medians[x, a] - medians[x, b]) for x in builds) + " |")
out("| **XidColdStart − BareStart** | " + " | ".join(f"**{g(totals[b])}**" for b in builds) + " |")
out(f"| Goal: at most {goal:.0f} ms | " + " | ".join(status(totals[b], goal, "ms") for b in builds) + " |")
out("")
step_names = [("cpu_before_main", "CPU time before `main` (loading, relocation, initialisers)"),
              ("configuration", "`XidConfiguration(…)`"),
              ("storage", "`FileTokenStorage(directory:)`"),
              ("xid", "`Xid(configuration:storage:)`"),
              ("getAccessToken", "`getAccessToken()` (engine, storage key, file read, JSON decode)"),
              ("output", "`print` of the length"),
              ("cpu_total", "CPU time at the end of `main`")]
out("| `XidColdStart --steps` (median of the runs) | " + " | ".join(f"{b} ms" for b in builds) + " |")
out("|---|" + "--:|" * len(builds))
for key, label in step_names:
    out(f"| {label} | " + " | ".join(f"{steps[b].get(key, float('nan')):.2f}" for b in builds) + " |")
out("")
facts = [
    f"Date: {date}; {rounds} rounds × {runs} runs of each program per build, timed with {timer}; peak RSS from one run per round of each program under GNU time (`/usr/bin/time -f %M`)",
    f"Machine: {machine}",
    f"Shared libraries loaded: {libraries}",
    f"OpenSSL functions run on the read path (`LD_DEBUG=bindings`: bindings to or from libcrypto after start-up): {openssl_facts}",
    f"State: {state_line}",
]
for note in (static_note, rss_note):
    if note:
        facts.append(note)
for fact in facts:
    out(f"- {fact}")
text = "\n".join(lines)
print()
print(text)
print()
print(f"Goal status (dynamic build) for XidCore alone: XidCoreColdStart − BareStart = {g(core_totals['dynamic'])} ms "
      f"(goal at most +{core_goal:.0f} ms): {status(core_totals['dynamic'], core_goal, 'ms')}")
if ("dynamic", "XidCoreColdStart") in ratios:
    print(f"Goal status (dynamic build) for XidCore alone: peak RSS {ratios['dynamic', 'XidCoreColdStart']:.2f} × "
          f"BareStart's (goal at most {core_goal_rss:.1f}): {status(ratios['dynamic', 'XidCoreColdStart'], core_goal_rss, '×')}")
else:
    print("Goal status (dynamic build) for XidCore alone: peak RSS not measured")
for b in builds:
    print(f"Goal status ({b} build) for the whole of Xid: XidColdStart − BareStart = {g(totals[b])} ms "
          f"(goal at most {goal:.0f} ms): {status(totals[b], goal, 'ms')}")
print(f"\nraw: {prefix}-*")

if write_path:
    begin, end = "<!-- cold-start results: begin -->", "<!-- cold-start results: end -->"
    document = open(write_path).read().split("\n")
    if begin not in document or end not in document or document.index(begin) > document.index(end):
        sys.exit(f"cold-start.sh: {write_path} has no '{begin}' … '{end}' lines to write between")
    i, j = document.index(begin), document.index(end)
    regenerate = "Regenerate with `Benchmarks/cold-start.sh --runs {} --rounds {}{} --write {}`.".format(
        runs, rounds, "" if len(builds) > 1 else " --no-static", write_path)
    document[i + 1:j] = ["", regenerate, "", text, ""]
    open(write_path, "w").write("\n".join(document))
    print(f"wrote {write_path}", file=sys.stderr)
PY
