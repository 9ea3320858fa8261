import Foundation

/// What a refresh got from the provider, already validated (a new ID token per OIDC Core 12.2).
struct RefreshedTokens: Sendable {
  var accessToken: String
  var tokenType: String
  var expiresIn: TimeInterval?
  var refreshToken: String?
  var idToken: String?
  var scopes: [String]?
}

/// One account's tokens in this process: the stored record, its in-memory copy for the fast path, and
/// refreshes that never log the user out by mistake.
///
/// - In this process, one refresh runs at a time; concurrent callers await the same result.
/// - Across processes (an app and its extensions, several command-line processes), a file lock is held
///   around read–refresh–save, and the record is read again once the lock is held: if another process
///   refreshed meanwhile, its tokens are used and no second refresh is made.
/// - A refused refresh (`invalid_grant` and the like) ends the session only when the stored refresh
///   token is still the one that failed; network failures and server errors keep it.
actor AccountSession {
  typealias Refresher = @Sendable (_ record: TokenRecord) async throws -> RefreshedTokens

  private let records: AccountRecordStore
  private let lock: AccountLock
  private let refresher: Refresher
  private let logger: any XidLogger
  private let now: @Sendable () -> Date
  let expiryLeeway: TimeInterval
  /// Seals the refresh token when its protection is configured (``PresenceOptions/refreshTokenProtection``).
  let vault: RefreshTokenVault?

  /// The latest record this process knows, for the synchronous fast path; `nil` until loaded.
  nonisolated let cached = LockedValue<TokenRecord?>(nil)
  private var loaded = false
  private var inFlight: Task<TokenRecord, any Error>?

  init(
    records: AccountRecordStore, lock: FileLock?, lockTimeout: Duration, activity: (any BackgroundActivity)? = nil,
    expiryLeeway: TimeInterval, logger: any XidLogger, now: @escaping @Sendable () -> Date,
    refresher: @escaping Refresher, revoker: @escaping @Sendable (_ refreshToken: String) async -> Void = { _ in },
    vault: RefreshTokenVault? = nil
  ) {
    self.records = records
    self.lock = AccountLock(file: lock, timeout: lockTimeout, activity: activity)
    self.expiryLeeway = expiryLeeway
    self.logger = logger
    self.now = now
    self.refresher = refresher
    self.vault = vault
  }

  /// The access token if the in-memory record has one that is still usable: no actor hop, no I/O.
  nonisolated func usableAccessTokenFromMemory() -> String? {
    guard let record = cached.get(), record.hasUsableAccessToken(at: now(), leeway: expiryLeeway) else {
      return nil
    }
    return record.accessToken
  }

  /// The stored record, read once per process and then kept in memory; `nil` when signed out.
  func record() throws -> TokenRecord? {
    if loaded { return cached.get() }
    let record = try records.read().record
    cached.set(record)
    loaded = true
    return record
  }

  /// A record with a usable access token, refreshing when the token is expired (or `force`).
  ///
  /// - Throws: ``XidError/Code/signInRequired`` when there is no session, ``XidError/Code/sessionExpired``
  ///   when the provider ended it, and network or storage errors with the session kept.
  func validRecord(force: Bool) async throws -> TokenRecord {
    guard let current = try record() else {
      throw XidError(.signInRequired, "no user is signed in for this account; call signIn()")
    }
    if !force && current.hasUsableAccessToken(at: now(), leeway: expiryLeeway) { return current }
    if let inFlight { return try await inFlight.value }
    let canceller = AccountCanceller()
    let task = Task {
      try await self.refreshUnderLock(seenVersion: current.version, force: force, canceller: canceller)
    }
    canceller.set { task.cancel() }
    inFlight = task
    defer { inFlight = nil }
    return try await task.value
  }

  /// Saves a record from a sign-in, replacing this configuration's previous one.
  func store(_ record: TokenRecord) async throws {
    var record = try await sealedForStorage(record, newKey: true)
    let slot = try records.read()
    record.version = max(record.version, (slot.record?.version ?? cached.get()?.version ?? 0) + 1)
    try records.save(record, at: slot.key)
    cached.set(record)
    loaded = true
  }

  /// Deletes this configuration's record (sign-out), also one of a format this version cannot read:
  /// memory first, then storage.
  ///
  /// - Returns: the record deleted, when it could be read.
  @discardableResult
  func remove() throws -> TokenRecord? {
    cached.set(nil)
    loaded = true
    return try records.deleteOwn()
  }

  // MARK: - Refresh

  /// Refreshes under the account's lock, inside a background activity: when the system ends its
  /// time, `canceller` cancels the refresh, the lock is released, and nothing is saved.
  private func refreshUnderLock(seenVersion: Int64, force: Bool, canceller: AccountCanceller) async throws
    -> TokenRecord
  {
    try await lock.run("token refresh", canceller: canceller, isolation: self) { tenure in
      try await refresh(seenVersion: seenVersion, force: force, tenure: tenure)
    }
  }

  private func refresh(seenVersion: Int64, force: Bool, tenure: AccountTenure) async throws -> TokenRecord {
    // Another process may have refreshed (or signed out) while this one waited for the lock.
    let slot = try records.read()
    guard let stored = slot.record else {
      cached.set(nil)
      throw XidError(.signInRequired, "the user signed out in another process; call signIn()")
    }
    let usable = stored.hasUsableAccessToken(at: now(), leeway: expiryLeeway)
    if usable && (!force || stored.version > seenVersion) {
      logger.log(.debug, category: "refresh", "using tokens another process refreshed (version \(stored.version))")
      cached.set(stored)
      return stored
    }
    guard let refreshToken = stored.storedRefreshCredential else {
      throw XidError(
        .signInRequired, "the access token expired and the provider issued no refresh token; call signIn()")
    }
    let opened = try await openedForRefresh(stored)
    let tokens: RefreshedTokens
    do {
      tokens = try await refresher(opened)
    } catch let error as XidError where error.endsSession {
      // The provider refused this refresh token. If another process rotated it meanwhile, its newer
      // tokens are good; only when the stored one is still the refused one is the session over.
      if let again = try records.read().record, again.storedRefreshCredential != refreshToken {
        logger.log(.notice, category: "refresh", "refresh refused, but another process had already rotated the token")
        cached.set(again)
        return again
      }
      logger.log(.notice, category: "refresh", "the provider refused the refresh token (\(error.code)); signing out")
      if let key = slot.key { try? tenure.commit { try records.delete(at: key) } }
      cached.set(nil)
      throw XidError(
        .sessionExpired, "the provider ended the session (\(error.reason)); sign the user in again",
        httpStatus: error.httpStatus, oauthError: error.oauthError)
    }
    var next = stored
    next.version = stored.version + 1
    next.accessToken = tokens.accessToken
    next.tokenType = tokens.tokenType
    next.expiresAt = tokens.expiresIn.map { now().addingTimeInterval($0) }
    next.refreshToken = tokens.refreshToken ?? opened.refreshToken
    next.sealedRefreshToken = nil
    next.idToken = tokens.idToken ?? stored.idToken
    next.scopes = tokens.scopes ?? stored.scopes
    next = try await sealedForStorage(next, newKey: false)
    try tenure.commit { try records.save(next, at: slot.key) }
    cached.set(next)
    logger.log(.info, category: "refresh", "refreshed tokens (version \(next.version))")
    return next
  }
}

extension XidError {
  /// Whether this refresh failure means the grant is gone (the provider refused the refresh token),
  /// as opposed to a failure worth retrying (network, server error, locked storage).
  var endsSession: Bool { code == .refreshRefused }
}
