import AppIntents

/// The App Intents extension's entry point. On iOS 16 the extension target compiles this file together
/// with `ShowBalanceIntent.swift` and `ExampleShortcuts.swift` (from Sources/ExampleIntents), and links
/// the `ExampleShared` and `XidAppIntents` libraries.
@main
struct ExampleIntentsExtension: AppIntentsExtension {}
