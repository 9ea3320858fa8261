// swift-tools-version: 6.0
import PackageDescription

let package = Package(
  name: "Xid",
  platforms: [.iOS(.v16), .macOS(.v13)],
  products: [
    .library(name: "Xid", targets: ["Xid"]),
    .library(name: "XidTesting", targets: ["XidTesting"]),
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
    // An OpenID provider in the test process, for Xid's tests and app developers' own.
    .target(name: "XidTesting", dependencies: ["Xid"]),
    .executableTarget(
      name: "XidBenchmarks",
      dependencies: ["XidJOSE"],
      path: "Benchmarks/XidBenchmarks"
    ),
    .testTarget(name: "XidJOSETests", dependencies: ["XidJOSE"]),
    // A process of the multi-process refresh test, spawned by XidSessionTests.
    .executableTarget(name: "XidRefreshWorker", dependencies: ["Xid"], path: "Tests/XidRefreshWorker"),
    .testTarget(name: "XidSessionTests", dependencies: ["Xid", "XidTesting", "XidRefreshWorker"]),
    .testTarget(name: "XidTestingTests", dependencies: ["XidTesting"]),
    .testTarget(name: "XidTests", dependencies: ["Xid"]),
    .testTarget(name: "XidProtocolTests", dependencies: ["Xid"]),
    // Against a real provider (glewlwyd, scripts/interop); every test is skipped when none is running.
    .testTarget(name: "XidInteropTests", dependencies: ["Xid", "XidRefreshWorker"]),
  ],
  swiftLanguageModes: [.v6]
)
