import AppIntents
import ExampleShared

/// "Run Xid Diagnostics": checks 4 and 5 of the app's Diagnostics screen, in the App Intents
/// extension's own process. It reads the value the app wrote in the shared keychain access group
/// (never a token) and takes the account's lock in the App Group container, stores what it saw in the
/// App Group for the app to show and export, and says it in its dialog.
///
/// A member of the same Xcode target as ``ShowBalanceIntent`` (README.md), so that it runs in the
/// extension, not in the app.
public struct RunDiagnosticsIntent: AppIntent {
  public static var title: LocalizedStringResource { "Run Xid Diagnostics" }

  public static var description: IntentDescription? {
    IntentDescription(
      "Checks that this extension reads the app's keychain item and takes the lock it shares with the app, for the app's Diagnostics screen."
    )
  }

  /// Creates the intent.
  public init() {}

  public func perform() async throws -> some IntentResult & ProvidesDialog {
    let summary = await ExtensionDiagnostics.runForIntent()
    return .result(dialog: "\(summary)")
  }
}
