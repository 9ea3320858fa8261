// swift-tools-version: 6.0
import PackageDescription

let package = Package(
  name: "Xid",
  platforms: [.iOS(.v16), .macOS(.v13)],
  products: [
    .library(name: "Xid", targets: ["Xid"]),
    .library(name: "XidTesting", targets: ["XidTesting"]),
    // The command-line tool: `swift run xid demo`.
    .executable(name: "xid", targets: ["XidTool"]),
    .library(name: "XidAppIntents", targets: ["XidAppIntents"]),
  ],
  targets: [
    // Layer 0: the platform's crypto. On Linux, OpenSSL 3 libcrypto; Apple platforms use
    // CryptoKit and Security instead, so nothing of this target is built there.
    .systemLibrary(
      name: "COpenSSL",
      path: "Sources/COpenSSL",
      pkgConfig: "libcrypto",
      providers: [.apt(["libssl-dev"])]
    ),
    // Layer 1: JOSE (base64url, JSON, JWK, JWS, JWT) on the platform's crypto.
    .target(
      name: "XidJOSE",
      dependencies: [.target(name: "COpenSSL", condition: .when(platforms: [.linux]))]
    ),
    // Layers 2 and up: protocol, session and platform shells.
    .target(name: "Xid", dependencies: ["XidJOSE"]),
    // App Intents support (Apple platforms; empty elsewhere): tokens in `perform()`, and dialogs for
    // the user when there is none.
    .target(name: "XidAppIntents", dependencies: ["Xid"]),
    // An OpenID provider in the test process, for Xid's tests and app developers' own.
    .target(name: "XidTesting", dependencies: ["Xid"]),
    // The `xid` command-line tool: its arguments, commands and output (XidTesting runs `xid demo`'s
    // provider), and the executable, named XidTool because macOS folders ignore case (Sources/xid
    // would be Sources/Xid).
    .target(name: "XidCLI", dependencies: ["Xid", "XidTesting"]),
    .executableTarget(name: "XidTool", dependencies: ["XidCLI"]),
    // What the benchmark programs share.
    .target(name: "BenchmarkSupport", path: "Benchmarks/BenchmarkSupport"),
    .executableTarget(
      name: "XidBenchmarks",
      dependencies: ["XidJOSE", "BenchmarkSupport"],
      path: "Benchmarks/XidBenchmarks"
    ),
    // getAccessToken() with a token in memory; also prepares the state Benchmarks/cold-start.sh reads.
    .executableTarget(
      name: "XidSessionBenchmarks",
      dependencies: ["Xid", "XidTesting", "BenchmarkSupport"],
      path: "Benchmarks/XidSessionBenchmarks"
    ),
    // The cold start of a process that reads its token from FileTokenStorage, and the two references
    // Benchmarks/cold-start.sh times it against (Foundation only; Foundation and FoundationNetworking).
    .executableTarget(name: "XidColdStart", dependencies: ["Xid"], path: "Benchmarks/XidColdStart"),
    .executableTarget(name: "BareStart", path: "Benchmarks/BareStart"),
    .executableTarget(name: "NetStart", path: "Benchmarks/NetStart"),
    // What the test targets share: expectations on XidError.
    .target(name: "XidTestSupport", dependencies: ["XidJOSE"], path: "Tests/XidTestSupport"),
    .testTarget(name: "XidJOSETests", dependencies: ["XidJOSE", "XidTestSupport"]),
    // A process of the multi-process refresh test, spawned by XidSessionTests.
    .executableTarget(name: "XidRefreshWorker", dependencies: ["Xid"], path: "Tests/XidRefreshWorker"),
    .testTarget(name: "XidSessionTests", dependencies: ["Xid", "XidTesting", "XidRefreshWorker", "XidTestSupport"]),
    .testTarget(name: "XidTestingTests", dependencies: ["XidTesting", "XidTestSupport"]),
    .testTarget(name: "XidTests", dependencies: ["Xid", "XidTestSupport"]),
    .testTarget(name: "XidProtocolTests", dependencies: ["Xid", "XidTestSupport"]),
    // The OpenID Foundation's RP conformance cases: the real client against the hostile test provider.
    .testTarget(name: "XidConformanceTests", dependencies: ["Xid", "XidTesting", "XidTestSupport"]),
    // Depends on XidTool so that SwiftPM builds the `xid` binary the tests run.
    .testTarget(name: "XidCLITests", dependencies: ["XidCLI", "XidTesting", "XidTool"]),
    // Against a real provider (glewlwyd, scripts/interop); every test is skipped when none is running.
    .testTarget(name: "XidInteropTests", dependencies: ["Xid", "XidRefreshWorker", "XidTestSupport"]),
  ],
  swiftLanguageModes: [.v6]
)
