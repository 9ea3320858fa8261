import Foundation
// Xid: an OpenID Connect and OAuth 2.0 client. This module re-exports the JOSE layer it is built on,
// so `import Xid` gives access to tokens, keys and errors alike.
@_exported import XidJOSE

/// Signs a user in at an OpenID provider and keeps a valid access token at hand, for the app and its
/// extensions.
///
/// Use ``shared``, or your own instances for several accounts or providers (and in tests):
///
/// ```swift
/// try Xid.shared.configure(options: XidConfiguration(
///   issuer: URL(string: "https://accounts.example.com")!, clientId: "my-app",
///   redirectUri: URL(string: "com.example.app:/oauth/callback")!))
/// let session = try await Xid.shared.signIn()
/// let token = try await Xid.shared.getAccessToken()          // refreshed when needed
/// try await Xid.shared.signOut()
/// ```
///
/// Every method throws ``XidError``. The ones to handle in an app: ``XidError/Code/signInRequired``
/// and ``XidError/Code/sessionExpired`` (show sign-in), ``XidError/Code/userCancelled``, and
/// ``XidError/Code/networkFailure`` or ``XidError/Code/storageLocked`` (try later; the user is still
/// signed in).
public final class Xid: Sendable {
  /// The instance most apps use.
  public static let shared = Xid()

  private struct State: Sendable {
    var configuration: XidConfiguration?
    var storage: (any TokenStorageAdapter)?
    var engine: SessionEngine?
  }

  private let state = LockedValue(State())

  /// Creates an unconfigured instance; call ``configure(options:)`` before anything else.
  public init() {}

  /// Creates a configured instance with `storage` (by default the platform's: the keychain on Apple
  /// platforms, ``FileTokenStorage`` elsewhere).
  public convenience init(configuration: XidConfiguration, storage: (any TokenStorageAdapter)? = nil) throws {
    self.init()
    if let storage { try setTokenStorage(storage) }
    try configure(options: configuration)
  }

  /// Sets the provider, client and options. Replaces any previous configuration; stored sessions are
  /// kept and found again by issuer, client and account.
  ///
  /// - Throws: ``XidError/Code/invalidConfiguration`` with what to change.
  public func configure(options: XidConfiguration) throws {
    try options.validate()
    state.update {
      $0.configuration = options
      $0.engine = nil
    }
  }

  /// Sets where tokens are stored. Call it before the first sign-in or token request; by default the
  /// keychain on Apple platforms and ``FileTokenStorage`` elsewhere.
  public func setTokenStorage(_ storage: any TokenStorageAdapter) throws {
    state.update {
      $0.storage = storage
      $0.engine = nil
    }
  }

  /// The engine for the current configuration and storage, made on first use.
  private func engine() throws -> SessionEngine {
    try state.update { state in
      if let engine = state.engine { return engine }
      guard let configuration = state.configuration else {
        throw XidError(.notConfigured, "Xid is not configured: call configure(options:) first")
      }
      let storage = try state.storage ?? Self.defaultStorage()
      let engine = try SessionEngine(configuration: configuration, storage: storage)
      state.storage = storage
      state.engine = engine
      return engine
    }
  }

  private static func defaultStorage() throws -> any TokenStorageAdapter {
    #if canImport(Security)
      KeychainTokenStorage()
    #else
      try FileTokenStorage()
    #endif
  }

  private func userAgent(_ override: (any AuthorizationUserAgent)?) throws -> any AuthorizationUserAgent {
    let configuration = state.get().configuration
    if let agent = override ?? configuration?.userAgent { return agent }
    if let redirectURI = configuration?.redirectUri, let agent = defaultUserAgent(redirectURI: redirectURI) {
      return agent
    }
    throw XidError(
      .invalidConfiguration, "no user agent can show the sign-in page here; set XidConfiguration.userAgent")
  }

  // MARK: - Sign-in

  /// Signs the user in: opens the provider's sign-in page with the user agent and completes the
  /// sign-in when the provider redirects back.
  ///
  /// - Throws: ``XidError/Code/userCancelled``, ``XidError/Code/signInInProgress``, the provider's
  ///   ``XidError/Code/authorizationFailed``, validation and network errors.
  @discardableResult
  public func signIn(options: SignInOptions = SignInOptions()) async throws -> XidSession {
    let engine = try engine()
    return try await engine.signIn(options: options.authorizationOptions, userAgent: userAgent(options.userAgent))
  }

  /// The authorization URL of a new sign-in, for apps that present the page themselves. Pass the
  /// redirect the app then receives to ``handleRedirect(url:)``.
  public func authorizationURL(options: SignInOptions = SignInOptions()) async throws -> URL {
    try await engine().authorizationURL(options: options.authorizationOptions)
  }

  /// Completes a sign-in with the URL the provider redirected to: checks it against the pending
  /// sign-in (`state`, RFC 9207 `iss`), exchanges the code and validates the ID token.
  ///
  /// - Throws: ``XidError/Code/stateMismatch``, ``XidError/Code/authorizationFailed``, validation and
  ///   network errors. The pending sign-in is removed either way.
  @discardableResult
  public func handleRedirect(url: URL) async throws -> XidSession {
    try await engine().handleRedirect(url: url)
  }

  /// Signs the user in with the device authorization grant (RFC 8628), for devices without a browser:
  /// `showCode` gets the user code and verification URI to show, then Xid polls until the user approves.
  ///
  /// - Throws: ``XidError/Code/accessDenied``, ``XidError/Code/deviceCodeExpired``, network errors.
  @discardableResult
  public func signInWithDeviceCode(
    scopes: [String]? = nil, showCode: @escaping @Sendable (DeviceAuthorization) async -> Void
  ) async throws -> XidSession {
    try await engine().signInWithDevice(scopes: scopes, show: showCode)
  }

