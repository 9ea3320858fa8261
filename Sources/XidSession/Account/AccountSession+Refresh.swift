import Foundation

extension AccountSession {
  /// Refreshes under the account's lock, inside a background activity: when the system ends its
  /// time, `canceller` cancels the refresh, the lock is released, and nothing is saved. The refresh
  /// tokens the refresh drops are revoked once the lock is released.
  func refreshUnderLock(seenVersion: Int64, goal: RefreshGoal, canceller: AccountCanceller) async throws
    -> TokenRecord
  {
    var dropped: [String] = []
    do {
      // The app family's lock, for the family's own app, comes before the account's.
      let record = try await refresher.beforeTheAccountLock(for: cached.get(), isolation: self) {
        try await lock.run("token refresh", canceller: canceller, isolation: self) { tenure in
          try await refresh(seenVersion: seenVersion, goal: goal, tenure: tenure) { dropped.append($0) }
        }
      }
      await revokeDropped(dropped)
      return record
    } catch {
      await revokeDropped(dropped)
      throw error
    }
  }

  /// One refresh, with the lock held. `drop` is told a refresh token this refresh leaves unused.
  ///
  /// The lock excludes other refreshes where there is a lock file, not sign-ins and sign-outs, and
  /// nothing at all where there is none (``AccountSession``). So every write of the refresh's result
  /// compares the stored record with the one the refresh read, right before it and with nothing in
  /// between (``write(replacing:epoch:tenure:_:)``), and writes nothing if it changed.
  ///
  /// - Parameter attempts: how many more times the record may be found replaced by one with an
  ///   expired token, and refreshed in its turn.
  private func refresh(
    seenVersion: Int64, goal: RefreshGoal, tenure: AccountTenure, attempts: Int = 2, drop: (String) -> Void
  ) async throws -> TokenRecord {
    // This process's sign-ins and sign-outs from here on make the refresh's result stale.
    let epoch = self.epoch
    // Another process may have refreshed (or signed out) while this one waited for the lock.
    let first = try records.read()
    guard var stored = first.record else {
      if let token = unsaved?.record.refreshToken { drop(token) }
      unsaved = nil
      cached.set(nil)
      throw XidError(.signInRequired, "the user signed out in another process; call signIn()")
    }
    if let kept = unsaved {
      // Tokens an earlier refresh could not save go to storage first: the stored refresh token is
      // spent.
      if stored.isSameSave(as: kept.base) {
        // Sealed now when sealing failed after their refresh: storage never holds it open.
        let record = try await sealedForStorage(kept.record, keyOf: stored)
        if case .replaced(let latest) = try await saveHoldingLock(
          record, replacing: stored, epoch: epoch, tenure: tenure)
        {
          unsaved = nil
          if let token = kept.record.refreshToken, token != latest?.refreshToken { drop(token) }
          logger.log(.notice, category: "refresh", Self.replacedMessage(signedOut: latest == nil))
          return try await superseded(by: latest, goal: goal, tenure: tenure, attempts: attempts, drop: drop)
        }
        stored = record
        logger.log(.info, category: "refresh", "saved the tokens an earlier refresh could not save")
      } else if let token = kept.record.refreshToken, token != stored.refreshToken {
        drop(token)
      }
      unsaved = nil
    }
    let usable = stored.hasUsableAccessToken(for: goal.resource?.parameter, at: clock.now, leeway: expiryLeeway)
    if usable && (!goal.force || stored.version > seenVersion) {
      logger.log(.debug, category: "refresh", "using tokens another process refreshed (version \(stored.version))")
      cached.set(stored)
      return stored
    }
    guard let refreshToken = stored.storedRefreshCredential else {
      throw XidError(
        .signInRequired, "the access token expired and the provider issued no refresh token; call signIn()")
    }
    // A sealed refresh token is opened (the user may be asked); `refreshToken` stays the stored form.
    let opened = try await openedForRefresh(stored)
    let tokens: RefreshedTokens
    do {
      tokens = try await refresher.refresh(opened, for: goal.resource)
    } catch let error as XidError where error.endsSession {
      return try await refused(
        error, refreshToken: refreshToken, goal: goal, tenure: tenure, attempts: attempts, drop: drop)
    }

    // The provider may have spent the stored refresh token: from here on, these tokens are the
    // session's, and they are never lost. The record may have been removed or replaced while the
    // request was out (by a sign-out or a sign-in, in this process or another): each write below
    // compares first, and nothing is written over a newer record.
    if let foreign = tokens.foreign {
      return try await endForeign(
        foreign, opened: opened, tokens: tokens, base: stored, epoch: epoch, goal: goal, tenure: tenure,
        attempts: attempts, drop: drop)
    }
    let refreshed = opened.refreshed(with: tokens, at: clock.now, for: goal.resource?.parameter, logger: logger)
    let next: TokenRecord
    do {
      next = try await sealedForStorage(refreshed, keyOf: stored)
    } catch {
      return try await keepUnstored(
        refreshed, failure: "seal", error, tokens: tokens, opened: opened, base: stored, epoch: epoch, goal: goal,
        tenure: tenure, attempts: attempts, drop: drop)
    }
    let written: Written
    do {
      written = try await saveHoldingLock(next, replacing: stored, epoch: epoch, tenure: tenure)
    } catch {
      return try await keepUnstored(
        next, failure: "save", error, tokens: tokens, opened: opened, base: stored, epoch: epoch, goal: goal,
        tenure: tenure, attempts: attempts, drop: drop)
    }
    if case .replaced(let latest) = written {
      return try await replaced(
        by: latest, refreshed: tokens, opened: opened, base: stored, goal: goal, tenure: tenure,
        attempts: attempts, drop: drop)
    }
    cached.set(next)
    if let unchecked = tokens.uncheckedIDToken {
      logger.log(
        .notice, category: "refresh",
        "saved the refreshed tokens with the previous claims: the new ID token could not be checked yet (\(unchecked.code)); the next refresh checks again"
      )
    }
    logger.log(.info, category: "refresh", "refreshed tokens (version \(next.version))")
    return next
  }

