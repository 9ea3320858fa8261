// swift-tools-version: 6.0
import PackageDescription

let package = Package(
  name: "Xid",
  platforms: [.iOS(.v16), .macOS(.v13)],
  products: [
    .library(name: "Xid", targets: ["Xid"]),
    .library(name: "XidTesting", targets: ["XidTesting"]),
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
    .executableTarget(
      name: "XidBenchmarks",
      dependencies: ["XidJOSE"],
      path: "Benchmarks/XidBenchmarks"
    ),
    .testTarget(name: "XidJOSETests", dependencies: ["XidJOSE"]),
    .testTarget(name: "XidSessionTests", dependencies: ["Xid", "XidTesting"]),
    .testTarget(name: "XidTestingTests", dependencies: ["XidTesting"]),
    .testTarget(name: "XidTests", dependencies: ["Xid"]),
    .testTarget(name: "XidProtocolTests", dependencies: ["Xid"]),
  ],
  swiftLanguageModes: [.v6]
)
