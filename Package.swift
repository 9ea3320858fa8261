// swift-tools-version: 6.0
import PackageDescription

// The targets are the architecture (docs/architecture.md): each layer depends only on layers below it.
//
//   layer 6  XidTool
//   layer 5  XidCLI, XidAppIntents
//   layer 4  Xid, XidTesting
//   layer 3  XidURLSession, XidLoopback, XidApple
//   layer 2  XidCore (re-exports only) on XidSession on XidDevice on XidProtocol
//   layer 1  XidJOSE
//   layer 0  COpenSSL, COpenSSLLoader (Linux only)
let package = Package(
  name: "Xid",
  platforms: [.iOS(.v16), .macOS(.v13)],
  products: [
    // The whole SDK with the platform's defaults: `import Xid`.
    .library(name: "Xid", targets: ["Xid"]),
    // The portable core alone (protocol, session, storage): no networking library is linked. Its
    // layers are part of it, so that code built on the core (the fuzz targets) can name them.
    .library(name: "XidCore", targets: ["XidCore", "XidSession", "XidDevice", "XidProtocol"]),
    // The URLSession transport, for programs that link the core alone.
    .library(name: "XidURLSession", targets: ["XidURLSession"]),
    // The RFC 8252 loopback redirect listener and browser launcher (macOS and Linux programs).
    .library(name: "XidLoopback", targets: ["XidLoopback"]),
    // JOSE alone (base64url, JSON, JWK, JWS, JWT), for programs that verify tokens without the SDK, and
    // for the fuzz targets of Fuzz/ (a separate package, so `swift build` here never builds them).
    .library(name: "XidJOSE", targets: ["XidJOSE"]),
    .library(name: "XidTesting", targets: ["XidTesting"]),
    .library(name: "XidAppIntents", targets: ["XidAppIntents"]),
    // The command-line tool: `swift run xid demo`.
    .executable(name: "xid", targets: ["XidTool"]),
  ],
  targets: [
    // Layer 0: the platform's crypto. On Linux, OpenSSL 3 libcrypto (its headers: libssl-dev on
    // Debian and Ubuntu), loaded on the first cryptographic operation by COpenSSLLoader rather than
    // linked, so that a program that only reads a stored token never maps it (no pkg-config either:
    // it would link the library). Apple platforms use CryptoKit and Security instead, so nothing of
    // these targets is built there.
    .systemLibrary(name: "COpenSSL", path: "Sources/COpenSSL", providers: [.apt(["libssl-dev"])]),
    .target(name: "COpenSSLLoader"),
    // Layer 1: JOSE (base64url, JSON, JWK, JWS, JWT) on the platform's crypto, and XidError with the
    // one list of its codes. It carries Xid's privacy manifest, since every product links it
    // (docs/apple.md, "The privacy manifest"); nothing reads the resource at run time, so on Linux it
    // is a file beside the binaries and nothing more.
    .target(
      name: "XidJOSE",
      dependencies: [
        .target(name: "COpenSSL", condition: .when(platforms: [.linux])),
        .target(name: "COpenSSLLoader", condition: .when(platforms: [.linux])),
      ],
      resources: [.copy("PrivacyInfo.xcprivacy")]
    ),
    // Layer 2: the portable core, in four targets, each on the ones before it. Foundation only, never
    // FoundationNetworking.
    // 2a. The protocol, stateless: the configuration and the interfaces of the parts Xid runs on
    // (transport, storage, clock, logger, user agent, presence), HTTP messages, the protocol engine
    // (OpenIDClient), DPoP proofs and nonces.
    .target(name: "XidProtocol", dependencies: ["XidJOSE"]),
    // 2b. What binds a session to this device and its user: DPoP keys, the sealed refresh token, the
    // session lock, the confirmations of presence, device credentials.
    .target(name: "XidDevice", dependencies: ["XidProtocol"]),
    // 2c. The session: accounts and their records, refresh under the account's lock, sign-in and
    // sign-out (SessionEngine), the web-authentication flow.
    .target(name: "XidSession", dependencies: ["XidDevice", "XidProtocol"]),
    // 2d. `import XidCore`: the layers above, re-exported.
    .target(name: "XidCore", dependencies: ["XidSession", "XidDevice", "XidProtocol"]),
    // Layer 3: the platform shells, each behind a protocol of the core.
    .target(name: "XidURLSession", dependencies: ["XidCore"]),
    .target(name: "XidLoopback", dependencies: ["XidCore"]),
    // Apple platforms only (empty elsewhere): the web authentication session and the keychain.
    .target(name: "XidApple", dependencies: ["XidCore"]),
    // Layer 4: the composition root: `Xid` with `shared` and the platform's defaults. Re-exports the
    // layers below, so `import Xid` gives the whole API. iOS apps do not get the loopback server.
    .target(
      name: "Xid",
      dependencies: [
        "XidCore", "XidURLSession", "XidApple",
        .target(name: "XidLoopback", condition: .when(platforms: [.macOS, .linux])),
      ]
    ),
    // Layer 4, beside Xid: an OpenID provider in the test process, for Xid's tests and app
    // developers' own. On the core and the loopback server, not the umbrella.
    .target(name: "XidTesting", dependencies: ["XidCore", "XidLoopback"]),
    // Layer 5: App Intents support (Apple platforms; empty elsewhere): tokens in `perform()`, and
    // dialogs for the user when there is none.
    .target(name: "XidAppIntents", dependencies: ["Xid"]),
    // Layer 5: the `xid` command-line tool's arguments, commands and output (XidTesting runs `xid
    // demo`'s provider).
    .target(name: "XidCLI", dependencies: ["Xid", "XidLoopback", "XidTesting"]),
    // Layer 6: the `xid` executable, named XidTool because macOS folders ignore case (Sources/xid
    // would be Sources/Xid).
    .executableTarget(name: "XidTool", dependencies: ["XidCLI"]),
    // The seed's sample code, compiled in Swift 5 language mode: the public API stays source-compatible.
    .executableTarget(
      name: "XidSeedSample",
      dependencies: ["Xid"],
      path: "Examples/SeedSample",
      swiftSettings: [.swiftLanguageMode(.v5)]
    ),
    // What the benchmark programs share.
    .target(name: "BenchmarkSupport", path: "Benchmarks/BenchmarkSupport"),
    .executableTarget(
      name: "XidBenchmarks",
      dependencies: [
        "XidJOSE", "BenchmarkSupport", .target(name: "COpenSSL", condition: .when(platforms: [.linux])),
      ],
      path: "Benchmarks/XidBenchmarks"
    ),
    // getAccessToken() with a token in memory; also prepares the state Benchmarks/cold-start.sh reads.
    .executableTarget(
      name: "XidSessionBenchmarks",
      dependencies: ["Xid", "XidTesting", "BenchmarkSupport"],
      path: "Benchmarks/XidSessionBenchmarks"
    ),
    // DPoP: proof creation against raw OpenSSL signing, and Xid.send with DPoP against Bearer.
    .executableTarget(
      name: "XidDPoPBenchmarks",
      dependencies: [
        "Xid", "XidTesting", "XidLoopback", "BenchmarkSupport",
        .target(name: "COpenSSL", condition: .when(platforms: [.linux])),
      ],
      path: "Benchmarks/XidDPoPBenchmarks"
    ),
    // The cold start of a process that reads its token from FileTokenStorage (with the whole of Xid,
    // and with XidCore alone), and the two references Benchmarks/cold-start.sh times them against
    // (Foundation only; Foundation and FoundationNetworking).
    .executableTarget(name: "XidColdStart", dependencies: ["Xid"], path: "Benchmarks/XidColdStart"),
    .executableTarget(name: "XidCoreColdStart", dependencies: ["XidCore"], path: "Benchmarks/XidCoreColdStart"),
    .executableTarget(name: "BareStart", path: "Benchmarks/BareStart"),
    .executableTarget(name: "NetStart", path: "Benchmarks/NetStart"),
    // What the test targets share: expectations on XidError, the test clock, locked values.
    .target(name: "XidTestSupport", dependencies: ["XidCore", "XidLoopback"], path: "Tests/XidTestSupport"),
    .testTarget(name: "XidJOSETests", dependencies: ["XidJOSE", "XidTestSupport"]),
    .testTarget(
      name: "XidProtocolTests",
      dependencies: [
        "XidCore", "XidProtocol", "XidDevice", "XidSession", "XidTesting", "XidTestSupport",
      ]
    ),
    // A process of the multi-process refresh test, spawned by XidSessionTests.
    .executableTarget(
      name: "XidRefreshWorker", dependencies: ["Xid", "XidTestSupport", "XidTesting"], path: "Tests/XidRefreshWorker"),
    .testTarget(
      name: "XidSessionTests",
      dependencies: [
        "XidCore", "XidProtocol", "XidDevice", "XidSession", "Xid", "XidTesting", "XidRefreshWorker",
        "XidTestSupport", "XidCoreColdStart",
      ]
    ),
    // A process of XidURLSessionTests that measures a refused oversized answer's memory alone.
    .executableTarget(
      name: "XidTransportWorker", dependencies: ["XidURLSession", "XidLoopback", "XidTestSupport"],
      path: "Tests/XidTransportWorker"),
    .testTarget(
      name: "XidURLSessionTests",
      dependencies: ["XidURLSession", "XidLoopback", "XidTestSupport", "XidTransportWorker"]),
    .testTarget(
      name: "XidLoopbackTests", dependencies: ["XidLoopback", "XidURLSession", "XidTesting", "XidTestSupport"]),
    .testTarget(name: "XidTestingTests", dependencies: ["XidTesting", "XidTestSupport"]),
    // The OpenID Foundation's RP conformance cases: the real client against the hostile test provider.
    .testTarget(
      name: "XidConformanceTests", dependencies: ["XidCore", "XidURLSession", "XidTesting", "XidTestSupport"]),
    // Depends on XidTool so that SwiftPM builds the `xid` binary the tests run.
    .testTarget(name: "XidCLITests", dependencies: ["XidCLI", "XidTesting", "XidTool", "XidTestSupport"]),
    // The layering itself, read from the sources (no library dependencies, so it builds at once): no
    // target holds more than 30% of Sources, no two folders of a core layer use each other's types, and
    // no layer of the core names a type of a layer above it.
    .testTarget(name: "XidLayeringTests"),
    // Against a real provider (glewlwyd, scripts/interop); every test is skipped when none is running.
    .testTarget(name: "XidInteropTests", dependencies: ["Xid", "XidRefreshWorker", "XidTestSupport"]),
  ],
  swiftLanguageModes: [.v6]
)