  /// What became of a write of a refresh's result.
  enum Written {
    /// Written: the stored record was still the one the refresh read.
    case written
    /// Nothing was written: the record was removed (`nil`) or replaced by this one meanwhile.
    case replaced(by: TokenRecord?)
  }

  /// The provider answered with `tokens` and they could not be stored: reading the record to
  /// compare it failed (a keychain locked mid-request, an I/O error, a record of a newer format
  /// written meanwhile), or sealing the new refresh token did (a presence key looked up after the
  /// device locked), or the save did (``saveHoldingLock(_:replacing:epoch:tenure:)``). The provider
  /// has spent the stored refresh token: unless the record was removed or replaced meanwhile, these
  /// tokens are the session now. This process keeps them (``unsaved``, unsealed when sealing
  /// failed), tries to save them again at its next use of the session, and saves them (sealed)
  /// before any further refresh, so that the spent token is never sent again from here. Until then,
  /// another process that refreshes sends it (docs/reliability.md, "Storage that refuses writes").
  private func keepUnstored(
    _ next: TokenRecord, failure: String, _ error: any Error, tokens: RefreshedTokens, opened: TokenRecord,
    base: TokenRecord, epoch: UInt64, goal: RefreshGoal, tenure: AccountTenure, attempts: Int, drop: (String) -> Void
  ) async throws -> TokenRecord {
    // The record (or this process) may tell that the session is gone: then they are dropped.
    if case .replaced(let latest)? = try? compare(with: base, epoch: epoch) {
      return try await replaced(
        by: latest, refreshed: tokens, opened: opened, base: base, goal: goal, tenure: tenure, attempts: attempts,
        drop: drop)
    }
    unsaved = (next, base)
    cached.set(next)
    logger.log(
      .error, category: "refresh",
      "could not \(failure) the refreshed tokens (\((error as? XidError)?.code.rawValue ?? "an error")); this process keeps them and saves them at its next use, before any further refresh"
    )
    return next
  }

  /// Where the stored record stands against `base`, the record a refresh read.
  private enum Comparison {
    /// It is still `base`, under `key`.
    case unchanged(key: String?)
    /// It was removed (`nil`) or replaced by this one.
    case replaced(by: TokenRecord?)
  }

  /// Compares the stored record with `base`; a sign-in or sign-out of this process since `epoch`
  /// counts as a replacement, with the record it left in memory.
  private func compare(with base: TokenRecord, epoch: UInt64) throws -> Comparison {
    guard epoch == self.epoch else { return .replaced(by: cached.get()) }
    let slot = try records.read()
    guard let current = slot.record, current.isSameSave(as: base) else { return .replaced(by: slot.record) }
    return .unchanged(key: slot.key)
  }