  // MARK: - Session and tokens

  /// The signed-in user, or `nil` when nobody is signed in. Reads storage, never the network.
  ///
  /// - Throws: ``XidError/Code/storageLocked`` while the device is locked (the user is still signed in).
  public func getSession() async throws -> XidSession? {
    try await engine().session()
  }

  /// A valid access token, refreshed first when it expires within the configured leeway (or when
  /// `forceRefresh` is set, for example after the API answered 401).
  ///
  /// Concurrent callers share one refresh, and processes sharing the storage never refresh the same
  /// account at once.
  ///
  /// - Throws: ``XidError/Code/signInRequired``, ``XidError/Code/sessionExpired`` (sign the user in
  ///   again), or ``XidError/Code/networkFailure`` and ``XidError/Code/storageLocked`` (try later).
  ///
  /// With a valid token in memory it returns without leaving the caller's actor (Swift 6.2 and later).
  #if compiler(>=6.2)
    nonisolated(nonsending) public func getAccessToken(forceRefresh: Bool = false) async throws -> String {
      let engine = try engine()
      if !forceRefresh, let token = engine.account.usableAccessTokenFromMemory() { return token }
      return try await engine.account.validRecord(force: forceRefresh).accessToken
    }
  #else
    public func getAccessToken(forceRefresh: Bool = false) async throws -> String {
      let engine = try engine()
      if !forceRefresh, let token = engine.account.usableAccessTokenFromMemory() { return token }
      return try await engine.account.validRecord(force: forceRefresh).accessToken
    }
  #endif

  /// The user's claims from the provider's UserInfo endpoint (checked to be about the same `sub`).
  public func userInfo() async throws -> UserInfo {
    try await engine().userInfo()
  }

  // MARK: - Sign-out

  /// Signs the user out: the local session is deleted first, whatever the network does; then the
  /// refresh token is revoked (best effort) and, with `callEndSession`, the provider's end-session
  /// page is opened with the user agent.
  public func signOut(callEndSession: Bool = false) async throws {
    let engine = try engine()
    let agent = callEndSession ? try userAgent(nil) : nil
    try await engine.signOut(callEndSession: callEndSession, userAgent: agent)
  }

  // MARK: - Authorized requests

  /// Sends `request` with the access token attached (`Authorization: Bearer …`). On a 401 whose
  /// `WWW-Authenticate` says `invalid_token` (or cannot be read), the token is refreshed and the
  /// request sent once more; never more than once.
  ///
  /// - Throws: ``XidError/Code/insecureURL`` for a URL that is neither `https` nor loopback, token
  ///   errors (see ``getAccessToken(forceRefresh:)``) and transport errors.
  public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
    let engine = try engine()
    try request.url.requireSecure(for: "authorized request URL")
    let token = try await getAccessToken()
    let response = try await engine.configuration.transport.send(request.authorized(with: token))
    guard response.status == 401, response.invalidTokenChallenge else { return response }
    engine.configuration.logger.log(.info, category: "request", "the server refused the access token; refreshing once")
    let fresh = try await getAccessToken(forceRefresh: true)
    return try await engine.configuration.transport.send(request.authorized(with: fresh))
  }
}

/// How one sign-in should go: what to ask the provider, and which user agent shows the page.
public struct SignInOptions: Sendable {
  /// Scopes instead of the configuration's; `openid` is always added.
  public var scopes: [String]?
  /// `prompt` values, for example `["login"]` or `["consent"]`.
  public var prompt: [String]
  /// A hint about who signs in (`login_hint`).
  public var loginHint: String?
  /// The maximum age of the user's authentication at the provider, in seconds (`max_age`).
  public var maxAge: Int?
  /// Preferred languages of the sign-in page (`ui_locales`).
  public var uiLocales: [String]
  /// Requested authentication context classes (`acr_values`).
  public var acrValues: [String]
  /// Extra authorization parameters; they cannot override the security parameters.
  public var additionalParameters: [String: String]
  /// The user agent for this sign-in instead of the configuration's.
  public var userAgent: (any AuthorizationUserAgent)?

  /// Creates options; every field is optional.
  public init(
    scopes: [String]? = nil, prompt: [String] = [], loginHint: String? = nil, maxAge: Int? = nil,
    uiLocales: [String] = [], acrValues: [String] = [], additionalParameters: [String: String] = [:],
    userAgent: (any AuthorizationUserAgent)? = nil
  ) {
    self.scopes = scopes
    self.prompt = prompt
    self.loginHint = loginHint
    self.maxAge = maxAge
    self.uiLocales = uiLocales
    self.acrValues = acrValues
    self.additionalParameters = additionalParameters
    self.userAgent = userAgent
  }

  var authorizationOptions: AuthorizationOptions {
    AuthorizationOptions(
      scopes: scopes, prompt: prompt, loginHint: loginHint, maxAge: maxAge, uiLocales: uiLocales, acrValues: acrValues,
      additionalParameters: additionalParameters)
  }
}

extension HTTPRequest {
  func authorized(with token: String) -> HTTPRequest {
    var request = self
    request.headers["Authorization"] = "Bearer " + token
    return request
  }
}

extension HTTPResponse {
  /// Whether a 401 asks for a new token: its `WWW-Authenticate` says `invalid_token`, or cannot be
  /// read (RFC 6750 §3). An `insufficient_scope` or another scheme's challenge does not.
  var invalidTokenChallenge: Bool {
    guard let challenge = headers["WWW-Authenticate"] else { return true }
    guard challenge.lowercased().hasPrefix("bearer") else { return false }
    guard let error = ProtocolHTTP.challengeParameter("error", in: challenge) else { return true }
    return error == "invalid_token"
  }
}
