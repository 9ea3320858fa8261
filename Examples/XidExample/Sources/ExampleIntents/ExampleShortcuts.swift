import AppIntents

/// The App Shortcuts that make "Show my balance" and "Run Xid Diagnostics" available in Siri, Spotlight
/// and Shortcuts as soon as the app is installed. A member of the same Xcode target as
/// ``ShowBalanceIntent`` and ``RunDiagnosticsIntent``.
public struct ExampleShortcuts: AppShortcutsProvider {
  @AppShortcutsBuilder public static var appShortcuts: [AppShortcut] {
    AppShortcut(
      intent: ShowBalanceIntent(),
      phrases: [
        "Show my balance in \(.applicationName)",
        "What's my \(.applicationName) balance",
      ])
    AppShortcut(
      intent: RunDiagnosticsIntent(),
      phrases: ["Run \(.applicationName) diagnostics"])
  }
}