  /// Runs `write` (a write of a refresh's result, given the record's key) only if the stored record
  /// is still `base`, the one the refresh read, and this process neither signed in nor out since
  /// `epoch`. The record is read right before the write, with nothing in between, and both run
  /// inside the tenure's commit (never after the background time ran out).
  ///
  /// This is a compare before the write, not a mutex: a sign-in or sign-out never waits for a
  /// refresh because of it. In this process both run on the account's actor, so none lands between
  /// the compare and the write. Another process that shares the storage may, in the time between
  /// one storage call and the next (docs/reliability.md).
  ///
  /// - Throws: the read's errors and the write's; the caller keeps the refresh's tokens.
  private func write(
    replacing base: TokenRecord, epoch: UInt64, tenure: AccountTenure, _ write: (String?) throws -> Void
  ) throws -> Written {
    try tenure.commit {
      switch try compare(with: base, epoch: epoch) {
      case .unchanged(let key):
        try write(key)
        return .written
      case .replaced(let latest):
        return .replaced(by: latest)
      }
    }
  }

  /// The record this refresh started from (`base`) was removed or replaced (by `latest`) while the
  /// provider answered with `tokens`: nothing of them is saved, the refresh token the provider issued
  /// is dropped (or, when it did not rotate, the old one if its session is gone), and the newer
  /// record is used.
  private func replaced(
    by latest: TokenRecord?, refreshed tokens: RefreshedTokens, opened: TokenRecord, base: TokenRecord,
    goal: RefreshGoal,
    tenure: AccountTenure, attempts: Int, drop: (String) -> Void
  ) async throws -> TokenRecord {
    if let issued = tokens.refreshToken {
      drop(issued)  // issued to this refresh alone
    } else if latest?.signInID != base.signInID || latest == nil, let old = opened.refreshToken {
      drop(old)  // not rotated: still the token of a session that is gone
    }
    logger.log(.notice, category: "refresh", Self.replacedMessage(signedOut: latest == nil))
    return try await superseded(by: latest, goal: goal, tenure: tenure, attempts: attempts, drop: drop)
  }

  private static func replacedMessage(signedOut: Bool) -> String {
    signedOut
      ? "the user signed out during the refresh; its tokens were dropped"
      : "the session was replaced during the refresh; its tokens were dropped"
  }

  /// Saves `record`, the only copy of tokens the provider has just issued, keeping the account's lock
  /// until it is saved: while storage holds the refresh token the provider has spent, no other
  /// process may read it and send it (with reuse detection, the provider would end the session).
  /// Each attempt compares the stored record with `base` first (``write(replacing:epoch:tenure:_:)``):
  /// a sign-out or a sign-in during a pause between two attempts is never undone.
  ///
  /// A write that fails is tried again after a pause on the configuration's clock, doubling from
  /// ``firstSavePause`` to at most a second, for at most ``saveAttempts`` writes within
  /// ``saveRetryWindow`` (shorter than the default ``SessionPolicy/refreshLockTimeout``, so that the
  /// processes waiting for the lock get the saved tokens). It stops early when the background time
  /// ends or the refresh is cancelled.
  ///
  /// - Returns: whether it was saved, or the record that replaced `base` meanwhile.
  /// - Throws: the last attempt's error, or the cancellation's; the caller keeps the tokens in memory.
  private func saveHoldingLock(
    _ record: TokenRecord, replacing base: TokenRecord, epoch: UInt64, tenure: AccountTenure
  ) async throws -> Written {
    let deadline = clock.now.addingTimeInterval(Self.saveRetryWindow.timeInterval)
    var pause = Self.firstSavePause
    var attempt = 1
    while true {
      do {
        let written = try write(replacing: base, epoch: epoch, tenure: tenure) { try records.save(record, at: $0) }
        if attempt > 1, case .written = written {
          logger.log(.notice, category: "refresh", "saved the refreshed tokens at attempt \(attempt)")
        }
        return written
      } catch {
        let code = (error as? XidError)?.code.rawValue ?? "an error"
        // A record of a newer format stays one: no attempt would get further.
        guard !tenure.hasExpired, !Task.isCancelled, attempt < Self.saveAttempts,
          (error as? XidError)?.code != .unsupportedRecordFormat,
          clock.now.addingTimeInterval(pause.timeInterval) <= deadline
        else { throw error }
        logger.log(
          .notice, category: "refresh",
          "could not save the refreshed tokens (\(code)); keeping the lock and trying again in \(pause.timeInterval) s"
        )
      }
      try await clock.sleep(for: pause)
      pause = min(pause * 2, .seconds(1))
      attempt += 1
    }
  }

