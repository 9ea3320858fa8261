import Foundation
import Xid

/// The example's app family: the example app (``ExampleAccount``) and its companion app, two clients
/// of one team that share one sign-in (OpenID Connect Native SSO). Both keep their tokens in the
/// keychain access group of ``ExampleSettings``, and the family's record there too, with the family's
/// lock in the App Group (docs/app-family.md has the entitlements).
public enum ExampleFamily {
  /// The family's name, the same in both apps.
  public static let family = AppFamily(name: "com.example.apps")
  /// How the demo provider derives `ds_hash` (XidTesting documents at_hash's rule); leave the default
  /// for a provider that does not say.
  public static let deviceSecretHashRule = DeviceSecretHashRule.atHashRule

  /// The companion app's client at the demo provider (`xid demo --serve` registers it).
  public static let companionClientId = "xid-example-companion"
  /// The companion's redirect URI: it never opens the provider's page, but a client has one.
  public static let companionRedirectUri = URL(string: "com.example.app:/callback")!

  /// The companion app's configuration for `issuer`.
  public static func companionConfiguration(issuer: URL) -> XidConfiguration {
    var identity = ClientIdentity(
      issuer: issuer, clientId: companionClientId, redirectUri: companionRedirectUri,
      scopes: ExampleAccount.scopes)
    identity.family = family
    var configuration = XidConfiguration(identity: identity)
    configuration.policy.deviceSecretHashRule = deviceSecretHashRule
    return configuration
  }

  /// Configures `Xid.shared` for the companion app from its Info.plist (``ExampleSettings``), once.
  ///
  /// - Throws: what ``ExampleAccount/configure()`` throws.
  public static func configureCompanion() throws { try configured.get() }

  private static let configured = Result<Void, any Error> {
    let settings = try ExampleSettings.fromMainBundle()
    let storage = KeychainTokenStorage(accessGroup: settings.keychainAccessGroup, appGroup: settings.appGroup)
    guard storage.refreshLockDirectory != nil else {
      throw XidError(
        .missingEntitlement,
        "App Group \(settings.appGroup) is not in this target's entitlements: add the App Groups capability with it")
    }
    Xid.shared.setTokenStorage(storage)
    Xid.shared.configure(options: companionConfiguration(issuer: settings.issuer))
    if let error = Xid.shared.configurationError { throw error }
  }
}
