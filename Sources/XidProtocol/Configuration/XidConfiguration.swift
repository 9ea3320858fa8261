import Foundation

/// What Xid needs to sign users in at one provider, for one account, in three parts: the client's
/// ``identity``, the session's ``policy`` and the ``parts`` it runs on.
///
/// ```swift
/// Xid.shared.configure(options: XidConfiguration(
///   issuer: URL(string: "https://accounts.example.com")!,
///   clientId: "my-app",
///   redirectUri: URL(string: "com.example.app:/oauth/callback")!,
///   scopes: ["openid", "profile", "email"]))
/// ```
///
/// Everything beyond the four values above has a default; set what differs on its part:
///
/// ```swift
/// var configuration = XidConfiguration(issuer: issuer, clientId: "my-app", redirectUri: redirectUri)
/// configuration.usesDPoP = true                         // configuration.policy.usesDPoP
/// configuration.identity.account = "work"
/// configuration.parts.logger = MyLogger()
/// ```
///
/// Call ``validate()`` to check a configuration early; every operation that needs one checks it too.
public struct XidConfiguration: Sendable {
  /// What identifies the client: issuer, client ID, redirect URIs, scopes, account, authentication.
  public var identity: ClientIdentity
  /// How the session behaves: leeways, timeouts, DPoP, presence, pushed requests, provider quirks.
  public var policy: SessionPolicy
  /// What the session runs on: transport, storage, clock, user agent, background time, DPoP key
  /// factory, logger.
  public var parts: SessionParts

  /// Creates a configuration from its three parts.
  ///
  /// - Parameters:
  ///   - identity: what identifies the client at the provider.
  ///   - policy: how the session behaves; the safe defaults unless given.
  ///   - parts: what the session runs on; the platform's unless given.
  public init(identity: ClientIdentity, policy: SessionPolicy = SessionPolicy(), parts: SessionParts = SessionParts()) {
    self.identity = identity
    self.policy = policy
    self.parts = parts
  }

  /// Creates a configuration for a client, with the default policy and the platform's parts.
  ///
  /// - Parameters:
  ///   - issuer: the provider's issuer identifier, exactly as its metadata states it.
  ///   - clientId: the client identifier registered at the provider.
  ///   - redirectUri: the redirect URI registered at the provider.
  ///   - scopes: the scopes to request; `openid` is always requested.
  public init(issuer: URL, clientId: String, redirectUri: URL, scopes: [String] = ["openid", "profile", "email"]) {
    self.init(identity: ClientIdentity(issuer: issuer, clientId: clientId, redirectUri: redirectUri, scopes: scopes))
  }

  /// Whether the session's tokens are bound to a key of this device with DPoP (RFC 9449): the
  /// policy's ``SessionPolicy/usesDPoP``.
  public var usesDPoP: Bool {
    get { policy.usesDPoP }
    set { policy.usesDPoP = newValue }
  }

  /// What needs the user to be present: the policy's ``SessionPolicy/presence``.
  public var presence: PresenceOptions {
    get { policy.presence }
    set { policy.presence = newValue }
  }

  /// Checks the configuration before anything is sent.
  ///
  /// - Throws: ``XidError/Code/insecureURL`` for an issuer that is not https (or loopback http), and
  ///   ``XidError/Code/invalidConfiguration`` with what to change for anything else: see
  ///   ``ClientIdentity/validate()`` and ``SessionPolicy/validate()``, and a scope Xid refuses (see
  ///   ``checkScopes(_:)``).
  public func validate() throws {
    try identity.validate()
    try policy.validate()
    try checkScopes(identity.scopes)
  }
}
