import Foundation

/// What an ``OpenIDClient`` needs to know about itself and its provider.
///
/// ```swift
/// let configuration = ClientConfiguration(
///   issuer: URL(string: "https://accounts.example.com")!,
///   clientID: "my-app",
///   redirectURI: URL(string: "com.example.app:/oauth/callback")!,
///   scopes: ["profile", "email", "offline_access"])
/// ```
public struct ClientConfiguration: Sendable, Hashable {
  /// The provider's issuer identifier, exactly as its metadata states it (trailing slash included).
  public var issuer: URL
  /// The client identifier registered at the provider.
  public var clientID: String
  /// The redirect URI registered at the provider: a claimed `https` URL, a private-use scheme
  /// (`com.example.app:/callback`) or a loopback `http` URL (RFC 8252).
  public var redirectURI: URL
  /// The scopes to request. `openid` is always requested, whether listed or not.
  public var scopes: [String]
  /// How the client authenticates to the provider's endpoints; ``ClientAuthentication/none`` for apps.
  public var clientAuthentication: ClientAuthentication
  /// Whether to use pushed authorization requests (RFC 9126) when the provider offers them. They are
  /// used regardless when the provider requires them (`require_pushed_authorization_requests`).
  public var prefersPushedAuthorization: Bool
  /// Where the provider sends the browser after logout, when the app registered such a URI.
  public var postLogoutRedirectURI: URL?
  /// The clock skew allowed when checking ID token times (`exp`, `iat`, `auth_time`), in seconds.
  public var clockSkewLeeway: TimeInterval
  /// How long fetched provider metadata is reused before it is fetched again, in seconds.
  public var metadataLifetime: TimeInterval

  /// Creates a configuration.
  ///
  /// - Parameters:
  ///   - issuer: the provider's issuer identifier, exactly as its metadata states it.
  ///   - clientID: the client identifier registered at the provider.
  ///   - redirectURI: the redirect URI registered at the provider.
  ///   - scopes: the scopes to request besides `openid`, which is always requested.
  ///   - clientAuthentication: how the client authenticates; ``ClientAuthentication/none`` for apps.
  ///   - prefersPushedAuthorization: use RFC 9126 pushed authorization requests when offered.
  ///   - postLogoutRedirectURI: where the provider sends the browser after logout.
  ///   - clockSkewLeeway: the clock skew allowed for ID token times, 60 seconds by default.
  ///   - metadataLifetime: how long provider metadata is cached, one hour by default.
  public init(
    issuer: URL, clientID: String, redirectURI: URL, scopes: [String] = [],
    clientAuthentication: ClientAuthentication = .none, prefersPushedAuthorization: Bool = false,
    postLogoutRedirectURI: URL? = nil, clockSkewLeeway: TimeInterval = 60, metadataLifetime: TimeInterval = 3600
  ) {
    self.issuer = issuer
    self.clientID = clientID
    self.redirectURI = redirectURI
    self.scopes = scopes
    self.clientAuthentication = clientAuthentication
    self.prefersPushedAuthorization = prefersPushedAuthorization
    self.postLogoutRedirectURI = postLogoutRedirectURI
    self.clockSkewLeeway = clockSkewLeeway
    self.metadataLifetime = metadataLifetime
  }

  /// The issuer identifier as the string the provider's metadata, ID tokens and `iss` parameters must
  /// equal exactly.
  public var issuerIdentifier: String { issuer.absoluteString }

  /// The scopes to request: `openid` first, then ``scopes`` without duplicates.
  public var requestedScopes: [String] { Self.withOpenID(scopes) }

  /// `openid` followed by `scopes`, each once, in order.
  static func withOpenID(_ scopes: [String]) -> [String] {
    var seen: Set<String> = ["openid"]
    return ["openid"] + scopes.filter { !$0.isEmpty && seen.insert($0).inserted }
  }

  /// Checks the configuration.
  ///
  /// - Throws: ``XidError/Code/insecureURL`` for an issuer that is not https (or loopback http) and
  ///   ``XidError/Code/invalidConfiguration`` for an issuer with a query or fragment, an empty client
  ///   identifier, or a redirect URI that is not allowed.
  public func validate() throws {
    try issuer.requireSecure(for: "issuer")
    guard issuer.query == nil, issuer.fragment == nil else {
      throw XidError(
        .invalidConfiguration, "the issuer URL must not have a query or fragment (OpenID Connect Discovery 1.0 §2)")
    }
    guard !clientID.isEmpty else { throw XidError(.invalidConfiguration, "the client identifier is empty") }
    try Self.validateRedirectURI(redirectURI, purpose: "redirect URI")
    if let postLogoutRedirectURI {
      try Self.validateRedirectURI(postLogoutRedirectURI, purpose: "post-logout redirect URI")
    }
    guard clockSkewLeeway >= 0, clockSkewLeeway <= 600 else {
      throw XidError(.invalidConfiguration, "the clock skew leeway must be between 0 and 600 seconds")
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
