import Foundation
import Xid

/// The one account the app, its App Intents extension and its widget share: the same provider, client
/// and account name in every process, and tokens in a keychain access group with the refresh lock in
/// an App Group container, so that any of them can refresh without signing the others out.
///
/// Call ``configure()`` at the start of every process, before anything else uses `Xid.shared`: the
/// app's start (`AccountModel.start()`), an intent's `perform()`, the widget's timeline provider.
public enum ExampleAccount {
  /// The demo provider's public client (`TestClient.example` in XidTesting).
  public static let clientId = "xid-example"
  /// Where the provider sends the sign-in back to. The web authentication session receives it; the
  /// scheme must be registered at the provider, not in the Info.plist.
  public static let redirectUri = URL(string: "com.example.app:/callback")!
  /// Where the provider's end-session page sends the user after sign-out.
  public static let postLogoutRedirectUri = URL(string: "com.example.app:/signed-out")!
  /// The scopes to ask for.
  public static let scopes = ["openid", "profile", "email"]

  /// The kind of process this is, which decides whether it has a session lock.
  public enum Process: Sendable, Hashable {
    /// The app: the session lock closes after a minute in the background and opens with Face ID,
    /// Touch ID or the passcode.
    case app
    /// An extension (App Intents, widget): no lock of its own, since it cannot show a prompt. The
    /// system guards intents with their `authenticationPolicy` instead.
    case appExtension

    /// The running process: an extension when the main bundle is an `.appex`.
    public static var current: Process {
      Bundle.main.bundleURL.pathExtension == "appex" ? .appExtension : .app
    }
  }

  /// The configuration for `issuer` in a process of kind `process`.
  public static func configuration(issuer: URL, for process: Process) -> XidConfiguration {
    var identity = ClientIdentity(
      issuer: issuer, clientId: clientId, redirectUri: redirectUri, scopes: scopes,
      postLogoutRedirectUri: postLogoutRedirectUri)
    // A member of the app family: its sign-in keeps the family's record, which the companion app
    // (ExampleCompanionUI) signs in from.
    identity.family = ExampleFamily.family
    var configuration = XidConfiguration(identity: identity)
    configuration.policy.deviceSecretHashRule = ExampleFamily.deviceSecretHashRule
    if process == .app {
      configuration.presence = PresenceOptions(
        sessionLock: .biometryWithPasscodeFallback, relockAfterBackground: .seconds(60))
    }
    return configuration
  }

  /// Configures `Xid.shared` for this process from the target's Info.plist (``ExampleSettings``).
  /// The work happens once; later calls return its outcome.
  ///
  /// - Throws: `XidError.Code.invalidConfiguration` for a missing or placeholder Info.plist value,
  ///   `XidError.Code.missingEntitlement` when the App Group is not in the target's entitlements.
  public static func configure() throws { try configured.get() }

  private static let configured = Result<Void, any Error> {
    let settings = try ExampleSettings.fromMainBundle()
    let storage = KeychainTokenStorage(accessGroup: settings.keychainAccessGroup, appGroup: settings.appGroup)
    // Without the App Group container the tokens would still be shared, but two processes could
    // refresh at once and the loser would be signed out: refuse to run like that.
    guard storage.refreshLockDirectory != nil else {
      throw XidError(
        .missingEntitlement,
        "App Group \(settings.appGroup) is not in this target's entitlements: add the App Groups capability with it")
    }
    Xid.shared.setTokenStorage(storage)
    Xid.shared.configure(options: configuration(issuer: settings.issuer, for: .current))
    if let error = Xid.shared.configurationError { throw error }
  }
}
