import Foundation

/// What Xid needs to sign users in at one provider, for one account: the one configuration of the
/// session and of the protocol engine beneath it.
///
/// ```swift
/// Xid.shared.configure(options: XidConfiguration(
///   issuer: URL(string: "https://accounts.example.com")!,
///   clientId: "my-app",
///   redirectUri: URL(string: "com.example.app:/oauth/callback")!,
///   scopes: ["openid", "profile", "email"]))
/// ```
///
/// Call ``validate()`` to check a configuration early; every operation that needs one checks it too.
public struct XidConfiguration: Sendable {
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
  /// Whether to push authorization requests (RFC 9126) when the provider offers it; Xid always does
  /// when the provider requires it.
  public var prefersPushedAuthorization: Bool
  /// The clock skew tolerated when validating ID tokens (`exp`, `iat`, `auth_time`); 0 to 600 seconds.
  public var clockSkewLeeway: Duration
  /// How long before its expiry an access token already counts as expired, so that a token handed
  /// out is still valid when the request reaches the server.
  public var expiryLeeway: Duration
  /// How long fetched provider metadata is reused before it is fetched again.
  public var metadataLifetime: Duration
  /// How long a process waits for another one that is refreshing the same account, measured on
  /// ``clock`` and in real time (whichever passes first).
  public var refreshLockTimeout: Duration
  /// How long Xid waits for the provider's answer to a request (discovery, keys, token, revocation,
  /// UserInfo, device authorization) before it gives up with ``XidError/Code/networkFailure``,
  /// measured on ``clock``. The transport's own timeout applies as well. A refresh holds the
  /// account's lock while it waits, so other processes may meanwhile give up with
  /// ``XidError/Code/lockTimeout`` after ``refreshLockTimeout``: both keep the session.
  public var requestTimeout: Duration = .seconds(30)
  /// Whether the session's tokens are bound to a key of this device with DPoP (RFC 9449); off by
  /// default. When on, every request that carries an access token sends it as
  /// `Authorization: DPoP …` with a `DPoP` proof, so **the resource servers the app calls must accept
  /// DPoP-bound tokens**, and `offline_access` may be requested. See docs/dpop.md.
  public var usesDPoP = false
  /// Where DPoP keys are made when ``usesDPoP`` is on. `nil` uses the platform's: the `Xid` module
  /// picks the Secure Enclave on Apple devices that have one; otherwise ``SoftwareDPoPKeyFactory``.
  public var dpopKeyFactory: (any DPoPKeyFactory)?
  /// The HTTP transport for the provider and for authorized requests. `nil` uses the platform's:
  /// the `Xid` module fills in `URLSessionTransport`; a program that links `XidCore` alone passes one.
  public var transport: (any HTTPTransport)?
  /// Where Xid's log messages go.
  public var logger: any XidLogger
  /// The time source for expiry, validation and polling.
  public var clock: any XidClock
  /// How the user signs in: a browser, a web authentication session, a test provider's user. `nil`
  /// uses the platform's default: `WebAuthenticationSessionUserAgent` on iOS and visionOS, and on macOS
  /// for a redirect URI that is not loopback; `LoopbackUserAgent` for a loopback redirect URI on
  /// macOS, and on Linux.
  public var userAgent: (any AuthorizationUserAgent)?
  /// What needs the user to be present: a session lock, a refresh token sealed with a key that needs
  /// them. Nothing by default; see ``PresenceOptions``.
  public var presence = PresenceOptions()
  /// The provider's deviations from the standards that Xid accepts; none by default.
  public var providerQuirks: ProviderQuirks
  /// The time the system grants for a refresh, a sign-in's save or a sign-out, during which Xid holds
  /// the account's lock. `nil` uses the platform's: the `Xid` module fills in
  /// `ProcessExpiringActivity` on iOS (safe in app extensions); an app may pass a
  /// `BackgroundTaskActivity` built on `UIApplication.beginBackgroundTask`. Elsewhere, none.
  public var backgroundActivity: (any BackgroundActivity)?

