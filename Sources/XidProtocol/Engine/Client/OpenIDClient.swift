import Foundation

/// An OpenID Connect client for one provider: discovery, sign-in with authorization code + PKCE (and
/// pushed authorization requests), ID token validation, refresh, token exchange (RFC 8693, and the
/// Native SSO profile of it), UserInfo, revocation, logout and the device authorization grant.
///
/// It keeps no tokens: the session layer stores what it returns. Its only state is the provider's
/// metadata and keys, cached.
///
/// ```swift
/// configuration.parts.transport = URLSessionTransport()
/// let client = try OpenIDClient(configuration: configuration)
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
  /// The configuration's clock, which gives the time for validation and waits between device polls.
  public nonisolated let clock: any XidClock
  /// The servers' latest DPoP nonces, which the proofs of ``XidConfiguration/usesDPoP`` carry.
  public nonisolated let dpopNonces: DPoPNonceCache
  private let http: ProtocolHTTP
  private let discovery: ProviderDiscovery
  private let resources: ProtectedResourceDiscovery
  private var keyCache: JWKSCache?

  /// Creates a client on the configuration's transport and clock
  /// (``XidConfiguration/parts``).
  ///
  /// - Parameters:
  ///   - configuration: the client's configuration; a configuration without a transport makes a
  ///     client whose every request fails with ``XidError/Code/invalidConfiguration``.
  ///   - dpopNonces: where DPoP nonces are kept; a new cache in memory by default.
  /// - Throws: ``XidError`` when the configuration is invalid (see ``XidConfiguration/validate()``).
  public init(configuration: XidConfiguration, dpopNonces: DPoPNonceCache = DPoPNonceCache()) throws {
    try configuration.validate()
    self.configuration = configuration
    self.clock = configuration.parts.clock
    self.dpopNonces = dpopNonces
    // Every request to the provider gives up at the configuration's timeout, on the clock.
    let timed = ClockTimedTransport(
      base: configuration.parts.transport ?? UnavailableTransport(), timeout: configuration.policy.requestTimeout,
      clock: clock)
    self.http = ProtocolHTTP(transport: timed)
    self.discovery = ProviderDiscovery(
      issuer: configuration.identity.issuer, transport: timed, clock: clock,
      lifetime: configuration.policy.metadataLifetime)
    self.resources = ProtectedResourceDiscovery(
      http: http, clock: clock, lifetime: configuration.policy.metadataLifetime)
  }

  // MARK: - Protected resources (RFC 9728)

  /// The metadata of the protected resource `resource` (its identifier), fetched from the well-known
  /// URL RFC 9728 §3.1 builds from it and cached for ``SessionPolicy/metadataLifetime``; checked to
  /// state that identifier and to accept this configuration's tokens
  /// (``ProtectedResourceMetadata/check(for:)``).
  ///
  /// - Throws: ``XidError/Code/resourceMetadataFailed`` (not fetched, not valid, or about another
  ///   resource), ``XidError/Code/issuerMismatch``, ``XidError/Code/invalidConfiguration`` (DPoP
  ///   required but off, or an identifier with a fragment), ``XidError/Code/insecureURL`` and
  ///   transport errors.
  public func protectedResourceMetadata(for resource: URL, forceRefresh: Bool = false) async throws
    -> ProtectedResourceMetadata
  {
    let url = try ProtectedResourceMetadata.metadataURL(for: resource)
    let metadata = try await resources.metadata(
      at: url, resource: resource.absoluteString, forceRefresh: forceRefresh)
    try metadata.check(for: configuration)
    return metadata
  }

  /// The metadata a resource's 401 points to with the `resource_metadata` parameter of its
  /// `WWW-Authenticate` challenge (RFC 9728 §5.1), or `nil` when it points to none. Its `resource`
  /// must be identical to `requestURL`, the URL of the request that was refused (§3.3); it is checked
  /// and cached as ``protectedResourceMetadata(for:forceRefresh:)``'s is.
  ///
  /// - Throws: as ``protectedResourceMetadata(for:forceRefresh:)``.
  public func protectedResourceMetadata(challengedBy response: HTTPResponse, requestURL: URL) async throws
    -> ProtectedResourceMetadata?
  {
    let pointer = AuthenticationChallenge.challenges(in: response).lazy
      .filter { $0.scheme == "bearer" || $0.scheme == "dpop" }.compactMap { $0["resource_metadata"] }.first
    guard let pointer else { return nil }
    guard let url = URL(string: pointer), url.scheme != nil, url.host != nil else {
      throw XidError(.resourceMetadataFailed, "the challenge's resource_metadata is not an absolute URL")
    }
    try url.requireSecure(for: "resource_metadata URL")
    let metadata = try await resources.metadata(
      at: url, resource: requestURL.absoluteString, forceRefresh: false)
    try metadata.check(for: configuration)
    return metadata
  }

  // MARK: - Discovery and keys

  /// The provider's metadata, cached for ``SessionPolicy/metadataLifetime``.
  ///
  /// - Parameter forceRefresh: fetch it even if the cached copy is fresh.
  /// - Throws: ``XidError`` with ``XidError/Code/discoveryFailed`` (the document could not be fetched
  ///   or is invalid; `httpStatus` set when the server answered), ``XidError/Code/issuerMismatch``,
  ///   ``XidError/Code/insecureURL``, ``XidError/Code/networkFailure`` or ``XidError/Code/cancelled``.
  public func metadata(forceRefresh: Bool = false) async throws -> ProviderMetadata {
    try await discovery.metadata(forceRefresh: forceRefresh)
  }

  /// The provider's signing keys, which ID tokens are verified with: the JWK Set at the metadata's
  /// current `jwks_uri`. It is cached, and fetched when there is none yet or it is a day old; ID token
  /// validation also fetches it again (at most once a minute) when a token names a key it lacks.
  ///
  /// - Throws: the errors of ``metadata(forceRefresh:)``, ``XidError/Code/keySetUnavailable`` (with the
  ///   HTTP status when the server answered), and what any request to the provider throws
  ///   (``XidError/Code/networkFailure``, …).
  public func keys() async throws -> JWKSet {
    try await keyCache().keySet()
  }

  /// The cache of the provider's signing keys, for the metadata's current `jwks_uri`.
  package func keyCache() async throws -> JWKSCache {
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
  /// - Throws: ``XidError`` with ``XidError/Code/invalidIDToken`` for a malformed token or a claim that
  ///   fails (see ``IDTokenValidator``); ``XidError/Code/algorithmNotAllowed``,
  ///   ``XidError/Code/invalidSignature``, ``XidError/Code/noMatchingKey`` (several keys with the
  ///   token's `kid`), ``XidError/Code/invalidKey`` when the token's key is an RSA key shorter than
  ///   2048 bits (RFC 7518 §3.3), ``XidError/Code/unknownSigningKey`` when no key of the provider fits
  ///   the token even after fetching its keys again; and the errors of ``keys()``.
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
      issuer: configuration.identity.issuerIdentifier, clientId: configuration.identity.clientId,
      allowedAlgorithms: try metadata.idTokenSigningAlgorithms(), leeway: configuration.policy.clockSkewLeeway)
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
  /// With `dpopKey`, the request carries its thumbprint as `dpop_jkt` (RFC 9449 §10), which binds the
  /// code to the key, and a pushed request carries a proof.
  ///
  /// - Returns: the URL and the ``PendingAuthorization`` to keep until the redirect arrives.
  /// - Throws: ``XidError`` with ``XidError/Code/invalidConfiguration`` (a reserved additional
  ///   parameter, a bad redirect URI, no key while ``XidConfiguration/usesDPoP`` is on, or a scope
  ///   that asks for `offline_access` without DPoP, before any request),
  ///   ``XidError/Code/unsupportedByProvider`` (no S256, no ES256 for DPoP, or pushed requests
  ///   required without an endpoint), ``XidError/Code/pushedAuthorizationFailed``, and discovery
  ///   errors.
  public func makeAuthorizationRequest(_ options: SignInOptions = SignInOptions(), dpopKey: (any DPoPKey)? = nil)
    async throws -> AuthorizationRequest
  {
    _ = try AuthorizationRequest.checkedScopes(configuration: configuration, options: options)
    let metadata = try await metadata()
    let dpop = try signer(dpopKey, metadata: metadata, required: true)
    let (parameters, pending) = try AuthorizationRequest.parameters(
      configuration: configuration, metadata: metadata, options: options, now: clock.now,
      dpopKeyThumbprint: dpopKey?.thumbprint)
    let push = try AuthorizationRequest.shouldPush(metadata: metadata, options: options, configuration: configuration)
    let url =
      push
      ? try await PushedAuthorization.push(
        parameters, configuration: configuration, metadata: metadata, http: http, dpop: dpop)
      : metadata.authorizationEndpoint.appendingQuery(parameters)
    return AuthorizationRequest(url: url, pending: pending, isPushed: push)
  }

  /// Whether ``makeAuthorizationRequest(_:dpopKey:)`` pushes the request for `options` (and so signs a
  /// DPoP proof).
  package func willPush(_ options: SignInOptions) async throws -> Bool {
    try AuthorizationRequest.shouldPush(metadata: await metadata(), options: options, configuration: configuration)
  }

  /// Checks a redirect against the pending requests (see ``AuthorizationResponse``) without
  /// exchanging the code. Pending requests of another issuer or client are ignored.
  ///
  /// - Throws: see ``AuthorizationResponse/init(callbackURL:pending:requireIssuer:)``.
  public func parseRedirect(url: URL, pending: [PendingAuthorization]) async throws -> AuthorizationResponse {
    let metadata = try await metadata()
    let ours = pending.filter {
      $0.issuer == configuration.identity.issuerIdentifier && $0.clientId == configuration.identity.clientId
    }
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
  ///   - dpopKey: the key of the sign-in, for a DPoP-bound one (see ``exchangeCode(_:dpopKey:)``).
  /// - Throws: the errors of ``parseRedirect(url:pending:)`` and ``exchangeCode(_:dpopKey:)``.
  public func handleRedirect(url: URL, pending: [PendingAuthorization], dpopKey: (any DPoPKey)? = nil) async throws
    -> AuthenticationResult
  {
    let response = try await parseRedirect(url: url, pending: pending)
    return try await exchangeCode(response, dpopKey: dpopKey)
  }

  /// Exchanges the code of a checked authorization response for tokens and validates the ID token.
  ///
  /// With `dpopKey` (the key whose thumbprint the request carried), the request carries a proof and
  /// the tokens must come back bound to the key.
  ///
  /// - Throws: ``XidError`` with ``XidError/Code/tokenRequestFailed``,
  ///   ``XidError/Code/invalidTokenResponse`` (also when no ID token came back),
  ///   ``XidError/Code/dpopTokenUnbound``, ``XidError/Code/dpopKeyUnavailable`` (not the pending
  ///   request's key), ``XidError/Code/invalidIDToken``, signature and key errors, and transport errors.
  public func exchangeCode(_ response: AuthorizationResponse, dpopKey: (any DPoPKey)? = nil) async throws
    -> AuthenticationResult
  {
    let metadata = try await metadata()
    let pending = response.pending
    if let expected = pending.dpopKeyThumbprint, dpopKey?.thumbprint != expected {
      throw XidError(
        .dpopKeyUnavailable,
        "the sign-in was started with DPoP key \(expected), and the code can only be exchanged with that key; sign in again"
      )
    }
    let dpop = try signer(dpopKey, metadata: metadata, required: true)
    let tokens = try await TokenEndpoint.request(
      TokenEndpoint.authorizationCodeGrant(code: response.code, pending: pending), configuration: configuration,
      metadata: metadata, http: http, clock: clock, secrets: [response.code, pending.codeVerifier], dpop: dpop)
    guard let idToken = tokens.idToken else {
      throw XidError(
        .invalidTokenResponse, "the token response has no id_token although the openid scope was requested")
    }
    let validated: IDToken
    do {
      try Self.checkGrantedDetails(tokens, asked: pending.authorizationDetailTypes ?? [])
      validated = try await validateIDToken(
        idToken, purpose: .authentication(nonce: pending.nonce, maxAge: pending.maxAge),
        accessToken: tokens.accessToken, authorizationCode: response.code)
      if let refusal = pending.stepUpRefusal(of: validated) { throw XidError(.invalidIDToken, refusal) }
    } catch let error as XidError where pending.isStepUp || error.code == .invalidTokenResponse {
      // A refused sign-in or step-up leaves the session as it was, and no live tokens beside it.
      let outcome = await TokenBinding.revoke(
        accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, dpop: dpop, configuration: configuration,
        metadata: metadata, http: http)
      let tokensName = pending.isStepUp ? "the step-up's tokens" : "the sign-in's tokens"
      throw XidError(
        error.code, error.reason + "; the session is as it was, and " + outcome.clause(about: tokensName),
        httpStatus: error.httpStatus, oauthError: error.oauthError)
    }
    return AuthenticationResult(tokens: tokens, idToken: validated, pending: pending)
  }

  /// Refuses a token response whose `authorization_details` (RFC 9396 §7) have a type outside
  /// `asked`, the types the request asked for.
  ///
  /// - Throws: ``XidError/Code/invalidTokenResponse``, naming the types.
  private static func checkGrantedDetails(_ tokens: TokenResponse, asked: [String]) throws {
    guard let granted = tokens.authorizationDetails else { return }
    let unrequested = AuthorizationDetail.unrequestedTypes(in: granted, asked: asked)
    guard unrequested.isEmpty else {
      let names = unrequested.map { "\"\(SafeText.short($0, limit: 64))\"" }.joined(separator: ", ")
      throw XidError(
        .invalidTokenResponse,
        "the provider granted authorization_details of type \(names), which the sign-in did not ask for (RFC 9396 §7)")
    }
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
  ///   - dpopKey: the key the tokens are bound to, for a DPoP-bound session: the request carries a
  ///     proof, and the new tokens must be bound to the same key.
  /// - Throws: ``XidError`` with ``XidError/Code/tokenRequestFailed`` (check ``XidError/isInvalidGrant``:
  ///   the session is over; ``XidError/isTransient``: try later), ``XidError/Code/invalidTokenResponse``,
  ///   ``XidError/Code/dpopTokenUnbound``, ``XidError/Code/invalidIDToken``, transport errors, and
  ///   ``XidError/Code/invalidConfiguration`` before any request for `scopes` that ask for
  ///   `offline_access` without DPoP.
  public func refresh(
    refreshToken: String, originalIDToken: IDToken?, scopes: [String]? = nil, dpopKey: (any DPoPKey)? = nil
  ) async throws -> TokenResult {
    let tokens = try await refreshTokens(refreshToken: refreshToken, scopes: scopes, dpopKey: dpopKey)
    guard let idToken = tokens.idToken else { return TokenResult(tokens: tokens, idToken: nil) }
    let purpose: IDTokenValidator.Purpose = originalIDToken.map { .refresh(original: $0) } ?? .withoutNonce
    let validated = try await validateIDToken(idToken, purpose: purpose, accessToken: tokens.accessToken)
    return TokenResult(tokens: tokens, idToken: validated)
  }

  /// The token request of a refresh, without checking the ID token it may carry: the session checks
  /// it against what it stored, and keeps a rotated refresh token whatever that check finds.
  ///
  /// `deviceSecret` is the app family's, sent by the family's own app (Native SSO draft 07 §3.3).
  ///
  /// - Throws: as ``refresh(refreshToken:originalIDToken:scopes:dpopKey:)``, but no ID token errors.
  ///
  /// With `resource`, the access token is for that resource alone (RFC 8707 §2.2); the provider's
  /// `invalid_target` is ``XidError/Code/invalidTarget``.
  package func refreshTokens(
    refreshToken: String, scopes: [String]? = nil, deviceSecret: String? = nil, dpopKey: (any DPoPKey)? = nil,
    resource: String? = nil
  ) async throws -> TokenResponse {
    let grant = TokenEndpoint.refreshGrant(
      refreshToken: refreshToken, scopes: scopes, deviceSecret: deviceSecret, resource: resource)
    for (name, value) in grant where name == "scope" {
      try configuration.checkRequestScope(
        value, of: "the refresh request",
        from: "the scopes: passed to refresh(refreshToken:originalIDToken:scopes:dpopKey:)")
    }
    let metadata = try await metadata()
    do {
      return try await TokenEndpoint.request(
        grant, configuration: configuration,
        metadata: metadata, http: http, clock: clock, secrets: [refreshToken] + (deviceSecret.map { [$0] } ?? []),
        dpop: signer(dpopKey, metadata: metadata, required: true))
    } catch let error as XidError where error.oauthError == "invalid_target" {
      throw XidError(
        .invalidTarget,
        error.reason
          + "; the provider issues no token for \(resource.map { "resource \"\(SafeText.short($0, limit: 96))\"" } ?? "the session's resources"): check XidConfiguration.identity.resources",
        httpStatus: error.httpStatus, oauthError: error.oauthError)
    }
  }

  // MARK: - Token exchange

  /// Exchanges a token for another one at the token endpoint (RFC 8693): a downscoped or
  /// audience-restricted access token for a backend, or, with ``TokenExchangeRequest/nativeSSO(idToken:deviceSecret:issuer:scopes:deviceSecretType:)``,
  /// a sibling app's own tokens from the family's ID token and device secret (OpenID Connect Native
  /// SSO for Mobile Apps 1.0, draft 07 §4).
  ///
  /// The client keeps no tokens, so a failed exchange changes nothing: no session is touched, and
  /// the caller's tokens stay as they were.
  ///
  /// An ID token in the answer (its `id_token`, or the issued token when ``TokenExchangeResponse/issuedTokenType``
  /// is ``TokenTypeIdentifier/idToken``) is validated for this client: signature, `iss`, `aud` (this
  /// client), `azp`, `exp`, `iat` and `at_hash`, without a nonce. When the subject token is an ID
  /// token of this issuer, the new one must be about the same user (`sub`). A new device secret in
  /// the answer is the caller's to check against that ID token, with ``checkDeviceSecret(_:boundTo:)``.
  ///
  /// With `dpopKey`, the request carries a proof, and an issued access token must come back bound to
  /// the key (`token_type: DPoP`); a Bearer answer is refused.
  ///
  /// - Parameters:
  ///   - request: what to exchange, and for what.
  ///   - dpopKey: the key to bind the new tokens to; required while ``XidConfiguration/usesDPoP`` is on.
  /// - Throws: ``XidError`` with ``XidError/Code/invalidConfiguration`` before any request (a request
  ///   that ``TokenExchangeRequest/validate()`` refuses, a scope with `offline_access` without DPoP,
  ///   no key while ``XidConfiguration/usesDPoP`` is on); ``XidError/Code/tokenRequestFailed`` when
  ///   the provider refuses (``XidError/oauthError`` says how: `invalid_grant` for a device secret or
  ///   session that is no longer good, `invalid_request`, `invalid_target`, `invalid_scope`,
  ///   `unauthorized_client`, `interaction_required`, `unsupported_grant_type`);
  ///   ``XidError/Code/invalidTokenResponse`` for an answer that is not a token exchange response;
  ///   ``XidError/Code/dpopTokenUnbound``; ``XidError/Code/invalidIDToken`` and the signature and key
  ///   errors of ``validateIDToken(_:purpose:accessToken:authorizationCode:)``;
  ///   ``XidError/Code/foreignTokenResponse`` for an ID token about another user than the subject
  ///   token; and transport errors. After an answer that fails a check, its tokens are revoked (best
  ///   effort). No reason ever contains the subject or actor token.
  public func exchange(_ request: TokenExchangeRequest, dpopKey: (any DPoPKey)? = nil) async throws
    -> TokenExchangeResult
  {
    try request.validate()
    if let scopes = request.scopes, !scopes.isEmpty {
      try configuration.checkRequestScope(
        scopes.joined(separator: " "), of: "the token exchange request", from: "TokenExchangeRequest.scopes")
    }
    let metadata = try await metadata()
    let dpop = try signer(dpopKey, metadata: metadata, required: true)
    let object = try await TokenEndpoint.send(
      request.parameters, configuration: configuration, metadata: metadata, http: http, secrets: request.secrets,
      dpop: dpop)
    let tokens = try TokenExchangeResponse(json: object, receivedAt: clock.now)
    let accessToken = tokens.tokenType.accessTokenType == nil ? nil : tokens.accessToken
    if let type = tokens.tokenType.accessTokenType {
      try await TokenBinding.check(
        tokenType: type, accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, dpop: dpop,
        configuration: configuration, metadata: metadata, http: http)
    }
    guard let idToken = tokens.idToken ?? (tokens.issuedTokenType == .idToken ? tokens.accessToken : nil) else {
      return TokenExchangeResult(tokens: tokens, idToken: nil)
    }
    do {
      let validated = try await validateIDToken(idToken, purpose: .withoutNonce, accessToken: accessToken)
      try checkSubject(of: validated, against: request)
      return TokenExchangeResult(tokens: tokens, idToken: validated)
    } catch {
      await TokenBinding.revoke(
        accessToken: accessToken, refreshToken: tokens.refreshToken, dpop: dpop, configuration: configuration,
        metadata: metadata, http: http)
      throw error
    }
  }

  /// Checks that an exchange's ID token is about the user of its subject token, when the subject
  /// token is an ID token of this issuer.
  ///
  /// - Throws: ``XidError/Code/foreignTokenResponse`` when `sub` differs.
  private func checkSubject(of idToken: IDToken, against request: TokenExchangeRequest) throws {
    guard request.subjectTokenType == .idToken, let subject = try? IDToken(restoring: request.subjectToken),
      subject.issuer == configuration.identity.issuerIdentifier
    else { return }
    guard subject.subject == idToken.subject else {
      throw XidError(
        .foreignTokenResponse,
        "the token exchange answered with an ID token about another user (\"sub\") than its subject token; its tokens were revoked and nothing was kept"
      )
    }
  }

  /// Checks that a device secret and the ID token of the same answer are a pair (Native SSO, draft
  /// 07 §3.4.1), with the provider's derivation of `ds_hash` (``SessionPolicy/deviceSecretHashRule``).
  ///
  /// - Throws: ``XidError/Code/deviceSecretMismatch``; see ``IDToken/checkDeviceSecret(_:rule:)``.
  public nonisolated func checkDeviceSecret(_ deviceSecret: String, boundTo idToken: IDToken) throws {
    try idToken.checkDeviceSecret(deviceSecret, rule: configuration.policy.deviceSecretHashRule)
  }

  // MARK: - UserInfo, revocation, logout

  /// Fetches the user's claims from the UserInfo endpoint with the access token.
  ///
  /// - Parameters:
  ///   - accessToken: an access token with the `openid` scope.
  ///   - expectedSubject: the `sub` of the session's ID token; the response must be about that user.
  ///   - dpopKey: the key a DPoP-bound token is bound to: it is then sent as `Authorization: DPoP`
  ///     with a proof.
  /// - Throws: ``XidError`` with ``XidError/Code/userInfoMismatch``, ``XidError/Code/userInfoFailed``,
  ///   ``XidError/Code/unsupportedResponse`` (signed responses), ``XidError/Code/unsupportedByProvider``,
  ///   and transport errors.
  public func userInfo(accessToken: String, expectedSubject: String, dpopKey: (any DPoPKey)? = nil) async throws
    -> UserInfo
  {
    let metadata = try await metadata()
    return try await UserInfoEndpoint.fetch(
      accessToken: accessToken, expectedSubject: expectedSubject, metadata: metadata, http: http,
      dpop: signer(dpopKey, metadata: metadata, required: true))
  }

  /// Revokes a token at the provider (RFC 7009). Forget it locally whatever the outcome.
  ///
  /// - Throws: ``XidError`` with ``XidError/Code/revocationFailed``, ``XidError/Code/unsupportedByProvider``
  ///   and transport errors.
  ///
  /// With `dpopKey`, the request carries a proof of the key a bound token is tied to.
  public func revoke(_ token: String, hint: TokenTypeHint? = nil, dpopKey: (any DPoPKey)? = nil) async throws {
    let metadata = try await metadata()
    try await TokenRevocation.revoke(
      token, hint: hint, configuration: configuration, metadata: metadata, http: http,
      dpop: signer(dpopKey, metadata: metadata, required: false))
  }

  /// Revokes `tokens` in order at the provider (RFC 7009), with a proof of `dpopKey` for bound ones,
  /// and tells what became of them rather than throwing: ``RevocationOutcome/notRevocable(_:)``
  /// when the provider advertises no revocation endpoint, ``RevocationOutcome/failed(_:)`` with the
  /// first error (the metadata could not be fetched, the provider refused, the network failed).
  package func revokeReportingOutcome(_ tokens: [(String, TokenTypeHint)], dpopKey: (any DPoPKey)? = nil) async
    -> RevocationOutcome
  {
    do {
      let metadata = try await metadata()
      guard metadata.revocationEndpoint != nil else { return .notRevocable(.noRevocationEndpoint) }
      let dpop = try signer(dpopKey, metadata: metadata, required: false)
      return await TokenRevocation.revokeAll(
        tokens, configuration: configuration, metadata: metadata, http: http, dpop: dpop)
    } catch {
      return .failed(error as? XidError ?? XidError(.cancelled, "the revocation was cancelled"))
    }
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
      metadata: metadata, clientId: configuration.identity.clientId, idTokenHint: idTokenHint?.compact,
      postLogoutRedirectUri: postLogoutRedirectUri ?? configuration.identity.postLogoutRedirectUri, state: state)
  }

  // MARK: - Device authorization grant

  /// Starts a device authorization (RFC 8628): show the user code and verification URI it returns,
  /// then call ``pollDeviceAuthorization(_:dpopKey:)``.
  ///
  /// - Parameter scopes: the scopes to request instead of the configuration's; `openid` is added.
  /// - Throws: ``XidError`` with ``XidError/Code/deviceAuthorizationFailed``,
  ///   ``XidError/Code/unsupportedByProvider``, transport errors, and
  ///   ``XidError/Code/invalidConfiguration`` before any request for a scope that asks for
  ///   `offline_access` without DPoP.
  public func startDeviceAuthorization(scopes: [String]? = nil) async throws -> DeviceAuthorization {
    let requested = configuration.identity.requestedScopes(scopes)
    try configuration.checkRequestScope(
      requested.joined(separator: " "), of: "the device authorization request",
      from: scopes == nil
        ? "XidConfiguration.identity.scopes"
        : "the scopes passed to signInWithDeviceCode(scopes:) (startDeviceAuthorization(scopes:))")
    let metadata = try await metadata()
    return try await DeviceFlow.start(
      scopes: requested, configuration: configuration, metadata: metadata, http: http, clock: clock)
  }

  /// Polls until the user approves the device authorization, then validates the ID token if one came.
  ///
  /// Waits the provider's `interval` (5 s by default) before each poll and 5 s more after each
  /// `slow_down`. Cancel the task to stop.
  ///
  /// With `dpopKey`, every poll carries a proof and the tokens must come back bound to the key.
  ///
  /// - Throws: ``XidError`` with ``XidError/Code/deviceCodeExpired``, ``XidError/Code/accessDenied``,
  ///   ``XidError/Code/cancelled``, ``XidError/Code/tokenRequestFailed``, ``XidError/Code/dpopTokenUnbound``,
  ///   ID token errors, and transport errors.
  public func pollDeviceAuthorization(_ authorization: DeviceAuthorization, dpopKey: (any DPoPKey)? = nil)
    async throws -> TokenResult
  {
    let metadata = try await metadata()
    let dpop = try signer(dpopKey, metadata: metadata, required: true)
    let tokens = try await DeviceFlow.poll(
      authorization, configuration: configuration, metadata: metadata, http: http, clock: clock, dpop: dpop)
    do {
      // A device sign-in asks for no authorization details.
      try Self.checkGrantedDetails(tokens, asked: [])
    } catch let error as XidError {
      let outcome = await TokenBinding.revoke(
        accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, dpop: dpop, configuration: configuration,
        metadata: metadata, http: http)
      throw XidError(error.code, error.reason + "; " + outcome.clause(about: "the sign-in's tokens"))
    }
    guard let idToken = tokens.idToken else { return TokenResult(tokens: tokens, idToken: nil) }
    let validated = try await validateIDToken(idToken, purpose: .withoutNonce, accessToken: tokens.accessToken)
    return TokenResult(tokens: tokens, idToken: validated)
  }

  // MARK: - DPoP

  /// The signer of requests with `key`, after checking that the provider accepts ES256 proofs.
  ///
  /// - Parameter required: whether a key is needed when ``XidConfiguration/usesDPoP`` is on.
  /// - Throws: ``XidError/Code/invalidConfiguration`` when a required key is missing, and
  ///   ``XidError/Code/unsupportedByProvider`` when the provider does not accept ES256 proofs.
  private func signer(_ key: (any DPoPKey)?, metadata: ProviderMetadata, required: Bool) throws -> DPoPSigner? {
    guard let key else {
      guard !(required && configuration.usesDPoP) else {
        throw XidError(
          .invalidConfiguration, "XidConfiguration.usesDPoP is on: pass the session's DPoP key (dpopKey:)")
      }
      return nil
    }
    try metadata.requireDPoPES256()
    return DPoPSigner(key: PreparedDPoPKey(key), nonces: dpopNonces, clock: clock)
  }
}
