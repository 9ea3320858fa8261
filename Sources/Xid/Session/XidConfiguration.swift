import Foundation

/// What ``Xid`` needs to sign users in at one provider, for one account.
///
/// ```swift
/// try Xid.shared.configure(options: XidConfiguration(
///   issuer: URL(string: "https://accounts.example.com")!,
///   clientId: "my-app",
///   redirectUri: URL(string: "com.example.app:/oauth/callback")!,
///   scopes: ["openid", "profile", "email"]))
/// ```
public struct XidConfiguration: Sendable {
  /// The provider's issuer identifier, exactly as its discovery document states it.
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
  /// Whether to push authorization requests (RFC 9126) when the provider offers it; Xid always does
  /// when the provider requires it.
  public var prefersPushedAuthorization: Bool
  /// The clock skew tolerated when validating ID tokens.
  public var clockSkewLeeway: TimeInterval
  /// How long before its expiry an access token already counts as expired, so that a token handed
  /// out is still valid when the request reaches the server.
  public var expiryLeeway: TimeInterval
  /// How long a process waits for another one that is refreshing the same account.
  public var refreshLockTimeout: Duration
  /// The HTTP transport for the provider and for authorized requests.
  public var transport: any HTTPTransport
  /// Where Xid's log messages go.
  public var logger: any XidLogger
  /// The time source for expiry, validation and polling.
  public var clock: any XidClock
  /// How the user signs in: a browser, a web authentication session, a test provider's user. `nil`
  /// uses the platform's default: `WebAuthenticationSessionUserAgent` on iOS and visionOS, and on macOS
  /// for a redirect URI that is not loopback; ``LoopbackUserAgent`` for a loopback redirect URI on
  /// macOS, and on Linux.
  public var userAgent: (any AuthorizationUserAgent)?

  /// Creates a configuration.
  public init(
    issuer: URL, clientId: String, redirectUri: URL, scopes: [String] = ["openid", "profile", "email"],
    account: String = "default", postLogoutRedirectUri: URL? = nil, clientAuthentication: ClientAuthentication = .none,
    prefersPushedAuthorization: Bool = false, clockSkewLeeway: TimeInterval = 60, expiryLeeway: TimeInterval = 60,
    refreshLockTimeout: Duration = .seconds(10), transport: any HTTPTransport = URLSessionTransport(),
    logger: any XidLogger = defaultXidLogger(), clock: any XidClock = SystemClock(),
    userAgent: (any AuthorizationUserAgent)? = nil
  ) {
    self.issuer = issuer
    self.clientId = clientId
    self.redirectUri = redirectUri
    self.scopes = scopes
    self.account = account
    self.postLogoutRedirectUri = postLogoutRedirectUri
    self.clientAuthentication = clientAuthentication
    self.prefersPushedAuthorization = prefersPushedAuthorization
    self.clockSkewLeeway = clockSkewLeeway
    self.expiryLeeway = expiryLeeway
    self.refreshLockTimeout = refreshLockTimeout
    self.transport = transport
    self.logger = logger
    self.clock = clock
    self.userAgent = userAgent
  }

  /// The protocol engine's view of this configuration.
  var clientConfiguration: ClientConfiguration {
    ClientConfiguration(
      issuer: issuer, clientID: clientId, redirectURI: redirectUri, scopes: scopes,
      clientAuthentication: clientAuthentication, prefersPushedAuthorization: prefersPushedAuthorization,
      postLogoutRedirectURI: postLogoutRedirectUri, clockSkewLeeway: clockSkewLeeway)
  }

  /// Checks the configuration before anything is sent.
  ///
  /// - Throws: ``XidError/Code/invalidConfiguration``.
  func validate() throws {
    try clientConfiguration.validate()
    if scopes.contains("offline_access") {
      throw XidError(
        .invalidConfiguration,
        "the scope offline_access is not accepted yet: long-lived sessions need DPoP-bound tokens, which a later Xid release brings. Remove it; a refresh token the provider issues anyway is used"
      )
    }
    guard expiryLeeway >= 0, clockSkewLeeway >= 0 else {
      throw XidError(.invalidConfiguration, "expiryLeeway and clockSkewLeeway must not be negative")
    }
  }
}