  /// How many writes ``saveHoldingLock(_:at:tenure:)`` makes at most.
  static let saveAttempts = 8
  /// The pause after the first write that failed.
  static let firstSavePause = Duration.milliseconds(50)
  /// How long, on the clock, a refresh keeps the lock to save its tokens: under the default lock
  /// timeout of 10 seconds.
  static let saveRetryWindow = Duration.seconds(5)

  /// The answer proved foreign: the session ends, and the refresh token the provider just issued (or
  /// the old one, when it did not rotate) is revoked; unless the record was removed or replaced
  /// meanwhile, which is then left as it is.
  private func endForeign(
    _ error: XidError, opened: TokenRecord, tokens: RefreshedTokens, base: TokenRecord, epoch: UInt64,
    goal: RefreshGoal,
    tenure: AccountTenure, attempts: Int, drop: (String) -> Void
  ) async throws -> TokenRecord {
    let written: Written
    do {
      written = try write(replacing: base, epoch: epoch, tenure: tenure) { try records.delete(at: $0) }
    } catch {
      // Whatever storage does, the tokens are not this session's.
      if let token = tokens.refreshToken ?? opened.refreshToken { drop(token) }
      throw error
    }
    if case .replaced(let latest) = written {
      return try await replaced(
        by: latest, refreshed: tokens, opened: opened, base: base, goal: goal, tenure: tenure, attempts: attempts,
        drop: drop)
    }
    if let token = tokens.refreshToken ?? opened.refreshToken { drop(token) }
    cached.set(nil)
    logger.log(.error, category: "refresh", "the refresh answer is not this session's (\(error.code)); signed out")
    throw XidError(
      .foreignTokenResponse,
      "the refresh answered with tokens that are not this session's (\(error.reason)); the session was ended and the new refresh token revoked: sign the user in again"
    )
  }

  /// The provider refused the refresh token. If another process rotated it meanwhile, or a new
  /// sign-in replaced the session, the newer tokens are good; only when the stored one is still the
  /// refused one is the session over.
  private func refused(
    _ error: XidError, refreshToken: String, goal: RefreshGoal, tenure: AccountTenure, attempts: Int,
    drop: (String) -> Void
  ) async throws -> TokenRecord {
    let slot = try records.read()
    guard slot.record != nil else {
      // Signed out meanwhile: a sign-out never waits for a refresh, and its revocation may have
      // reached the provider first. Nobody is signed in; the provider proved nothing more.
      cached.set(nil)
      throw XidError(.signInRequired, "the user signed out while the tokens were being refreshed; call signIn()")
    }
    if let latest = slot.record, latest.storedRefreshCredential != refreshToken {
      logger.log(.notice, category: "refresh", "refresh refused, but the stored refresh token had changed meanwhile")
      return try await superseded(by: latest, goal: goal.unforced, tenure: tenure, attempts: attempts, drop: drop)
    }
    logger.log(.notice, category: "refresh", "the provider refused the refresh token (\(error.code)); signing out")
    try tenure.commit { try records.delete(at: slot.key) }
    cached.set(nil)
    throw XidError(
      .sessionExpired, "the provider ended the session (\(error.reason)); sign the user in again",
      httpStatus: error.httpStatus, oauthError: error.oauthError)
  }

