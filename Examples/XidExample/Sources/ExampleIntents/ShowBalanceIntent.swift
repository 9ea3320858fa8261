import AppIntents
import ExampleShared
import Xid
import XidAppIntents

/// "Show my balance": calls the API with `Xid.shared.send(_:)` from the intent's own process (the App
/// Intents extension), on the session the app signed in, shared through the keychain access group and
/// the App Group.
///
/// When there is no usable session it throws an `XidIntentError`, whose message App Intents shows or
/// speaks as the dialog; the user stays signed in, whatever the reason:
///
/// | Situation | The dialog says |
/// | --- | --- |
/// | nobody signed in, or the provider ended the session | open the app to sign in |
/// | the session lock is closed (the intent runs in the app's process while the app is locked) | open the app to unlock it |
/// | a refresh needs Face ID, Touch ID or the passcode | open the app to confirm it's you |
/// | the device has not been unlocked since it started | unlock the device |
/// | no network, the provider is down | try again later |
///
/// On iOS 16 App Intents only finds intents compiled into the app or extension target itself, so
/// this file is a member of the Xcode target (README.md); from iOS 17 on, a target can link the
/// `ExampleIntents` library instead and list ``ExampleIntentsPackage``.
public struct ShowBalanceIntent: AppIntent {
  public static var title: LocalizedStringResource { "Show My Balance" }

  public static var description: IntentDescription? {
    IntentDescription("Shows your balance, with the account you signed in to in the Xid Example app.")
  }

  /// From a locked device, the system asks for Face ID, Touch ID or the passcode before `perform()`:
  /// the extension has no session lock of its own.
  public static var authenticationPolicy: IntentAuthenticationPolicy { .requiresLocalDeviceAuthentication }

  /// Creates the intent.
  public init() {}

  public func perform() async throws -> some IntentResult & ProvidesDialog {
    let response = try await XidIntentSupport.run {
      // Once per process: Xid.shared with the shared keychain storage and refresh lock.
      try ExampleAccount.configure()
      // Authorization: Bearer …, refreshed first when it expires, and once more on a 401.
      return try await Xid.shared.send(BalanceAPI.request())
    }
    let balance = try BalanceAPI.balance(from: response)
    return .result(dialog: "\(balance.summary)")
  }
}