  /// Creates a configuration.
  ///
  /// - Parameters:
  ///   - issuer: the provider's issuer identifier, exactly as its metadata states it.
  ///   - clientId: the client identifier registered at the provider.
  ///   - redirectUri: the redirect URI registered at the provider.
  ///   - scopes: the scopes to request; `openid` is always requested.
  ///   - account: the account name, for several sessions with one provider and client.
  ///   - postLogoutRedirectUri: where the provider sends the browser after logout.
  ///   - clientAuthentication: how the client authenticates; ``ClientAuthentication/none`` for apps.
  ///   - prefersPushedAuthorization: use RFC 9126 pushed authorization requests when offered.
  ///   - clockSkewLeeway: the clock skew allowed for ID token times, 60 seconds by default.
  ///   - expiryLeeway: how early an access token counts as expired, 60 seconds by default.
  ///   - metadataLifetime: how long provider metadata is cached, one hour by default.
  ///   - refreshLockTimeout: how long to wait for another process's refresh, 10 seconds by default.
  ///   - requestTimeout: how long to wait for the provider's answer, 30 seconds by default.
  ///   - transport: the HTTP transport; `nil` for the platform's.
  ///   - logger: where log messages go.
  ///   - clock: the time source.
  ///   - userAgent: how the user signs in; `nil` for the platform's.
  ///   - providerQuirks: the provider's deviations from the standards to accept; none by default.
  ///   - backgroundActivity: the time asked of the system while the account's lock is held; `nil`
  ///     for the platform's.
  public init(
    issuer: URL, clientId: String, redirectUri: URL, scopes: [String] = ["openid", "profile", "email"],
    account: String = "default", postLogoutRedirectUri: URL? = nil, clientAuthentication: ClientAuthentication = .none,
    prefersPushedAuthorization: Bool = false, clockSkewLeeway: Duration = .seconds(60),
    expiryLeeway: Duration = .seconds(60), metadataLifetime: Duration = .seconds(3600),
    refreshLockTimeout: Duration = .seconds(10), requestTimeout: Duration = .seconds(30),
    transport: (any HTTPTransport)? = nil,
    logger: any XidLogger = defaultXidLogger(), clock: any XidClock = SystemClock(),
    userAgent: (any AuthorizationUserAgent)? = nil, providerQuirks: ProviderQuirks = [],
    backgroundActivity: (any BackgroundActivity)? = nil
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
    self.metadataLifetime = metadataLifetime
    self.refreshLockTimeout = refreshLockTimeout
    self.requestTimeout = requestTimeout
    self.transport = transport
    self.logger = logger
    self.clock = clock
    self.userAgent = userAgent
    self.providerQuirks = providerQuirks
    self.backgroundActivity = backgroundActivity
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

  /// Checks the configuration before anything is sent.
  ///
  /// - Throws: ``XidError/Code/insecureURL`` for an issuer that is not https (or loopback http), and
  ///   ``XidError/Code/invalidConfiguration`` with what to change for anything else: an issuer with a
  ///   query or fragment, an empty client identifier, a redirect URI that is not allowed, a leeway out
  ///   of range, or a scope Xid refuses (see ``checkScopes(_:)``).
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
    guard clockSkewLeeway >= .zero, clockSkewLeeway <= .seconds(600) else {
      throw XidError(.invalidConfiguration, "the clock skew leeway must be between 0 and 600 seconds")
    }
    guard requestTimeout > .zero else {
      throw XidError(.invalidConfiguration, "the request timeout must be positive")
    }
    guard expiryLeeway >= .zero else {
      throw XidError(.invalidConfiguration, "the expiry leeway must not be negative")
    }
    try presence.validate()
    if presence.protectsDPoPKey && !usesDPoP {
      throw XidError(
        .invalidConfiguration,
        "PresenceOptions.protectsDPoPKey protects the session's DPoP key, and DPoP is off: turn on XidConfiguration.usesDPoP, or turn protectsDPoPKey off"
      )
    }
    try checkScopes(scopes)
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
