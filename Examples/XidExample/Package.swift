// swift-tools-version: 6.0
import PackageDescription

// The iOS example: an app, an App Intents extension and a widget sharing one Xid session, and a
// companion app (another client) that signs in from the app's family session.
//
// Its own package, so that the library's package stays free of UIKit, SwiftUI and WidgetKit code: the
// root package's `swift build` and `swift test` never see it. SwiftPM makes no app bundle, so the
// targets are sources that an Xcode project links or compiles (README.md has the steps), and the
// `Xcode…` executable targets are the few files that go into the Xcode targets themselves (`@main`).
// Check that it compiles for iOS with the project's `build-ios` tool, run from this folder. The
// self-check's portable target is tested on Linux too: `swift test --test-product XidExamplePackageTests`
// builds only it and its tests (a plain `swift test` would build the SwiftUI targets too).

// The project's products. The path dependency is named "Xid", so that they can be named whatever the
// clone's folder is called (a path dependency's identity is its folder's name).
let xid = Target.Dependency.product(name: "Xid", package: "Xid")
let xidAppIntents = Target.Dependency.product(name: "XidAppIntents", package: "Xid")

let package = Package(
  name: "XidExample",
  platforms: [.iOS(.v16)],
  products: [
    .library(name: "ExampleShared", targets: ["ExampleShared"]),
    .library(name: "ExampleAppUI", targets: ["ExampleAppUI"]),
    .library(name: "ExampleIntents", targets: ["ExampleIntents"]),
    .library(name: "ExampleWidget", targets: ["ExampleWidget"]),
    .library(name: "ExampleCompanionUI", targets: ["ExampleCompanionUI"]),
  ],
  dependencies: [.package(name: "Xid", path: "../..")],
  targets: [
    // The device self-check's portable part: the checks, the logic that judges what each saw, the
    // report and its text export, and the files of the App Group where the processes meet. Foundation
    // only, so that its tests run on Linux (`swift test --test-product XidExamplePackageTests`).
    .target(name: "ExampleDiagnostics"),
    // What every process shares: the provider, the client, the keychain access group, the App Group,
    // the one API call (the demo provider's protected resource), and the device checks' Apple side.
    .target(name: "ExampleShared", dependencies: ["ExampleDiagnostics", xid]),
    // The SwiftUI app: sign-in, a profile behind the session lock, sign-out with end_session, and the
    // Diagnostics screen.
    .target(name: "ExampleAppUI", dependencies: ["ExampleDiagnostics", "ExampleShared", xid]),
    // The "Show my balance" App Intent. On iOS 16 its sources are compiled into the Xcode target (the
    // App Intents extension); a package's intents need AppIntentsPackage, which is iOS 17.
    .target(name: "ExampleIntents", dependencies: ["ExampleShared", xid, xidAppIntents]),
    // The widget: the shared session, and what to do when the user must sign in or unlock.
    .target(name: "ExampleWidget", dependencies: ["ExampleShared", xid, xidAppIntents]),
    // The companion app: a second app of the family, with its own client ID, that offers "Continue as
    // …" and signs in from the example app's session with no browser.
    .target(name: "ExampleCompanionUI", dependencies: ["ExampleShared", xid]),
    // The entry points of the four Xcode targets, compiled here so that they stay correct. The app's
    // privacy manifest beside its entry point goes into the Xcode app target, not into this package.
    .executableTarget(
      name: "XcodeApp", dependencies: ["ExampleAppUI"], path: "XcodeTargets/App", exclude: ["PrivacyInfo.xcprivacy"]),
    .executableTarget(
      name: "XcodeIntentsExtension", dependencies: ["ExampleIntents"], path: "XcodeTargets/IntentsExtension"),
    .executableTarget(
      name: "XcodeWidgetExtension", dependencies: ["ExampleWidget"], path: "XcodeTargets/WidgetExtension"),
    .executableTarget(
      name: "XcodeCompanionApp", dependencies: ["ExampleCompanionUI"], path: "XcodeTargets/CompanionApp"),
    // The self-check's format and judgement, with Swift Testing; the one target of the package that
    // builds on Linux, with its one dependency.
    .testTarget(name: "ExampleDiagnosticsTests", dependencies: ["ExampleDiagnostics"]),
  ],
  swiftLanguageModes: [.v6]
)
