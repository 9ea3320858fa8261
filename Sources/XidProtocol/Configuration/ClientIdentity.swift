import Foundation

/// What identifies the client at its provider: the issuer, the registration (client identifier,
/// redirect URIs, authentication) and the account it signs in, with the scopes it asks for.
///
/// It is the part of ``XidConfiguration`` that every process sharing a session must agree on: the
/// issuer, client identifier and account name together name the stored session.
public struct ClientIdentity: Sendable, Hashable {
  /// The provider's issuer identifier, exactly as its discovery document states it (trailing slash
  /// included).
  public var issuer: URL
  /// The client identifier registered at the provider.
  public var clientId: String
  /// The redirect URI registered at the provider: a private-use scheme (`com.example.app:/callback`),
  /// a claimed `https` URL, or a loopback `http://127.0.0.1:PORT/path` for desktop and command-line
  /// programs (port 0 picks a free port at each sign-in, where the provider allows any port).
  public var redirectUri: URL
  /// The scopes to request; `openid` is always added.
  public var scopes: [String]
  /// The account name, for apps that keep several sessions with the same provider and client.
  public var account: String
  /// Where the provider returns after ending its session at sign-out.
  public var postLogoutRedirectUri: URL?
  /// How the client authenticates at the token endpoint; public clients (apps) use `.none`.
  public var clientAuthentication: ClientAuthentication
  /// The app family this client belongs to, for one sign-in shared by a developer's apps (OpenID
  /// Connect Native SSO for Mobile Apps 1.0); `nil` (the default) for an app on its own.
  ///
  /// Set, a sign-in with the browser or a device code also asks for the `device_sso` scope and
  /// keeps the family's record (the ID token and device secret issued together), from which the
  /// family's other apps, each with its own client identifier, sign in with no browser
  /// (`SessionEngine.signIn(from:scopes:)`). Every app of the family gives the same name.
  public var family: AppFamily? = nil
  /// The APIs the app calls with tokens meant for each alone (resource indicators, RFC 8707): a
  /// sign-in asks for all of them (`resource` in the authorization request), and each gets its own
  /// access token from the session's refresh token (`getAccessToken(for:)`, and `send` to one of its
  /// URLs). Empty by default: every request carries the session's one access token.
  public var resources: [ProtectedResource] = []

  /// Creates the client's identity.
  ///
  /// - Parameters:
  ///   - issuer: the provider's issuer identifier, exactly as its metadata states it.
  ///   - clientId: the client identifier registered at the provider.
  ///   - redirectUri: the redirect URI registered at the provider.
  ///   - scopes: the scopes to request; `openid` is always requested.
  ///   - account: the account name, for several sessions with one provider and client.
  ///   - postLogoutRedirectUri: where the provider sends the browser after logout.
  ///   - clientAuthentication: how the client authenticates; ``ClientAuthentication/none`` for apps.
  public init(
    issuer: URL, clientId: String, redirectUri: URL, scopes: [String] = ["openid", "profile", "email"],
    account: String = "default", postLogoutRedirectUri: URL? = nil, clientAuthentication: ClientAuthentication = .none
  ) {
    self.issuer = issuer
    self.clientId = clientId
    self.redirectUri = redirectUri
    self.scopes = scopes
    self.account = account
    self.postLogoutRedirectUri = postLogoutRedirectUri
    self.clientAuthentication = clientAuthentication
  }

  /// The issuer identifier as the string the provider's metadata, ID tokens and `iss` parameters must
  /// equal exactly.
  public var issuerIdentifier: String { issuer.absoluteString }

  /// The scopes to request: `openid` first, then ``scopes`` without duplicates, and `device_sso`
  /// for a member of an app ``family``.
  public var requestedScopes: [String] { requestedScopes(nil) }

  /// The scopes a sign-in requests: `openid` first, then `scopes` (``scopes`` when `nil`) without
  /// duplicates, and `device_sso` for a member of an app ``family`` unless `includingFamily` is
  /// `false` (a step-up, which is this app's alone).
  package func requestedScopes(_ scopes: [String]?, includingFamily: Bool = true) -> [String] {
    let scopes = scopes ?? self.scopes
    return Self.withOpenID(family == nil || !includingFamily ? scopes : scopes + [AppFamily.deviceSSOScope])
  }

  /// `openid` followed by `scopes`, each once, in order.
  package static func withOpenID(_ scopes: [String]) -> [String] {
    var seen: Set<String> = ["openid"]
    return ["openid"] + scopes.filter { !$0.isEmpty && seen.insert($0).inserted }
  }

  /// Checks the identity before anything is sent.
  ///
  /// - Throws: ``XidError/Code/insecureURL`` for an issuer that is not https (or loopback http), and
  ///   ``XidError/Code/invalidConfiguration`` for an issuer with a query or fragment, an empty client
  ///   identifier, a redirect URI that is not allowed, or an app family name that is not valid.
  public func validate() throws {
    try issuer.requireSecure(for: "issuer")
    guard issuer.query == nil, issuer.fragment == nil else {
      throw XidError(
        .invalidConfiguration, "the issuer URL must not have a query or fragment (OpenID Connect Discovery 1.0 §2)")
    }
    guard !clientId.isEmpty else { throw XidError(.invalidConfiguration, "the client identifier is empty") }
    try Self.validateRedirectURI(redirectUri, purpose: "redirect URI")
    if let postLogoutRedirectUri {
      try Self.validateRedirectURI(postLogoutRedirectUri, purpose: "post-logout redirect URI")
    }
    try family?.validate()
    var identifiers = Set<String>()
    for resource in resources {
      try resource.validate()
      guard identifiers.insert(resource.parameter).inserted else {
        throw XidError(
          .invalidConfiguration,
          "the resource \"\(SafeText.short(resource.parameter, limit: 96))\" is configured twice in XidConfiguration.identity.resources"
        )
      }
    }
  }

  /// Checks a redirect URI against RFC 8252 and RFC 9700: absolute, no fragment, and `http` only to a
  /// loopback host.
  static func validateRedirectURI(_ uri: URL, purpose: String) throws {
    guard let scheme = uri.scheme?.lowercased(), !scheme.isEmpty else {
      throw XidError(.invalidConfiguration, "the \(purpose) must be an absolute URI with a scheme")
    }
    guard uri.fragment == nil else {
      throw XidError(.invalidConfiguration, "the \(purpose) must not have a fragment (RFC 6749 §3.1.2)")
    }
    if scheme == "http" && !uri.isLoopback {
      throw XidError(
        .invalidConfiguration,
        "the \(purpose) uses http to a host that is not loopback; use https, a loopback address or a private-use scheme (RFC 8252)"
      )
    }
    if scheme == "https" && (uri.host ?? "").isEmpty {
      throw XidError(.invalidConfiguration, "the \(purpose) is an https URI without a host")
    }
  }
}
