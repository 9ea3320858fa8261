import Foundation
@_exported import XidApple
// `import Xid` gives the whole API: the layers below are re-exported.
@_exported import XidCore
@_exported import XidJOSE
@_exported import XidURLSession

#if os(macOS) || os(Linux)
  @_exported import XidLoopback
#endif

/// Signs a user in at an OpenID provider and keeps a valid access token at hand, for the app and its
/// extensions.
///
/// Use ``shared``, or your own instances for several accounts or providers (and in tests):
///
/// ```swift
/// Xid.shared.configure(options: XidConfiguration(
///   issuer: URL(string: "https://accounts.example.com")!, clientId: "my-app",
///   redirectUri: URL(string: "com.example.app:/oauth/callback")!))
/// let session = try await Xid.shared.signIn()
/// let token = try await Xid.shared.getAccessToken()          // refreshed when needed
/// try await Xid.shared.signOut()
/// ```
///
/// `Xid` is the composition root: it fills in the platform's defaults (``URLSessionTransport``, the
/// keychain or ``FileTokenStorage``, the web authentication session or the loopback browser) and hands
/// the work to a ``SessionEngine`` of the portable core.
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
    var configurationError: XidError?
    var storage: (any TokenStorageAdapter)?
    var engine: SessionEngine?
  }

  private let state = LockedValue(State())
  /// The engine once made, readable without `state`'s lock (on Linux without any lock: the token
  /// fast path reads it first): set and cleared only while `state`'s lock is held, so it is always
  /// `state.engine`.
  private let madeEngine = EngineSlot()

  /// Creates an unconfigured instance; call ``configure(options:)`` before anything else.
  public init() {}

  /// Creates a configured instance. Its parts left `nil` are the platform's
  /// (``SessionParts/storage``: the keychain on Apple platforms, ``FileTokenStorage`` elsewhere).
  ///
  /// - Throws: ``XidError/Code/invalidConfiguration`` with what to change.
  public convenience init(configuration: XidConfiguration) throws {
    try configuration.validate()
    self.init()
    configure(options: configuration)
  }

  /// Sets the provider, client and options. Replaces any previous configuration; stored sessions are
  /// kept and found again by issuer, client and account.
  ///
  /// A configuration that is not valid is logged at once, kept in ``configurationError``, and reported
  /// as ``XidError/Code/invalidConfiguration`` by every call that needs a configuration; a previous
  /// valid configuration stays in use. Call ``XidConfiguration/validate()`` to check one early.
  public func configure(options: XidConfiguration) {
    do {
      try options.validate()
    } catch {
      let error = error as? XidError ?? XidError(.invalidConfiguration, "the configuration is not valid")
      let kept = state.update { state -> Bool in
        state.configurationError = error
        return state.configuration != nil
      }
      options.parts.logger.log(
        .error, category: "configuration",
        "configure(options:) was given a configuration that is not valid (\(error.reason))"
          + (kept ? "; the previous configuration stays in use" : "; every call will report it"))
      return
    }
    state.update {
      $0.configuration = options
      $0.configurationError = nil
      $0.engine = nil
      madeEngine.set(nil)
    }
  }

  /// Why the last configuration passed to ``configure(options:)`` was refused, or `nil` when it was
  /// valid.
  public var configurationError: XidError? { state.get().configurationError }

  /// Sets where tokens are stored, in place of the configuration's ``SessionParts/storage``. Call it
  /// before the first sign-in or token request; by default the keychain on Apple platforms and
  /// ``FileTokenStorage`` elsewhere.
  public func setTokenStorage(_ storage: any TokenStorageAdapter) {
    state.update {
      $0.storage = storage
      $0.engine = nil
      madeEngine.set(nil)
    }
  }

  /// The engine for the current configuration and storage, made on first use.
  func engine() throws -> SessionEngine {
    if let engine = madeEngine.get() { return engine }
    return try state.update { state in
      if let engine = state.engine { return engine }
      guard var configuration = state.configuration else {
        if let error = state.configurationError { throw error }
        throw XidError(.notConfigured, "Xid is not configured: call configure(options:) first")
      }
      configuration = try PlatformDefaults.completing(configuration, storage: state.storage)
      let engine = try SessionEngine(configuration: configuration)
      state.engine = engine
      madeEngine.set(engine)
      return engine
    }
  }

  private func userAgent(_ override: (any AuthorizationUserAgent)?) throws -> any AuthorizationUserAgent {
    let configuration = state.get().configuration
    if let agent = override ?? configuration?.parts.userAgent { return agent }
    if let redirectUri = configuration?.identity.redirectUri,
      let agent = PlatformDefaults.userAgent(redirectUri: redirectUri)
    {
      return agent
    }
    throw XidError(
      .invalidConfiguration, "no user agent can show the sign-in page here; set XidConfiguration.parts.userAgent")
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
    return try await engine.signIn(options: options, userAgent: userAgent(options.userAgent))
  }

  /// The authorization URL of a new sign-in, for apps that present the page themselves. Pass the
  /// redirect the app then receives to ``handleRedirect(url:)``.
  public func authorizationURL(options: SignInOptions = SignInOptions()) async throws -> URL {
    try await engine().authorizationURL(options: options)
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
    try await engine().signInWithDeviceCode(scopes: scopes, showCode: showCode)
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
  /// With a valid token in memory, or in storage when this process has not read it yet (an
  /// extension's first call), it returns without leaving the caller's actor (Swift 6.2 and later).
  #if compiler(>=6.2)
    nonisolated(nonsending) public func getAccessToken(forceRefresh: Bool = false) async throws -> String {
      if !forceRefresh, let token = try madeEngine.withEngine({ try $0.accessTokenWithoutWaiting() }) ?? nil {
        return token
      }
      return try await engine().accessToken(forceRefresh: forceRefresh)
    }
  #else
    public func getAccessToken(forceRefresh: Bool = false) async throws -> String {
      if !forceRefresh, let token = try madeEngine.withEngine({ try $0.accessTokenWithoutWaiting() }) ?? nil {
        return token
      }
      return try await engine().accessToken(forceRefresh: forceRefresh)
    }
  #endif

  /// A valid access token for `resource`, one of ``ClientIdentity/resources`` (RFC 8707): issued
  /// from the session's refresh token for that resource alone, kept beside the session's own token
  /// and refreshed on its own.
  ///
  /// ```swift
  /// let token = try await Xid.shared.getAccessToken(for: URL(string: "https://payments.example.com/")!)
  /// ```
  ///
  /// - Throws: ``XidError/Code/invalidConfiguration`` for a resource that is not configured,
  ///   ``XidError/Code/invalidTarget`` when the provider issues no token for it (the session is
  ///   kept), and the errors of ``getAccessToken(forceRefresh:)``.
  public func getAccessToken(for resource: URL, forceRefresh: Bool = false) async throws -> String {
    try await engine().accessToken(for: resource, forceRefresh: forceRefresh)
  }

  /// The user's claims from the provider's UserInfo endpoint (checked to be about the same `sub`).
  public func userInfo() async throws -> UserInfo {
    try await engine().userInfo()
  }

  // MARK: - Events

  /// The changes of the session, made in this process or in another one that shares the storage
  /// (the app, its extensions and widgets): ``SessionEvent/signedIn``, ``SessionEvent/signedOut``,
  /// ``SessionEvent/refreshed``. Events carry no data and never a token: read the session again
  /// (``getSession()``) when one arrives. A lost event costs nothing; the stored session is the truth.
  ///
  /// On Apple platforms the processes signal one another with a Darwin notification named from the
  /// keychain access group (`"<group>.xid.session-changed"`); without an access group only this
  /// process's changes are seen. On Linux, a watch of the ``FileTokenStorage`` folder. Each access
  /// makes a new stream of the current configuration; several may be iterated at once. Before
  /// ``configure(options:)`` (or with a configuration that is not valid), the stream ends at once. An app
  /// with widgets reloads their timelines here (docs/events.md):
  ///
  /// ```swift
  /// Task {
  ///   for await _ in Xid.shared.sessionEvents { WidgetCenter.shared.reloadAllTimelines() }
  /// }
  /// ```
  public var sessionEvents: AsyncStream<SessionEvent> {
    guard let engine = try? engine() else { return AsyncStream { $0.finish() } }
    return engine.events()
  }

  // MARK: - Sign-out

  /// Signs the user out: the local session is deleted first, whatever the network does; then the
  /// refresh token is revoked (best effort) and, with `callEndSession`, the provider's end-session
  /// page is opened with the user agent.
  ///
  /// - Returns: what became of the refresh token at the provider: revoked, not revocable (the
  ///   provider has no revocation endpoint, …) or failed (``SignOutResult/revocation``). Only
  ///   ``RevocationOutcome/revoked`` means the provider no longer accepts it; tell the user otherwise
  ///   when it matters.
  @discardableResult
  public func signOut(callEndSession: Bool = false) async throws -> SignOutResult {
    try await signOut(callEndSession: callEndSession, scope: .thisApp)
  }

  /// Signs the user out of this app alone (``SignOutScope/thisApp``), or of the whole app family
  /// (``SignOutScope/family``): then the family's record is deleted first, so that no app of the
  /// family can sign in from it again, its device secret is revoked (best effort,
  /// ``SignOutResult/deviceSecretRevocation``), and every other app of the family ends its session
  /// at its next refresh, launch or session event. Otherwise as ``signOut(callEndSession:)``.
  @discardableResult
  public func signOut(callEndSession: Bool = false, scope: SignOutScope) async throws -> SignOutResult {
    let engine = try engine()
    let agent = callEndSession ? try userAgent(nil) : nil
    return try await engine.signOut(callEndSession: callEndSession, userAgent: agent, scope: scope)
  }

  // MARK: - Token exchange

  /// Exchanges the session's access token for another token (RFC 8693): one for another service
  /// (`audiences`, `resources`), with fewer scopes, or of another type. With DPoP on, the request
  /// carries a proof of the session's key. The session is never touched, whatever the answer.
  ///
  /// ```swift
  /// let payments = try await Xid.shared.exchangeAccessToken(
  ///   resources: [URL(string: "https://payments.example.com")!], scopes: ["payments:read"])
  /// let token = payments.tokens.accessToken
  /// ```
  public func exchangeAccessToken(
    audiences: [String] = [], resources: [URL] = [], scopes: [String]? = nil,
    requestedTokenType: TokenTypeIdentifier? = nil
  ) async throws -> TokenExchangeResult {
    try await engine().exchangeAccessToken(
      audiences: audiences, resources: resources, scopes: scopes, requestedTokenType: requestedTokenType)
  }

  /// Sends a token exchange request (RFC 8693) for a token the app holds; see
  /// `SessionEngine.exchange(_:)`. The session is never touched, whatever the answer.
  public func exchange(_ request: TokenExchangeRequest) async throws -> TokenExchangeResult {
    try await engine().exchange(request)
  }

  // MARK: - App family

  /// The users signed in to the app family (``ClientIdentity/family``) at this provider, with their
  /// display claims and never a token, for a "Continue as …" choice. Reads storage, never the
  /// network.
  ///
  /// ```swift
  /// if let alice = try await Xid.shared.familyAccounts().first {
  ///   try await Xid.shared.signIn(from: alice)  // no browser
  /// }
  /// ```
  public func familyAccounts() async throws -> [FamilyAccount] {
    try engine().familyAccounts()
  }

  /// Signs this app in from the family's session with no browser (OpenID Connect Native SSO, an
  /// RFC 8693 token exchange with this app's own client identifier).
  ///
  /// - Parameters:
  ///   - account: one of ``familyAccounts()``.
  ///   - scopes: this app's scopes; `nil` for the configured ones.
  /// - Throws: ``XidError/Code/sessionExpired`` when the family's session is gone: sign in with
  ///   ``signIn(options:)`` then.
  @discardableResult
  public func signIn(from account: FamilyAccount, scopes: [String]? = nil) async throws -> XidSession {
    try await engine().signIn(from: account, scopes: scopes)
  }

  // MARK: - Authorized requests

  /// Sends `request` with the access token attached: `Authorization: Bearer …`, or with
  /// ``XidConfiguration/usesDPoP`` `Authorization: DPoP …` and a `DPoP` proof. On a 401 whose
  /// `WWW-Authenticate` says `invalid_token` (or cannot be read), the token is refreshed and the
  /// request sent once more; a DPoP nonce challenge is answered once. The request is sent at most
  /// three times. A step-up challenge (RFC 9470) is thrown as ``XidError/Code/stepUpRequired``: sign
  /// the user in again with `SignInOptions(stepUp: error.stepUp!)`, then repeat the request.
  ///
  /// - Throws: ``XidError/Code/insecureURL`` for a URL that is neither `https` nor loopback,
  ///   ``XidError/Code/stepUpRequired``, token errors (see ``getAccessToken(forceRefresh:)``),
  ///   ``XidError/Code/dpopKeyUnavailable``, and transport errors.
  ///
  /// A request to a URL of a configured resource (``ClientIdentity/resources``) carries that
  /// resource's own token (``getAccessToken(for:forceRefresh:)``).
  public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
    try await engine().send(request)
  }

  /// Sends `request` as ``send(_:)`` does, and says which token authorized it: its resource, and the
  /// `authorization_details` granted with it (RFC 9396).
  ///
  /// - Throws: as ``send(_:)``.
  public func sendReportingGrant(_ request: HTTPRequest) async throws -> AuthorizedResponse {
    try await engine().sendReportingGrant(request)
  }
}
