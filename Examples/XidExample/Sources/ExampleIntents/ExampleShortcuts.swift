import AppIntents

/// The App Shortcut that makes "Show my balance" available in Siri, Spotlight and Shortcuts as soon as
/// the app is installed. A member of the same Xcode target as ``ShowBalanceIntent``.
public struct ExampleShortcuts: AppShortcutsProvider {
  @AppShortcutsBuilder public static var appShortcuts: [AppShortcut] {
    AppShortcut(
      intent: ShowBalanceIntent(),
      phrases: [
        "Show my balance in \(.applicationName)",
        "What's my \(.applicationName) balance",
      ])
  }
}
