// swift-tools-version: 6.0
// Xid's libFuzzer targets, a package of their own so that the main package's `swift build` and
// `swift test` never build them. Build and run them with scripts/fuzz.sh (Linux only); see README.md.
//
// Each fuzz target is an executable with an `@main` that hands control to libFuzzer's driver
// (`LLVMFuzzerRunDriver`, through FuzzSupport) and a `@_cdecl("LLVMFuzzerTestOneInput")` function.
// Why not the usual @main-less layout: with Swift 6.3.1, SwiftPM compiles every executable with
// `-entry-point-function-name <Target>_main` and links it with `--defsym main=<Target>_main`. A
// target without an entry point of its own then either gets an empty one (a single file that is not
// `main.swift` is compiled as a main file: the binary links, exits 0 and fuzzes nothing) or, with
// `-Xswiftc -parse-as-library`, fails to link (`undefined symbol 'FuzzJSON_main'`). libFuzzer's own
// `main` is never used; its driver is, and `-sanitize=fuzzer,address` links it as usual.
import PackageDescription

/// A fuzz target: an executable of the same name, on FuzzSupport and the given products of Xid.
func fuzzTarget(_ name: String, _ products: [String] = ["XidJOSE"]) -> Target {
  .executableTarget(
    name: name,
    dependencies: ["FuzzSupport"] + products.map { .product(name: $0, package: "Xid") }
  )
}

let package = Package(
  name: "XidFuzz",
  // macOS 15 for Int128; the targets are built and run on Linux.
  platforms: [.macOS(.v15)],
  products: [
    .executable(name: "FuzzJSON", targets: ["FuzzJSON"]),
    .executable(name: "FuzzJSONDifferential", targets: ["FuzzJSONDifferential"]),
    .executable(name: "FuzzJWS", targets: ["FuzzJWS"]),
    .executable(name: "FuzzJWK", targets: ["FuzzJWK"]),
    .executable(name: "FuzzDiscovery", targets: ["FuzzDiscovery"]),
    .executable(name: "FuzzTokenResponse", targets: ["FuzzTokenResponse"]),
    .executable(name: "FuzzTokenExchangeResponse", targets: ["FuzzTokenExchangeResponse"]),
    .executable(name: "FuzzAuthorizationResponse", targets: ["FuzzAuthorizationResponse"]),
    .executable(name: "FuzzHTTPRequestHead", targets: ["FuzzHTTPRequestHead"]),
    .executable(name: "FuzzWWWAuthenticate", targets: ["FuzzWWWAuthenticate"]),
    .executable(name: "FuzzTokenRecord", targets: ["FuzzTokenRecord"]),
    .executable(name: "FuzzFamilyRecord", targets: ["FuzzFamilyRecord"]),
    .executable(name: "FuzzDPoPNonce", targets: ["FuzzDPoPNonce"]),
    .executable(name: "FuzzAuthorizationDetails", targets: ["FuzzAuthorizationDetails"]),
    // Writes the seed corpora; built without sanitizers (scripts/make-fuzz-corpus.sh).
    .executable(name: "MakeFuzzCorpus", targets: ["MakeFuzzCorpus"]),
  ],
  dependencies: [.package(name: "Xid", path: "..")],
  targets: [
    // The declaration of libFuzzer's driver entry point.
    .target(name: "CLibFuzzer"),
    // What the fuzz targets share: the entry point, checks that trap, the fixed verification keys.
    .target(name: "FuzzSupport", dependencies: ["CLibFuzzer", .product(name: "XidJOSE", package: "Xid")]),
    fuzzTarget("FuzzJSON"),
    fuzzTarget("FuzzJSONDifferential"),
    fuzzTarget("FuzzJWS"),
    fuzzTarget("FuzzJWK"),
    // XidCore's and XidLoopback's parsers. Those whose entry point is internal (the request head,
    // WWW-Authenticate, the token record, the DPoP nonce cache) use `@testable import`: fuzz.sh
    // builds with -enable-testing.
    fuzzTarget("FuzzDiscovery", ["XidCore"]),
    fuzzTarget("FuzzTokenResponse", ["XidCore"]),
    fuzzTarget("FuzzTokenExchangeResponse", ["XidCore"]),
    fuzzTarget("FuzzAuthorizationResponse", ["XidCore"]),
    fuzzTarget("FuzzHTTPRequestHead", ["XidCore", "XidLoopback"]),
    fuzzTarget("FuzzWWWAuthenticate", ["XidCore"]),
    fuzzTarget("FuzzTokenRecord", ["XidCore"]),
    fuzzTarget("FuzzFamilyRecord", ["XidCore"]),
    fuzzTarget("FuzzDPoPNonce", ["XidCore"]),
    fuzzTarget("FuzzAuthorizationDetails", ["XidCore"]),
    .executableTarget(
      name: "MakeFuzzCorpus",
      dependencies: [
        .product(name: "Xid", package: "Xid"), .product(name: "XidTesting", package: "Xid"),
        .product(name: "XidJOSE", package: "Xid"),
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)
