#!/usr/bin/env bash
# Builds Xid's documentation site with the toolchain's DocC: symbol graphs from the build, one archive per
# catalog (Xid, XidTesting, XidAppIntents), merged into one static site. Any DocC warning (a broken symbol
# link in an article or a doc comment, a documented parameter that does not exist) fails the build.
#
#   scripts/docs.sh [--output DIR] [--no-ios]
#   python3 -m http.server -d .build/docs-site 8000    # then open http://localhost:8000/documentation/
#
# - DIR (default .build/docs-site) is replaced by the site; a non-empty DIR that is not an earlier site is
#   refused rather than deleted.
# - The `Xid` archive documents what `import Xid` gives: the symbol graph of the Xid module is extracted
#   with the modules it re-exports (XidCore and its layers XidProtocol, XidDevice and XidSession, XidJOSE, XidURLSession, XidLoopback, XidApple), so articles
#   link to ``XidConfiguration`` as users spell it. XidTesting and XidAppIntents are built against the
#   Xid archive (DocC's external link support) and link to it with absolute links: ``/Xid/XidError``.
# - Where the iOS SDK of ../shared/tools/apple-sdk is prepared, the package is also compiled for iOS
#   (build-ios) and the iOS symbol graphs of Xid and XidAppIntents are added, so the Apple-only API
#   (XidApple, XidAppIntents) is documented too; --no-ios (or XID_DOCS_IOS=0) skips that. The Linux
#   graphs alone must build without warnings: that is what CI checks, so articles never link to an
#   Apple-only symbol with a symbol link (code voice is fine).
# Scratch files go to .build/docs (symbol graphs, archives, logs).
set -euo pipefail

