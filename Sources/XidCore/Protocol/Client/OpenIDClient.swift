import Foundation

/// An OpenID Connect client for one provider: discovery, sign-in with authorization code + PKCE (and
/// pushed authorization requests), ID token validation, refresh, UserInfo, revocation, logout and the
/// device authorization grant.
///
/// It keeps no tokens: the session layer stores what it returns. Its only state is the provider's
/// metadata and keys, cached.
///
/// ```swift
/// let client = try OpenIDClient(configuration: configuration, transport: URLSessionTransport())
/// let request = try await client.makeAuthorizationRequest()
/// store(request.pending)                       // until the redirect arrives
/// open(request.url)
/// // … the redirect arrives:
/// let result = try await client.handleRedirect(url: callbackURL, pending: storedPending)
/// remove(result.pending)                       // single-use
/// ```
public actor OpenIDClient {
  /// The client's configuration.
  public nonisolated let configuration: XidConfiguration
  /// The clock that gives the time for validation and waits between device polls.
  public nonisolated let clock: any XidClock
  private let http: ProtocolHTTP
  private let discovery: ProviderDiscovery
  private var keyCache: JWKSCache?

  /// Creates a client.
  ///
  /// - Parameters:
  ///   - configuration: the client's configuration.
  ///   - transport: the HTTP transport every request goes through.
  ///   - clock: the clock; ``SystemClock`` by default, a controllable one in tests.
  /// - Throws: ``XidError`` when the configuration is invalid (see ``XidConfiguration/validate()``).
  public init(configuration: XidConfiguration, transport: any HTTPTransport, clock: any XidClock = SystemClock())
    throws
  {
    try configuration.validate()
    self.configuration = configuration
    self.clock = clock
    self.http = ProtocolHTTP(transport: transport)
    self.discovery = ProviderDiscovery(
      issuer: configuration.issuer, transport: transport, clock: clock, lifetime: configuration.metadataLifetime)
  }

  // MARK: - Discovery and keys

  /// The provider's metadata, cached for ``XidConfiguration/metadataLifetime``.
  ///
  /// - Parameter forceRefresh: fetch it even if the cached copy is fresh.
  /// - Throws: see ``ProviderDiscovery/metadata(forceRefresh:)``.
  public func metadata(forceRefresh: Bool = false) async throws -> ProviderMetadata {
    try await discovery.metadata(forceRefresh: forceRefresh)
  }

  /// The cache of the provider's signing keys, for the metadata's current `jwks_uri`.
  public func keys() async throws -> JWKSCache {
    let metadata = try await metadata()
    return keyCache(for: metadata)
  }

  private func keyCache(for metadata: ProviderMetadata) -> JWKSCache {
    if let keyCache, keyCache.url == metadata.jwksURI { return keyCache }
    let cache = JWKSCache(url: metadata.jwksURI, transport: http.transport, clock: clock)
    keyCache = cache
    return cache
  }

  /// Validates an ID token with the provider's keys and the client's settings.
  ///
  /// - Throws: see ``IDTokenValidator/validate(_:purpose:accessToken:authorizationCode:keys:now:)``.
  public func validateIDToken(
    _ token: String, purpose: IDTokenValidator.Purpose, accessToken: String?, authorizationCode: String? = nil
  ) async throws -> IDToken {
    try await validateIDToken(
      token, purpose: purpose, accessToken: accessToken, authorizationCode: authorizationCode, checkingTimes: true)
  }

  /// ``validateIDToken(_:purpose:accessToken:authorizationCode:)``, optionally without the checks of
  /// `exp`, `iat`, `nbf` and `auth_time` against the clock: to tell a clock skew from a foreign token.
  package func validateIDToken(
    _ token: String, purpose: IDTokenValidator.Purpose, accessToken: String?, authorizationCode: String? = nil,
    checkingTimes: Bool
  ) async throws -> IDToken {
    let metadata = try await metadata()
    var validator = IDTokenValidator(
      issuer: configuration.issuerIdentifier, clientId: configuration.clientId,
      allowedAlgorithms: try metadata.idTokenSigningAlgorithms(), leeway: configuration.clockSkewLeeway)
    validator.checksTimes = checkingTimes
    return try await validator.validate(
      token, purpose: purpose, accessToken: accessToken, authorizationCode: authorizationCode,
      keys: keyCache(for: metadata), now: clock.now)
  }

  // MARK: - Sign-in

  /// Starts a sign-in: fresh `state`, `nonce` and PKCE verifier, and the URL to open.
  ///
  /// The request is pushed (RFC 9126) when the provider requires it, or when it offers it and the
  /// configuration or `options` ask for it; the URL then carries only `client_id` and `request_uri`.
  ///
  /// - Returns: the URL and the ``PendingAuthorization`` to keep until the redirect arrives.
  /// - Throws: ``XidError`` with ``XidError/Code/invalidConfiguration`` (a reserved additional
  ///   parameter, a bad redirect URI), ``XidError/Code/unsupportedByProvider`` (no S256, or pushed
  ///   requests required without an endpoint), ``XidError/Code/pushedAuthorizationFailed``, and
  ///   discovery errors.
  public func makeAuthorizationRequest(_ options: SignInOptions = SignInOptions()) async throws
    -> AuthorizationRequest
  {
    let metadata = try await metadata()
    let (parameters, pending) = try AuthorizationRequest.parameters(
      configuration: configuration, metadata: metadata, options: options, now: clock.now)
    let push = try AuthorizationRequest.shouldPush(
      metadata: metadata, requested: options.usePushedAuthorization ?? configuration.prefersPushedAuthorization)
    let url =
      push
      ? try await PushedAuthorization.push(parameters, configuration: configuration, metadata: metadata, http: http)
      : metadata.authorizationEndpoint.appendingQuery(parameters)
    return AuthorizationRequest(url: url, pending: pending, isPushed: push)
  }

  /// Checks a redirect against the pending requests (see ``AuthorizationResponse``) without
  /// exchanging the code. Pending requests of another issuer or client are ignored.
  ///
  /// - Throws: see ``AuthorizationResponse/init(callbackURL:pending:requireIssuer:)``.
  public func parseRedirect(url: URL, pending: [PendingAuthorization]) async throws -> AuthorizationResponse {
    let metadata = try await metadata()
    let ours = pending.filter { $0.issuer == configuration.issuerIdentifier && $0.clientId == configuration.clientId }
    return try AuthorizationResponse(
      callbackURL: url, pending: ours, requireIssuer: metadata.authorizationResponseIssParameterSupported)
  }

  /// Completes a sign-in: checks the redirect, exchanges the code and validates the ID token.
  ///
  /// The pending request that matched is in the result. On failure it was used up all the same:
  /// remove the one ``PendingAuthorization/matching(callbackURL:in:)`` finds for `url`, in either case.
  ///
  /// - Parameters:
  ///   - url: the URL the browser was redirected to.
  ///   - pending: the pending authorizations the app keeps.
  /// - Throws: the errors of ``parseRedirect(url:pending:)`` and ``exchangeCode(_:)``.
  public func handleRedirect(url: URL, pending: [PendingAuthorization]) async throws -> AuthenticationResult {
    let response = try await parseRedirect(url: url, pending: pending)
    return try await exchangeCode(response)
  }

  /// Exchanges the code of a checked authorization response for tokens and validates the ID token.
  ///
  /// - Throws: ``XidError`` with ``XidError/Code/tokenRequestFailed``,
  ///   ``XidError/Code/invalidTokenResponse`` (also when no ID token came back),
  ///   ``XidError/Code/invalidIDToken``, signature and key errors, and transport errors.
  public func exchangeCode(_ response: AuthorizationResponse) async throws -> AuthenticationResult {
    let metadata = try await metadata()
    let pending = response.pending
    let tokens = try await TokenEndpoint.request(
      TokenEndpoint.authorizationCodeGrant(code: response.code, pending: pending), configuration: configuration,
      metadata: metadata, http: http, clock: clock, secrets: [response.code, pending.codeVerifier])
    guard let idToken = tokens.idToken else {
      throw XidError(
        .invalidTokenResponse, "the token response has no id_token although the openid scope was requested")
    }
    let validated = try await validateIDToken(
      idToken, purpose: .authentication(nonce: pending.nonce, maxAge: pending.maxAge),
      accessToken: tokens.accessToken, authorizationCode: response.code)
    return AuthenticationResult(tokens: tokens, idToken: validated, pending: pending)
  }

  // MARK: - Refresh

  /// Refreshes the tokens (RFC 6749 §6). A new ID token in the response is validated against the
  /// original one (OpenID Connect Core 1.0 §12.2): same `iss`, `sub`, `aud` and `azp`.
  ///
  /// - Parameters:
  ///   - refreshToken: the refresh token.
  ///   - originalIDToken: the ID token of the session; without it a new ID token gets only the
  ///     common checks.
  ///   - scopes: a narrower set of scopes to request, or `nil` for the granted ones.
  /// - Throws: ``XidError`` with ``XidError/Code/tokenRequestFailed`` (check ``XidError/isInvalidGrant``:
  ///   the session is over; ``XidError/isTransient``: try later), ``XidError/Code/invalidTokenResponse``,
  ///   ``XidError/Code/invalidIDToken``, and transport errors.
  public func refresh(refreshToken: String, originalIDToken: IDToken?, scopes: [String]? = nil) async throws
    -> TokenResult
  {
    let tokens = try await refreshTokens(refreshToken: refreshToken, scopes: scopes)
    guard let idToken = tokens.idToken else { return TokenResult(tokens: tokens, idToken: nil) }
    let purpose: IDTokenValidator.Purpose = originalIDToken.map { .refresh(original: $0) } ?? .withoutNonce
    let validated = try await validateIDToken(idToken, purpose: purpose, accessToken: tokens.accessToken)
    return TokenResult(tokens: tokens, idToken: validated)
  }

  /// The token request of a refresh, without checking the ID token it may carry: the session checks
  /// it against what it stored, and keeps a rotated refresh token whatever that check finds.
  ///
  /// - Throws: as ``refresh(refreshToken:originalIDToken:scopes:)``, but no ID token errors.
  package func refreshTokens(refreshToken: String, scopes: [String]? = nil) async throws -> TokenResponse {
    let metadata = try await metadata()
    return try await TokenEndpoint.request(
      TokenEndpoint.refreshGrant(refreshToken: refreshToken, scopes: scopes), configuration: configuration,
      metadata: metadata, http: http, clock: clock, secrets: [refreshToken])
  }

  // MARK: - UserInfo, revocation, logout

  /// Fetches the user's claims from the UserInfo endpoint with a bearer access token.
  ///
  /// - Parameters:
  ///   - accessToken: a bearer access token with the `openid` scope.
  ///   - expectedSubject: the `sub` of the session's ID token; the response must be about that user.
  /// - Throws: ``XidError`` with ``XidError/Code/userInfoMismatch``, ``XidError/Code/userInfoFailed``,
  ///   ``XidError/Code/unsupportedResponse`` (signed responses), ``XidError/Code/unsupportedByProvider``,
  ///   and transport errors.
  public func userInfo(accessToken: String, expectedSubject: String) async throws -> UserInfo {
    let metadata = try await metadata()
    return try await UserInfoEndpoint.fetch(
      accessToken: accessToken, expectedSubject: expectedSubject, metadata: metadata, http: http)
  }

  /// Revokes a token at the provider (RFC 7009). Forget it locally whatever the outcome.
  ///
  /// - Throws: ``XidError`` with ``XidError/Code/revocationFailed``, ``XidError/Code/unsupportedByProvider``
  ///   and transport errors.
  public func revoke(_ token: String, hint: TokenTypeHint? = nil) async throws {
    let metadata = try await metadata()
    try await TokenRevocation.revoke(token, hint: hint, configuration: configuration, metadata: metadata, http: http)
  }

  /// The URL that ends the user's session at the provider (RP-Initiated Logout 1.0).
  ///
  /// - Parameters:
  ///   - idTokenHint: the session's ID token.
  ///   - postLogoutRedirectUri: where to return; the configuration's when `nil`.
  ///   - state: a value passed back to the post-logout redirect URI.
  /// - Throws: see ``EndSessionRequest/url(metadata:clientId:idTokenHint:postLogoutRedirectUri:state:logoutHint:uiLocales:)``.
  public func endSessionURL(idTokenHint: IDToken?, postLogoutRedirectUri: URL? = nil, state: String? = nil)
    async throws -> URL
  {
    let metadata = try await metadata()
    return try EndSessionRequest.url(
      metadata: metadata, clientId: configuration.clientId, idTokenHint: idTokenHint?.compact,
      postLogoutRedirectUri: postLogoutRedirectUri ?? configuration.postLogoutRedirectUri, state: state)
  }

  // MARK: - Device authorization grant

  /// Starts a device authorization (RFC 8628): show the user code and verification URI it returns,
  /// then call ``pollDeviceAuthorization(_:)``.
  ///
  /// - Parameter scopes: the scopes to request instead of the configuration's; `openid` is added.
  /// - Throws: ``XidError`` with ``XidError/Code/deviceAuthorizationFailed``,
  ///   ``XidError/Code/unsupportedByProvider``, and transport errors.
  public func startDeviceAuthorization(scopes: [String]? = nil) async throws -> DeviceAuthorization {
    let metadata = try await metadata()
    return try await DeviceFlow.start(
      scopes: XidConfiguration.withOpenID(scopes ?? configuration.scopes), configuration: configuration,
      metadata: metadata, http: http, clock: clock)
  }

  /// Polls until the user approves the device authorization, then validates the ID token if one came.
  ///
  /// Waits the provider's `interval` (5 s by default) before each poll and 5 s more after each
  /// `slow_down`. Cancel the task to stop.
  ///
  /// - Throws: ``XidError`` with ``XidError/Code/deviceCodeExpired``, ``XidError/Code/accessDenied``,
  ///   ``XidError/Code/cancelled``, ``XidError/Code/tokenRequestFailed``, ID token errors, and
  ///   transport errors.
  public func pollDeviceAuthorization(_ authorization: DeviceAuthorization) async throws -> TokenResult {
    let metadata = try await metadata()
    let tokens = try await DeviceFlow.poll(
      authorization, configuration: configuration, metadata: metadata, http: http, clock: clock)
    guard let idToken = tokens.idToken else { return TokenResult(tokens: tokens, idToken: nil) }
    let validated = try await validateIDToken(idToken, purpose: .withoutNonce, accessToken: tokens.accessToken)
    return TokenResult(tokens: tokens, idToken: validated)
  }
}