  /// The record this refresh started from was removed (`latest` is `nil`) or replaced: nothing of the
  /// refresh is saved; the newer record is used, refreshed in its turn when its token has expired.
  private func superseded(
    by latest: TokenRecord?, goal: RefreshGoal, tenure: AccountTenure, attempts: Int, drop: (String) -> Void
  ) async throws -> TokenRecord {
    guard let latest else {
      cached.set(nil)
      throw XidError(.signInRequired, "the user signed out while the tokens were being refreshed; call signIn()")
    }
    cached.set(latest)
    if latest.hasUsableAccessToken(for: goal.resource?.parameter, at: clock.now, leeway: expiryLeeway) {
      return latest
    }
    guard attempts > 1 else {
      throw XidError(
        .storageFailure, "the stored session kept changing while it was being refreshed; nothing was lost, try again")
    }
    return try await refresh(
      seenVersion: latest.version, goal: goal, tenure: tenure, attempts: attempts - 1, drop: drop)
  }

  /// Revokes the refresh tokens a refresh left unused, best effort: no one will ever send them.
  private func revokeDropped(_ tokens: [String]) async {
    for token in tokens { await refresher.revokeDropped(token) }
  }
}

extension TokenRecord {
  /// Whether `other` is the same save of the same sign-in: a record another writer replaced, even
  /// with the same version (released versions of Xid save every sign-in as version 1), is not.
  func isSameSave(as other: TokenRecord) -> Bool {
    version == other.version && signInID == other.signInID
      && storedRefreshCredential == other.storedRefreshCredential && accessToken == other.accessToken
  }

  /// This record (with its refresh token opened) after a refresh that returned `tokens` at `now`:
  /// for `resource`, that resource's token is replaced, and the session's own for `nil`. A rotated
  /// refresh token is the session's, whichever token it came with.
  ///
  /// Granted `authorization_details` replace the previous ones, unless they are of a type the
  /// session was never granted: then the previous ones stay, and `logger` says so.
  func refreshed(
    with tokens: RefreshedTokens, at now: Date, for resource: String? = nil, logger: (any XidLogger)? = nil
  ) -> TokenRecord {
    var next = self
    next.version = version + 1
    let expiresAt = tokens.expiresIn.map { now.addingTimeInterval($0) }
    if let resource {
      let previous = resourceTokens[resource]
      next.resourceTokens[resource] = ResourceAccessToken(
        accessToken: tokens.accessToken, tokenType: tokens.tokenType, expiresAt: expiresAt,
        scopes: tokens.scopes ?? previous?.scopes,
        authorizationDetails: Self.kept(
          tokens.authorizationDetails, previous: previous?.authorizationDetails, granted: authorizationDetails,
          logger: logger))
    } else {
      next.accessToken = tokens.accessToken
      next.tokenType = tokens.tokenType
      next.expiresAt = expiresAt
      next.scopes = tokens.scopes ?? scopes
      next.authorizationDetails = Self.kept(
        tokens.authorizationDetails, previous: authorizationDetails, granted: authorizationDetails, logger: logger)
    }
    next.refreshToken = tokens.refreshToken ?? refreshToken
    next.sealedRefreshToken = nil
    next.idToken = tokens.idToken ?? idToken
    if pinnedIssuer == nil || pinnedSubject == nil, let identity = tokens.identity {
      next.pinnedIssuer = identity.issuer
      next.pinnedSubject = identity.subject
    }
    return next
  }

  /// The `authorization_details` to keep after a refresh that stated `new` (or none): `new`, unless
  /// it has a type outside `granted`, the session's (RFC 9396 §7: a refresh cannot widen a grant).
  private static func kept(
    _ new: [AuthorizationDetail]?, previous: [AuthorizationDetail]?, granted: [AuthorizationDetail]?,
    logger: (any XidLogger)?
  ) -> [AuthorizationDetail]? {
    guard let new else { return previous }
    let unrequested = AuthorizationDetail.unrequestedTypes(
      in: new, asked: granted.map(AuthorizationDetail.types(of:)) ?? [])
    guard unrequested.isEmpty else {
      logger?.log(
        .notice, category: "refresh",
        "the refresh stated authorization_details of \(unrequested.count) type(s) the session was not granted; the previous ones are kept"
      )
      return previous
    }
    return new
  }
}

/// What a refresh is for: the session's own access token or a resource's, and whether a usable one
/// is refreshed all the same (`force`: the server refused it).
struct RefreshGoal: Sendable {
  var force: Bool
  /// The resource whose token is refreshed; `nil` for the session's own.
  var resource: ProtectedResource? = nil

  /// The same goal without `force`: for a record another process refreshed meanwhile.
  var unforced: RefreshGoal { RefreshGoal(force: false, resource: resource) }
}