usage() { sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; }
out=.build/docs-site  # relative to the package; an --output relative to the caller's directory
ios=${XID_DOCS_IOS:-1}
while (($#)); do
  case $1 in
    --output | -o)
      (($# >= 2)) || { echo "docs.sh: $1 needs a directory" >&2; exit 2; }
      out=$2
      [[ $out == /* ]] || out=$PWD/$out
      shift 2
      ;;
    --output=*) out=${1#--output=}; [[ $out == /* ]] || out=$PWD/$out; shift ;;
    --no-ios) ios=0; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "docs.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
cd "$(dirname "$0")/.."

log() { printf '[docs] %s\n' "$*" >&2; }
started=$SECONDS
work=.build/docs
rm -rf "$work"
mkdir -p "$work/graphs/host" "$work/graphs/ios" "$work/archives"

# --- the toolchain -------------------------------------------------------------------------------------
swift_bin=$(dirname "$(readlink -f "$(command -v swift)")")
tool() {  # the toolchain's NAME: next to `swift`, else Xcode's, else on PATH
  local found=$swift_bin/$1
  [[ -x $found ]] || found=$(xcrun --find "$1" 2>/dev/null || command -v "$1" || true)
  [[ -n $found ]] || { echo "docs.sh: no $1 next to $swift_bin/swift, in Xcode or on PATH" >&2; exit 1; }
  echo "$found"
}
extract=$(tool swift-symbolgraph-extract)
docc=${DOCC:-$(tool docc)}
triple=$(swiftc -print-target-info | sed -n 's/^ *"triple": "\(.*\)",$/\1/p' | head -1)

# Runs a command quietly; on failure shows its output (DocC's diagnostics) and stops.
quiet() {
  local name=$1
  shift
  if ! "$@" >"$work/$name.log" 2>&1; then
    cat "$work/$name.log" >&2
    echo "docs.sh: $name failed (log: $work/$name.log)" >&2
    exit 1
  fi
}

# --- symbol graphs for this platform ---------------------------------------------------------------------
log "swift build (XidAppIntents, XidTesting and what they import)"
quiet build-appintents swift build --target XidAppIntents
quiet build-testing swift build --target XidTesting
modules=$(swift build --show-bin-path)/Modules

reexported=XidCore,XidProtocol,XidDevice,XidSession,XidJOSE,XidURLSession,XidLoopback,XidApple
host_flags=(-target "$triple" -I "$modules")
[[ $(uname -s) == Linux ]] && host_flags+=(-I Sources/COpenSSL -I Sources/COpenSSLLoader/include)  # OpenSSL, its loader
[[ $(uname -s) == Darwin ]] && host_flags+=(-sdk "$(xcrun --show-sdk-path)")
graph() {  # graph DIR MODULE FLAGS...
  local dir=$1 module=$2
  shift 2
  mkdir -p "$dir/$module"
  # Synthesized members (stdlib defaults such as `!=`, `map`, `assumeIsolated`) are left out: they are
  # not Xid's API, and they differ between the Linux and iOS standard libraries.
  quiet "extract-$module-$(basename "$dir")" "$extract" -module-name "$module" -minimum-access-level public \
    -skip-synthesized-members -emit-extension-block-symbols -output-dir "$dir/$module" "$@"
}
log "symbol graphs ($triple)"
graph "$work/graphs/host" Xid "${host_flags[@]}" -experimental-allowed-reexported-modules="$reexported"
graph "$work/graphs/host" XidTesting "${host_flags[@]}"
graph "$work/graphs/host" XidAppIntents "${host_flags[@]}"

# --- symbol graphs for iOS, where the SDK is prepared -----------------------------------------------------
sdk_home=${XID_APPLE_SDK_HOME:-${HOME:-/nonexistent}/.cache/xid-apple-sdk}
build_ios=../shared/tools/apple-sdk/build-ios
if [[ $ios != 0 && -d $sdk_home && -x $build_ios ]]; then
  log "build-ios, then the iOS symbol graphs of Xid and XidAppIntents"
  "$build_ios" >"$work/build-ios.log" 2>&1 || true
  if [[ $(tail -1 "$work/build-ios.log") != "ios-build: OK"* ]]; then
    tail -40 "$work/build-ios.log" >&2
    echo "docs.sh: build-ios failed (log: $work/build-ios.log); --no-ios builds the Linux documentation alone" >&2
    exit 1
  fi
  ios_flags=(-target arm64-apple-ios16.0 -sdk "$sdk_home/iPhoneOS17.4.sdk" -resource-dir "$sdk_home/resource-dir"
    -module-cache-path "$sdk_home/ModuleCache" -I .build-ios/arm64-apple-ios/debug/Modules)
  graph "$work/graphs/ios" Xid "${ios_flags[@]}" -experimental-allowed-reexported-modules="$reexported"
  graph "$work/graphs/ios" XidAppIntents "${ios_flags[@]}"
  # DocC merges a module's graphs of several platforms by symbol identifier. Foundation's types live in
  # FoundationEssentials on Linux and in Foundation on Apple platforms, so the same symbol (anything that
  # mentions URL, Date or Data) has two identifiers; spell the Linux ones as on Apple platforms.
  if [[ $(uname -s) == Linux ]]; then
    for file in "$work"/graphs/host/*/*.symbols.json; do
      sed -i -e 's/20FoundationEssentials/10Foundation/g' -e 's/30FoundationInternationalization/10Foundation/g' \
        -e 's/"FoundationEssentials"/"Foundation"/g' "$file"
      [[ $file == *@FoundationEssentials.symbols.json ]] && mv "$file" "${file%@FoundationEssentials.symbols.json}@Foundation.symbols.json"
    done
  fi
else
  rmdir "$work/graphs/ios"
  [[ $ios == 0 ]] && log "iOS symbol graphs skipped (--no-ios)" || log "iOS SDK not prepared: Linux symbol graphs only"
fi

# --- one archive per catalog, then one site --------------------------------------------------------------
convert() {  # convert MODULE [--dependency ARCHIVE]
  local module=$1
  shift
  local graphs=$work/graphs/$module
  mkdir -p "$graphs"
  for platform in "$work"/graphs/host "$work"/graphs/ios; do
    [[ -d $platform/$module ]] && cp -R "$platform/$module" "$graphs/$(basename "$platform")"
  done
  quiet "docc-$module" "$docc" convert "Sources/$module/$module.docc" --additional-symbol-graph-dir "$graphs" \
    --output-path "$work/archives/$module.doccarchive" --fallback-display-name "$module" \
    --fallback-bundle-identifier "$module" --default-code-listing-language swift \
    --enable-experimental-external-link-support --warnings-as-errors "$@"
}
log "docc convert: Xid, XidTesting, XidAppIntents"
convert Xid
convert XidTesting --dependency "$work/archives/Xid.doccarchive"
convert XidAppIntents --dependency "$work/archives/Xid.doccarchive"

if [[ -e $out && ! -e $out/.xid-docs-site && -n $(ls -A "$out" 2>/dev/null) ]]; then
  echo "docs.sh: $out exists and is not a site this script wrote; remove it or pick another --output" >&2
  exit 1
fi
rm -rf "$out"
mkdir -p "$(dirname "$out")"
quiet docc-merge "$docc" merge "$work"/archives/{Xid,XidTesting,XidAppIntents}.doccarchive --output-path "$out" \
  --synthesized-landing-page-name Xid --synthesized-landing-page-kind Package
touch "$out/.xid-docs-site"
log "site in $out ($((SECONDS - started)) s): python3 -m http.server -d $out 8000, then" \
  "http://localhost:8000/documentation/"
