import Foundation

/// Everything Xid does for one configuration and storage: sign-in, the account's tokens, authorized
/// requests and sign-out, with every platform dependency given explicitly.
///
/// Apps use `Xid` (the `Xid` module), which makes an engine with the platform's defaults. A program
/// that links `XidCore` alone makes its own, with a transport in the configuration when it talks to
/// the network:
///
/// ```swift
/// configuration.parts.storage = try FileTokenStorage()
/// let engine = try SessionEngine(configuration: configuration)
/// let token = try await engine.accessToken()   // the stored token while it is valid
/// ```
public actor SessionEngine {
  /// The configuration this engine was made with.
  public let configuration: XidConfiguration
  let client: OpenIDClient
  let account: AccountSession
  /// The session's DPoP keys, named by thumbprint in the storage.
  let dpopKeys: DPoPKeyStore
  /// The servers' DPoP nonces, kept in the storage for every process of the account.
  let dpopNonces: DPoPNonceCache
  let transport: any HTTPTransport
  private let pending: PendingAuthorizationStore
  let storage: any TokenStorageAdapter
  /// The session lock and the refresh token's protection (``XidConfiguration/presence``).
  let presence: PresenceCoordinator
  /// The DPoP key of a record's tokens, readied with the user's presence.
  let signer: SessionSigner
  private var signInInProgress = false
  /// The subscribers of ``events()`` and the change signal they observe.
  let eventHub: SessionEventHub
  /// The configured resources (``ClientIdentity/resources``), kept apart so that finding a
  /// request's resource costs nothing when there are none.
  let resources: [ProtectedResource]

  /// Creates the engine for `configuration`, keeping its state in the configuration's storage
  /// (``SessionParts/storage``). Nothing is read or sent until a method needs it.
  ///
  /// - Throws: ``XidError/Code/invalidConfiguration`` (see ``XidConfiguration/validate()``, and for a
  ///   configuration without storage).
  public init(configuration: XidConfiguration) throws {
    try configuration.validate()
    guard let storage = configuration.parts.storage else {
      throw XidError(
        .invalidConfiguration,
        "no token storage is configured: set XidConfiguration.parts.storage, or use the Xid module, which supplies the platform's"
      )
    }
    let parts = configuration.parts
    let policy = configuration.policy
    let identity = configuration.identity
    let key = TokenRecord.storageKey(
      issuer: identity.issuerIdentifier, clientId: identity.clientId, account: identity.account)
    let dpopNonces = DPoPNonceCache(
      storage: storage, key: DPoPNonceCache.storageKey(accountKey: key), logger: parts.logger)
    let client = try OpenIDClient(configuration: configuration, dpopNonces: dpopNonces)
    let presence = try PresenceCoordinator(options: policy.presence, accountKey: key, clock: parts.clock)
    let dpopKeys = DPoPKeyStore(
      storage: storage, factory: parts.dpopKeyFactory, logger: parts.logger,
      presenceKeys: presence.keyStore, protection: presence.dpopKeyProtection)
    let signer = SessionSigner(keys: dpopKeys, presence: presence, requiresDPoP: policy.usesDPoP)
    self.presence = presence
    self.signer = signer
    self.configuration = configuration
    self.resources = identity.resources
    self.client = client
    self.transport = parts.transport ?? UnavailableTransport()
    self.storage = storage
    self.dpopKeys = dpopKeys
    self.dpopNonces = dpopNonces
    // One lock per account, shared by every process that shares the storage: refreshes and changes to
    // the pending sign-ins take it. A dot file, so that storage listings never take it for a key.
    let lock = storage.refreshLockDirectory.map { FileLock(directory: $0, name: "." + key + ".lock") }
    let owner = RecordOwner(issuer: identity.issuerIdentifier, clientId: identity.clientId, account: identity.account)
    var records = AccountRecordStore(storage: storage, owner: owner, logger: parts.logger)
    // Every write of the record posts the change signal (see `events()`).
    let eventHub = SessionEventHub(
      signal: parts.changeSignal ?? (storage as? FileTokenStorage)?.changeSignal ?? NoChangeSignal())
    records.didWrite = { [eventHub] in eventHub.didWrite() }
    self.eventHub = eventHub
    self.pending = PendingAuthorizationStore(
      storage: storage, accountKey: key,
      lock: AccountLock(
        file: lock, timeout: policy.refreshLockTimeout, activity: parts.backgroundActivity, clock: parts.clock),
      logger: parts.logger, dpopKeys: dpopKeys, records: records)
    self.account = AccountSession(
      records: records, lock: lock,
      lockTimeout: policy.refreshLockTimeout, activity: parts.backgroundActivity,
      expiryLeeway: policy.expiryLeeway.timeInterval, logger: parts.logger, clock: parts.clock,
      refresher: TokenRefresher(
        client: client, signer: signer,
        companion: Self.refreshCompanion(configuration: configuration, storage: storage, client: client)),
      sealer: presence.vault)
  }

  private var logger: any XidLogger { configuration.parts.logger }

  // MARK: - Sign-in

  /// Signs the user in with `userAgent`: opens the provider's sign-in page and completes the sign-in
  /// when the provider redirects back.
  ///
  /// - Throws: ``XidError/Code/userCancelled``, ``XidError/Code/signInInProgress``, the provider's
  ///   ``XidError/Code/authorizationFailed``, validation and network errors.
  public func signIn(options: SignInOptions, userAgent: any AuthorizationUserAgent) async throws -> XidSession {
    guard !signInInProgress else {
      throw XidError(.signInInProgress, "a sign-in is already in progress; wait for it to finish or cancel it")
    }
    signInInProgress = true
    defer { signInInProgress = false }
    // One call: in the stricter mode, one prompt covers the pushed request's proof and the code's.
    return try await PresenceScope.run(on: self) {
      let agent = try await userAgent.prepare(redirectUri: configuration.identity.redirectUri)
      var options = options
      options.redirectUri = agent.redirectUri
      do {
        let request = try await startAuthorization(options)
        let callback: URL
        do {
          callback = try await agent.authorize(request.url, state: request.pending.state)
        } catch {
          await pending.remove(request.pending)
          throw error
        }
        await agent.finish()
        return try await handleRedirect(url: callback)
      } catch {
        await agent.finish()
        throw error
      }
    }
  }

  /// The authorization URL of a new sign-in, for apps that present it themselves; finish with
  /// ``handleRedirect(url:)``.
  public func authorizationURL(options: SignInOptions) async throws -> URL {
    try await PresenceScope.run(on: self) { try await startAuthorization(options).url }
  }

  /// Makes the sign-in's DPoP key (when DPoP is on) and its authorization request, and keeps the
  /// request as pending. A failure leaves no key behind.
  private func startAuthorization(_ options: SignInOptions) async throws -> AuthorizationRequest {
    try await checkPresenceBeforeSignIn()
    var options = options
    if options.stepUp != nil {
      guard let current = try await account.record() else {
        throw XidError(
          .signInRequired,
          "a step-up signs the session's user in again, and no one is signed in for this account; sign in first")
      }
      options.stepUpSubject = try XidSession(record: current).subject
    }
    let key = try makeSignInKey()
    do {
      if key?.needsUser == true, try await client.willPush(options) {
        // The pushed request carries a proof.
        try await presence.prepareToSign(with: key)
      }
      let request = try await client.makeAuthorizationRequest(options, dpopKey: key?.key)
      try await pending.save(request.pending, now: configuration.parts.clock.now)
      return request
    } catch {
      if let key { dpopKeys.delete(thumbprint: key.thumbprint) }
      throw error
    }
  }

  /// Completes a sign-in with the URL the provider redirected to: checks it against the pending
  /// sign-in (`state`, RFC 9207 `iss`), exchanges the code and validates the ID token.
  ///
  /// - Throws: ``XidError/Code/stateMismatch``, ``XidError/Code/authorizationFailed``, validation and
  ///   network errors. The pending sign-in is removed either way.
  public func handleRedirect(url: URL) async throws -> XidSession {
    try await PresenceScope.run(on: self) {
      let candidates = try await pending.all(now: configuration.parts.clock.now)
      guard let matched = PendingAuthorization.matching(callbackURL: url, in: candidates) else {
        // Let the engine produce the precise error (missing state, unknown state, provider error).
        _ = try await client.parseRedirect(url: url, pending: candidates)
        throw XidError(.stateMismatch, "the redirect does not belong to a sign-in in progress")
      }
      do {
        let session = try await complete(url: url, matched: matched)
        await pending.remove(matched, purgingKey: false)
        return session
      } catch {
        await pending.remove(matched)
        throw error
      }
    }
  }

  /// Exchanges the code of the redirect to `url` for `matched`, and stores the session.
  private func complete(url: URL, matched: PendingAuthorization) async throws -> XidSession {
    let key = try matched.dpopKeyThumbprint.map { try dpopKeys.key(thumbprint: $0) }
    if configuration.usesDPoP && key == nil {
      throw XidError(
        .dpopKeyUnavailable, "the sign-in was started without DPoP, which the configuration now requires; sign in again"
      )
    }
    try await presence.prepareToSign(with: key)
    let result = try await client.handleRedirect(url: url, pending: [matched], dpopKey: key?.key)
    guard matched.isStepUp else {
      return try await signedIn(result.tokens, idToken: result.idToken, requested: matched.scopes, key: key, via: "")
    }
    // The session the step-up strengthens must still be in storage (another process may have signed
    // out meanwhile): a sign-out is never undone.
    guard let current = try await account.storedRecord(),
      try XidSession(record: current).subject == matched.requiredSubject
    else {
      let outcome = await client.revokeReportingOutcome(
        [result.tokens.refreshToken.map { ($0, .refreshToken) }, (result.tokens.accessToken, .accessToken)]
          .compactMap { $0 }, dpopKey: key?.key)
      throw XidError(
        .signInRequired,
        "the session ended while its step-up was in progress, so the step-up's tokens were not kept ("
          + outcome.clause(about: "they") + "); sign in again")
    }
    return try await signedIn(
      result.tokens, idToken: result.idToken, requested: matched.scopes, key: key, via: " again (a step-up)",
      steppingUp: current)
  }

  /// Stores a sign-in's tokens as the account's session and reports it signed in: the one place
  /// where a sign-in's record is made, whatever the grant.
  ///
  /// - Parameters:
  ///   - idToken: the validated ID token, which pins the session's `iss` and `sub`.
  ///   - requested: the scopes the sign-in asked for, recorded when the answer names none.
  ///   - key: the DPoP key the tokens are bound to.
  ///   - flow: how the user signed in, for the log line (" with a device code").
  ///   - previous: for a step-up, the session it strengthens: its link to the app family is kept, and
  ///     the family's record is left as it is (a step-up is this app's).
  private func signedIn(
    _ tokens: TokenResponse, idToken: IDToken?, requested: [String], key: PreparedDPoPKey?, via flow: String,
    steppingUp previous: TokenRecord? = nil
  ) async throws -> XidSession {
    let identity = configuration.identity
    var record = TokenRecord(
      version: 1, accessToken: tokens.accessToken, tokenType: tokens.tokenType.rawValue, expiresAt: tokens.expiresAt,
      refreshToken: tokens.refreshToken, idToken: idToken?.compact ?? tokens.idToken,
      scopes: tokens.scope ?? requested, issuer: identity.issuerIdentifier, clientId: identity.clientId,
      account: identity.account, signInID: try TokenRecord.newSignInID(), pinnedIssuer: idToken?.issuer,
      pinnedSubject: idToken?.subject, dpopKeyThumbprint: key?.thumbprint)
    record.authorizationDetails = tokens.authorizationDetails
    let stored: TokenRecord
    if let previous {
      var linked = record
      (linked.familyKey, linked.familySignInID) = (previous.familyKey, previous.familySignInID)
      try await store(linked)
      stored = linked
    } else if let family = identity.family {
      stored = try await familySignedIn(record, tokens: tokens, idToken: idToken, family: family)
    } else {
      try await store(record)
      stored = record
    }
    presence.didSignIn()
    let toFamily = identity.family != nil && previous == nil
    logger.log(.info, category: "sign-in", "signed in" + flow + (toFamily ? " to the app family" : ""))
    return try XidSession(record: stored, dpopBinding: binding(of: stored))
  }

  /// Signs in with the device authorization grant (RFC 8628): `show` gets the code to display, then
  /// the provider is polled until the user approves.
  ///
  /// - Throws: ``XidError/Code/accessDenied``, ``XidError/Code/deviceCodeExpired``, network errors.
  public func signInWithDeviceCode(
    scopes: [String]?, showCode show: @Sendable (DeviceAuthorization) async -> Void
  ) async throws -> XidSession {
    try await PresenceScope.run(on: self) {
      try await checkPresenceBeforeSignIn()
      let key = try makeSignInKey()
      let result: TokenResult
      let authorization: DeviceAuthorization
      do {
        authorization = try await client.startDeviceAuthorization(scopes: scopes)
        await show(authorization)
        try await presence.prepareToSign(with: key)
        result = try await client.pollDeviceAuthorization(authorization, dpopKey: key?.key)
      } catch {
        if let key { dpopKeys.delete(thumbprint: key.thumbprint) }
        throw error
      }
      return try await signedIn(
        result.tokens, idToken: result.idToken, requested: authorization.scopes, key: key, via: " with a device code")
    }
  }

  // MARK: - Session

  /// The signed-in user, or `nil` when nobody is signed in. Reads storage, never the network.
  ///
  /// - Throws: ``XidError/Code/storageLocked`` while the device is locked (the user is still signed in).
  public func session() async throws -> XidSession? {
    // A launch is where a sibling app learns that its family signed out.
    try await checkFamilyLink()
    guard let record = try await account.record() else { return nil }
    guard presence.lockIsOpen else { return try XidSession(lockedSessionOf: record) }
    return try XidSession(record: record, dpopBinding: binding(of: record))
  }

  /// The user's claims from the provider's UserInfo endpoint (checked to be about the same `sub`).
  public func userInfo() async throws -> UserInfo {
    try await PresenceScope.run(on: self) {
      try await requireOpenLock(for: "userInfo()")
      let record = try await account.validRecord(force: false)
      let subject = try XidSession(record: record).subject
      let key = try signer.key(for: record)
      try await signer.ready(key)
      return try await client.userInfo(accessToken: record.accessToken, expectedSubject: subject, dpopKey: key?.key)
    }
  }

  // MARK: - Sign-out

  /// Signs the user out: the local session is deleted first, whatever the network does; then the
  /// refresh token is revoked (best effort) and, with `callEndSession`, the provider's end-session
  /// page is opened with `userAgent`.
  ///
  /// With `scope` ``SignOutScope/family``, for a member of an app family, the family's record is
  /// deleted before anything else (no app of the family can sign in from it again), its device
  /// secret is revoked after the refresh token (``SignOutResult/deviceSecretRevocation``), and the
  /// family's other apps end their sessions at their next refresh, launch or session event.
  ///
  /// - Returns: what became of the refresh token at the provider (``SignOutResult/revocation``).
  /// - Throws: what deleting the local session throws, and, with `callEndSession`, what opening the
  ///   end-session page throws (the session is deleted and the revocation done by then).
  @discardableResult
  public func signOut(
    callEndSession: Bool, userAgent: (any AuthorizationUserAgent)?, scope: SignOutScope = .thisApp
  ) async throws -> SignOutResult {
    // A family sign-out removes the family's record first, under the family's lock (taken before the
    // account's), so that no app of the family can sign in from it again.
    let deviceSecret = scope == .family ? try await removeFamilyRecord(of: try? await account.record()) : nil
    // Local state goes first, whatever the network does afterwards. A record of a format this version
    // cannot read is removed all the same; nothing of it can be revoked.
    let record = try await account.remove()
    // The session's key goes too; it stays in memory for the revocation's proof.
    let key = record?.dpopKeyThumbprint.flatMap { try? dpopKeys.key(thumbprint: $0) }
    if let thumbprint = record?.dpopKeyThumbprint { dpopKeys.delete(thumbprint: thumbprint) }
    // Sign-out never asks the user, and the proof of a key that needs them would: such a session's
    // refresh token is not revoked. It is bound to that key, which is gone, so no one can use it.
    let keyNeedsTheUser = key?.key is PresenceDPoPKey
    await pending.removeAll()
    let revocable = await account.revocableRefreshToken(of: record)
    await presence.didSignOut(logger: logger)
    logger.log(.info, category: "sign-out", "signed out locally")
    guard let record else {
      return SignOutResult(revocation: nil, deviceSecretRevocation: await revokeDeviceSecret(deviceSecret))
    }
    let revocation: RevocationOutcome
    if !keyNeedsTheUser, let refreshToken = revocable {
      revocation = await client.revokeBestEffort(
        refreshToken, hint: .refreshToken, dpopKey: key?.key, category: "sign-out", naming: "the refresh token")
    } else {
      let reason: RevocationOutcome.NotRevocableReason =
        keyNeedsTheUser
        ? .dpopKeyNeedsTheUser : record.sealedRefreshToken != nil ? .refreshTokenNeedsTheUser : .noRefreshToken
      logger.log(.info, category: "sign-out", "the refresh token is not revoked: \(reason)")
      revocation = .notRevocable(reason)
    }
    let result = SignOutResult(revocation: revocation, deviceSecretRevocation: await revokeDeviceSecret(deviceSecret))
    guard callEndSession else { return result }
    let idToken = record.idToken.flatMap { try? IDToken(restoring: $0) }
    let url = try await client.endSessionURL(idTokenHint: idToken)
    guard let userAgent else {
      throw XidError(.invalidConfiguration, "ending the provider's session needs a user agent to open its page")
    }
    try await userAgent.open(url)
    return result
  }

  // MARK: - Tokens and authorized requests

  /// A valid access token, refreshed first when it expires within the configured leeway (or when
  /// `forceRefresh` is set). With a valid token in memory, or in storage when this process has not
  /// read it yet, it returns without leaving the caller's actor (Swift 6.2 and later).
  ///
  /// - Throws: ``XidError/Code/signInRequired``, ``XidError/Code/sessionExpired`` (sign the user in
  ///   again), or ``XidError/Code/networkFailure`` and ``XidError/Code/storageLocked`` (try later).
  #if compiler(>=6.2)
    nonisolated(nonsending) public func accessToken(forceRefresh: Bool = false) async throws -> String {
      if !forceRefresh, let token = try accessTokenWithoutWaiting() { return token }
      return try await validRecordFromTheActor(forceRefresh: forceRefresh).accessToken
    }
  #else
    public nonisolated func accessToken(forceRefresh: Bool = false) async throws -> String {
      if !forceRefresh, let token = try accessTokenWithoutWaiting() { return token }
      return try await validRecordFromTheActor(forceRefresh: forceRefresh).accessToken
    }
  #endif

  /// The access token when it can be had at once: the one in memory while it is usable, or the
  /// stored one when this process has none in memory yet and its token is usable; `nil` when the
  /// account's actor has to decide (a refresh, a closed session lock, an error to report).
  ///
  /// Synchronous, so that `Xid.getAccessToken()` costs one `await` on this path: a read of the
  /// cached record under its lock, the clock's cheap reading, and the session lock's and the DPoP
  /// mode's flags. A sign-out or refresh that finished before the read is seen; one that finishes
  /// after it is ordered after this call.
  ///
  /// - Throws: ``XidError/Code/dpopKeyUnavailable`` for a stored Bearer record that a DPoP
  ///   configuration reads.
  package nonisolated func accessTokenWithoutWaiting() throws -> String? {
    guard presence.lockIsOpen else { return nil }
    if let token = account.usableAccessTokenFromMemory(requiringDPoP: signer.requiresDPoP) { return token }
    return try usableRecordWithoutTheActor(forceRefresh: false)?.accessToken
  }

  /// A record with a usable access token (for `resource`, that resource's): the one in memory, or
  /// the stored one when this process has none in memory yet, when its token is usable (on the
  /// caller's executor: no actor hop, no thread); else the account actor's, refreshed when needed.
  /// None while the session lock is closed (``XidError/Code/sessionLocked``); a DPoP
  /// configuration's record must be bound to a key.
  #if compiler(>=6.2)
    nonisolated(nonsending) func usableRecord(forceRefresh: Bool, resource: ProtectedResource? = nil) async throws
      -> TokenRecord
    {
      if let record = try usableRecordWithoutTheActor(forceRefresh: forceRefresh, resource: resource) {
        return record
      }
      return try await validRecordFromTheActor(forceRefresh: forceRefresh, resource: resource)
    }
  #else
    nonisolated func usableRecord(forceRefresh: Bool, resource: ProtectedResource? = nil) async throws -> TokenRecord {
      if let record = try usableRecordWithoutTheActor(forceRefresh: forceRefresh, resource: resource) {
        return record
      }
      return try await validRecordFromTheActor(forceRefresh: forceRefresh, resource: resource)
    }
  #endif

  private nonisolated func usableRecordWithoutTheActor(forceRefresh: Bool, resource: ProtectedResource? = nil) throws
    -> TokenRecord?
  {
    guard !forceRefresh, presence.lockIsOpen,
      let record = account.usableRecordFromMemory() ?? account.usableRecordFromStorage()
    else { return nil }
    if let resource, !account.isUsable(record, for: resource) { return nil }
    try signer.requireBinding(of: record)
    return record
  }

  private nonisolated func validRecordFromTheActor(forceRefresh: Bool, resource: ProtectedResource? = nil)
    async throws -> TokenRecord
  {
    try await requireOpenLock(for: "an access token")
    // Where a sibling app learns that its family signed out (never the fast path above).
    try await checkFamilyLink()
    // One call: a refresh opens the sealed refresh token and signs its proof with one prompt.
    let record = try await PresenceScope.run {
      try await account.validRecord(force: forceRefresh, resource: resource)
    }
    try signer.requireBinding(of: record)
    return record
  }

  /// Sends `request` with the access token attached: `Authorization: Bearer …`, or for a DPoP-bound
  /// session `Authorization: DPoP …` with a `DPoP` proof (with `ath`, and the server's latest nonce).
  /// On a 401 whose `WWW-Authenticate` says `invalid_token` (or cannot be read), the token is
  /// refreshed and the request sent once more. A DPoP `use_dpop_nonce` challenge is retried once
  /// with the server's new nonce. The request is sent at most three times.
  ///
  /// A 401 that asks for a step-up (RFC 9470 `insufficient_user_authentication`) is neither refreshed
  /// nor retried: it is thrown as ``XidError/Code/stepUpRequired``, with what the server asks for in
  /// ``XidError/stepUp``, and the session is kept.
  ///
  /// A request to a URL of a configured resource (``ClientIdentity/resources``, RFC 8707) carries
  /// that resource's own token (see ``accessToken(for:forceRefresh:)``). To learn which token went,
  /// and the `authorization_details` granted with it, call ``sendReportingGrant(_:)``.
  ///
  /// - Throws: ``XidError/Code/insecureURL`` for a URL that is neither `https` nor loopback,
  ///   ``XidError/Code/stepUpRequired``, token errors (see ``accessToken(forceRefresh:)`` and
  ///   ``accessToken(for:forceRefresh:)``), ``XidError/Code/dpopKeyUnavailable``, and transport
  ///   errors.
  public nonisolated func send(_ request: HTTPRequest) async throws -> HTTPResponse {
    try request.url.requireSecure(for: "authorized request URL")
    return try await sendAuthorized(request) { response, _, _ in response }
  }

  /// Sends `request` as ``send(_:)`` does, and says which token authorized it: its resource, and
  /// the `authorization_details` the provider granted with it (RFC 9396), for a resource server that
  /// checks them.
  ///
  /// - Throws: as ``send(_:)``.
  public nonisolated func sendReportingGrant(_ request: HTTPRequest) async throws -> AuthorizedResponse {
    try request.url.requireSecure(for: "authorized request URL")
    return try await sendAuthorized(request) { response, record, resource in
      AuthorizedResponse(response, record: record, resource: resource)
    }
  }

  /// A valid access token for `resource`, one of the configured resources (RFC 8707), issued from
  /// the session's refresh token for that resource alone, and refreshed on its own when it expires
  /// within the leeway (or with `forceRefresh`). Each resource's token is refreshed under the
  /// account's lock like the session's own, and a refresh token the provider rotates meanwhile is
  /// the session's, for all of them.
  ///
  /// - Throws: ``XidError/Code/invalidConfiguration`` for a resource that is not configured
  ///   (``ClientIdentity/resources``), ``XidError/Code/invalidTarget`` when the provider issues no
  ///   token for it (the session is kept), ``XidError/Code/signInRequired`` when the session has no
  ///   refresh token to get one with, and the errors of ``accessToken(forceRefresh:)``.
  public nonisolated func accessToken(for resource: URL, forceRefresh: Bool = false) async throws -> String {
    let resource = try configuration.identity.resource(identifiedBy: resource)
    return try Self.accessToken(of: await usableRecord(forceRefresh: forceRefresh, resource: resource), for: resource)
  }

  /// The access token of `record` for `resource` (the session's own for `nil`).
  nonisolated static func accessToken(of record: TokenRecord, for resource: ProtectedResource?) throws -> String {
    guard let resource else { return record.accessToken }
    guard let token = record.resourceTokens[resource.parameter]?.accessToken else {
      // The refresh that returned `record` got this resource's token; only a record replaced
      // meanwhile lacks it.
      throw XidError(
        .storageFailure,
        "the session changed while a token for the resource was being issued; nothing was lost, try again")
    }
    return token
  }
}

/// A response to a request ``SessionEngine/sendReportingGrant(_:)`` sent, with what authorized it.
public struct AuthorizedResponse: Sendable {
  /// The response.
  public let response: HTTPResponse
  /// The configured resource whose token the request carried (RFC 8707); `nil` for the session's own.
  public let resource: URL?
  /// The `authorization_details` granted with that token (RFC 9396), when the provider stated any.
  public let authorizationDetails: [AuthorizationDetail]?

  init(_ response: HTTPResponse, record: borrowing TokenRecord, resource: ProtectedResource?) {
    self.response = response
    self.resource = resource?.identifier
    if let resource {
      authorizationDetails = record.resourceTokens[resource.parameter]?.authorizationDetails
    } else {
      authorizationDetails = record.authorizationDetails
    }
  }
}
