import Foundation

/// Everything ``Xid`` does for one configuration and storage: sign-in, the account's tokens,
/// authorized requests and sign-out.
actor SessionEngine {
  let configuration: XidConfiguration
  let client: OpenIDClient
  let account: AccountSession
  private let pending: PendingAuthorizationStore
  private let storage: any TokenStorageAdapter
  private var signInInProgress = false

  init(configuration: XidConfiguration, storage: any TokenStorageAdapter) throws {
    try configuration.validate()
    let client = try OpenIDClient(
      configuration: configuration.clientConfiguration, transport: configuration.transport, clock: configuration.clock)
    let key = TokenRecord.storageKey(
      issuer: configuration.clientConfiguration.issuerIdentifier, clientID: configuration.clientId,
      account: configuration.account)
    let clock = configuration.clock
    self.configuration = configuration
    self.client = client
    self.storage = storage
    self.pending = PendingAuthorizationStore(storage: storage, accountKey: key, logger: configuration.logger)
    self.account = AccountSession(
      key: key, storage: storage, lockDirectory: storage.refreshLockDirectory,
      lockTimeout: configuration.refreshLockTimeout, expiryLeeway: configuration.expiryLeeway,
      logger: configuration.logger, now: { clock.now },
      refresher: { record in try await Self.refresh(record, with: client) })
  }

  private var logger: any XidLogger { configuration.logger }

  // MARK: - Sign-in

  func signIn(options: AuthorizationOptions, userAgent: any AuthorizationUserAgent) async throws -> XidSession {
    guard !signInInProgress else {
      throw XidError(.signInInProgress, "a sign-in is already in progress; wait for it to finish or cancel it")
    }
    signInInProgress = true
    defer { signInInProgress = false }
    let agent = try await userAgent.prepare(redirectURI: configuration.redirectUri)
    var options = options
    options.redirectURI = agent.redirectURI
    do {
      let request = try await client.makeAuthorizationRequest(options)
      try pending.save(request.pending)
      let callback: URL
      do {
        callback = try await agent.authorize(request.url, state: request.pending.state)
      } catch {
        pending.remove(request.pending)
        throw error
      }
      await agent.finish()
      return try await handleRedirect(url: callback)
    } catch {
      await agent.finish()
      throw error
    }
  }

  /// The authorization URL of a new sign-in, for apps that present it themselves; finish with
  /// ``handleRedirect(url:)``.
  func authorizationURL(options: AuthorizationOptions) async throws -> URL {
    let request = try await client.makeAuthorizationRequest(options)
    try pending.save(request.pending)
    return request.url
  }

  func handleRedirect(url: URL) async throws -> XidSession {
    let candidates = try pending.all(now: configuration.clock.now)
    guard let matched = PendingAuthorization.matching(callbackURL: url, in: candidates) else {
      // Let the engine produce the precise error (missing state, unknown state, provider error).
      _ = try await client.parseRedirect(url: url, pending: candidates)
      throw XidError(.stateMismatch, "the redirect does not belong to a sign-in in progress")
    }
    defer { pending.remove(matched) }
    let result = try await client.handleRedirect(url: url, pending: [matched])
    let tokens = result.tokens
    let record = TokenRecord(
      version: 1, accessToken: tokens.accessToken, tokenType: tokens.tokenType.rawValue, expiresAt: tokens.expiresAt,
      refreshToken: tokens.refreshToken, idToken: result.idToken.compact, scopes: tokens.scope ?? matched.scopes,
      issuer: configuration.clientConfiguration.issuerIdentifier, clientID: configuration.clientId,
      account: configuration.account)
    try await account.store(record)
    logger.log(.info, category: "sign-in", "signed in")
    return try XidSession(record: record)
  }

  /// Signs in with the device authorization grant (RFC 8628): `show` gets the code to display, then
  /// the provider is polled until the user approves.
  func signInWithDevice(
    scopes: [String]?, show: @Sendable (DeviceAuthorization) async -> Void
  ) async throws -> XidSession {
    let authorization = try await client.startDeviceAuthorization(scopes: scopes)
    await show(authorization)
    let result = try await client.pollDeviceAuthorization(authorization)
    let tokens = result.tokens
    let record = TokenRecord(
      version: 1, accessToken: tokens.accessToken, tokenType: tokens.tokenType.rawValue, expiresAt: tokens.expiresAt,
      refreshToken: tokens.refreshToken, idToken: result.idToken?.compact ?? tokens.idToken,
      scopes: tokens.scope ?? authorization.scopes, issuer: configuration.clientConfiguration.issuerIdentifier,
      clientID: configuration.clientId, account: configuration.account)
    try await account.store(record)
    logger.log(.info, category: "sign-in", "signed in with a device code")
    return try XidSession(record: record)
  }

  // MARK: - Session

  func session() async throws -> XidSession? {
    guard let record = try await account.record() else { return nil }
    return try XidSession(record: record)
  }

  func userInfo() async throws -> UserInfo {
    let record = try await account.validRecord(force: false)
    let subject = try XidSession(record: record).subject
    return try await client.userInfo(accessToken: record.accessToken, expectedSubject: subject)
  }

  // MARK: - Sign-out

  func signOut(callEndSession: Bool, userAgent: (any AuthorizationUserAgent)?) async throws {
    // Local state goes first, whatever the network does afterwards.
    let record = try await account.record()
    try await account.remove()
    pending.removeAll()
    logger.log(.info, category: "sign-out", "signed out locally")
    guard let record else { return }
    if let refreshToken = record.refreshToken {
      do {
        try await client.revoke(refreshToken, hint: .refreshToken)
      } catch let error as XidError {
        // Best effort: some providers refuse revocation from public clients (glewlwyd answers 401).
        logger.log(.notice, category: "sign-out", "the provider did not revoke the refresh token: \(error.code)")
      }
    }
    guard callEndSession else { return }
    let idToken = record.idToken.flatMap { try? IDToken(restoring: $0) }
    let url = try await client.endSessionURL(idTokenHint: idToken)
    guard let userAgent else {
      throw XidError(.invalidConfiguration, "ending the provider's session needs a user agent to open its page")
    }
    try await userAgent.open(url)
  }

  // MARK: - Refresh

  private static func refresh(_ record: TokenRecord, with client: OpenIDClient) async throws -> RefreshedTokens {
    guard let refreshToken = record.refreshToken else {
      throw XidError(.signInRequired, "the session has no refresh token")
    }
    let original = record.idToken.flatMap { try? IDToken(restoring: $0) }
    let result: TokenResult
    do {
      result = try await client.refresh(refreshToken: refreshToken, originalIDToken: original)
    } catch let error as XidError where error.isInvalidGrant {
      throw XidError(.refreshRefused, error.reason, httpStatus: error.httpStatus, oauthError: error.oauthError)
    }
    let tokens = result.tokens
    return RefreshedTokens(
      accessToken: tokens.accessToken, tokenType: tokens.tokenType.rawValue, expiresIn: tokens.expiresIn,
      refreshToken: tokens.refreshToken, idToken: result.idToken?.compact, scopes: tokens.scope)
  }
}
