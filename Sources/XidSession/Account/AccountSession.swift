import Foundation

/// What a refresh got from the provider, already validated (a new ID token per OIDC Core 12.2).
struct RefreshedTokens: Sendable {
  var accessToken: String
  var tokenType: String
  var expiresIn: TimeInterval?
  var refreshToken: String?
  var idToken: String?
  var scopes: [String]?
  /// The `authorization_details` the answer stated (RFC 9396 §7), if any.
  var authorizationDetails: [AuthorizationDetail]? = nil
  /// The `iss` and `sub` of ``idToken``, pinned in a record that has none yet.
  var identity: (issuer: String, subject: String)? = nil
  /// Why the new ID token could not be checked, when the reason may pass later: the new tokens are
  /// saved with the old claims, and the next refresh checks again.
  var uncheckedIDToken: XidError? = nil
  /// Why the answer is not this session's: the session ends and the new refresh token is revoked.
  var foreign: XidError? = nil
}

/// One account's tokens in this process: the stored record, its in-memory copy for the fast path, and
/// refreshes that never log the user out by mistake.
///
/// - In this process, one refresh runs at a time; concurrent callers await the same result.
/// - Across processes (an app and its extensions, several command-line processes), a file lock is held
///   around read–refresh–save, and the record is read again once the lock is held: if another process
///   refreshed meanwhile, its tokens are used and no second refresh is made.
/// - A refused refresh (`invalid_grant`) ends the session only when the stored refresh token is still
///   the one that failed; network failures and server errors keep it.
/// - Storing (a sign-in) and removing (a sign-out) write at once, without waiting for the lock, so
///   that a slow refresh never makes them fail. Where there is no lock file (`InMemoryTokenStorage`,
///   `KeychainTokenStorage` without a `refreshLockDirectory`, custom adapters), nothing excludes
///   anyone anyway, even in one process. So every write of a refresh's result compares the stored
///   record with the one the refresh read, right before the write and with nothing in between, and
///   writes nothing if it was removed or replaced meanwhile: a sign-out is never undone and a new
///   sign-in never overwritten. The refresh token it drops is revoked, best effort. Across
///   processes, a sign-in or sign-out checks the record again once the lock is free (with a lock
///   file), for a refresh whose write landed just after its own.
actor AccountSession {
  let records: AccountRecordStore
  let lock: AccountLock
  /// Refreshes the tokens at the provider, and revokes the refresh tokens a refresh drops.
  let refresher: any TokenRefreshing
  let logger: any XidLogger
  /// The configuration's clock: the time of expiry checks, and the waits between the attempts to
  /// save refreshed tokens.
  let clock: any XidClock
  let expiryLeeway: TimeInterval
  /// Seals the refresh token when its protection is configured (``PresenceOptions/refreshTokenProtection``).
  let sealer: (any RefreshTokenSealer)?

  /// The latest record this process knows, for the synchronous fast paths; `nil` until loaded.
  nonisolated let cached: RecordCache
  /// Refreshed tokens that could not be stored (storage refused them, the record could not be read
  /// to compare it, sealing the new refresh token failed, or they arrived after the background time
  /// ran out), with the record they replace: the provider has spent that record's refresh token, so
  /// they are saved (sealed first, when sealing failed) at the next use and before any further
  /// refresh.
  ///
  /// The refresh held the lock and tried the save for a while first (`saveHoldingLock`). Residual
  /// risk: until a save succeeds, another process that refreshes reads the spent refresh token from
  /// storage and sends it, and a provider with reuse detection then ends the session
  /// (docs/reliability.md, "Timeouts, and storage that refuses writes").
  var unsaved: (record: TokenRecord, base: TokenRecord)? {
    // While tokens wait here, the fast paths leave the call to the actor, which tries to save them.
    didSet { cached.setSavePending(unsaved != nil) }
  }
  /// Counts this process's sign-ins and sign-outs (``store(_:)``, ``remove()``) that reached storage:
  /// a refresh that read the record before one of them writes nothing of its result, whatever a read
  /// of storage shows afterwards.
  var epoch: UInt64 = 0
  /// When this process may next try to save ``unsaved`` outside a refresh.
  private var nextSaveAttempt = Date.distantPast
  /// The refresh under way, and the resource whose token it refreshes (`nil`: the session's own).
  private var inFlight: (task: Task<TokenRecord, any Error>, resource: String?)?

  init(
    records: AccountRecordStore, lock: FileLock?, lockTimeout: Duration, activity: (any BackgroundActivity)? = nil,
    expiryLeeway: TimeInterval, logger: any XidLogger, clock: any XidClock, refresher: any TokenRefreshing,
    sealer: (any RefreshTokenSealer)? = nil
  ) {
    self.records = records
    self.lock = AccountLock(file: lock, timeout: lockTimeout, activity: activity, clock: clock)
    self.clock = clock
    self.expiryLeeway = expiryLeeway
    self.cached = RecordCache(leeway: expiryLeeway)
    self.logger = logger
    self.refresher = refresher
    self.sealer = sealer
  }

  /// The in-memory access token when it is still usable (and DPoP-bound, with `requiringDPoP`): no
  /// actor hop, no I/O, no copy of the record, and the clock's cheap reading
  /// (``XidClock/coarseNow``), since the margin is the leeway's seconds.
  nonisolated func usableAccessTokenFromMemory(requiringDPoP: Bool) -> String? {
    cached.usableAccessToken(at: clock.coarseNow, requiringDPoP: requiringDPoP)
  }

  /// The in-memory record when its access token is still usable: no actor hop, no I/O.
  nonisolated func usableRecordFromMemory() -> TokenRecord? {
    guard let record = cached.getUnlessSavePending(),
      record.hasUsableAccessToken(at: clock.now, leeway: expiryLeeway)
    else { return nil }
    return record
  }

  /// Whether `record` has a usable access token for `resource`: one more than the leeway before its
  /// expiry.
  nonisolated func isUsable(_ record: TokenRecord, for resource: ProtectedResource) -> Bool {
    record.hasUsableAccessToken(for: resource.parameter, at: clock.now, leeway: expiryLeeway)
  }

  /// The stored record when nothing is in memory yet and its access token is still usable: read on
  /// the caller's executor, with no actor hop, for a process's first token (an extension that starts
  /// only to read it, for example). The record is kept in memory unless the actor changed that
  /// meanwhile.
  ///
  /// Returns `nil` whenever the actor has to decide: a record in memory, no record, an unusable
  /// token, or a storage error (which ``validRecord(force:)`` then reports).
  nonisolated func usableRecordFromStorage() -> TokenRecord? {
    let snapshot = cached.snapshot()
    guard snapshot.record == nil, let record = try? records.read().record else { return nil }
    cached.fill(record, ifUnchangedSince: snapshot.generation)
    return record.hasUsableAccessToken(at: clock.now, leeway: expiryLeeway) ? record : nil
  }

  /// The stored record, read once per process and then kept in memory; `nil` when signed out (read
  /// again at each call, so that a sign-in in another process is seen).
  func record() throws -> TokenRecord? {
    // Kept in memory once read; an absent one is looked for again, since another process (the app,
    // for an extension) may sign the user in at any time.
    if let record = cached.get() { return record }
    let record = try records.read().record
    cached.set(record)
    return record
  }

  /// The record as storage holds it now, read past the memory cache (which it then updates): for
  /// decisions another process's write must be able to change, such as whether a step-up still has
  /// a session to strengthen.
  func storedRecord() throws -> TokenRecord? {
    let record = try records.read().record
    cached.set(record)
    return record
  }

  /// A record with a usable access token, refreshing when the token is expired (or `force`).
  ///
  /// - Throws: ``XidError/Code/signInRequired`` when there is no session, ``XidError/Code/sessionExpired``
  ///   when the provider ended it, and network or storage errors with the session kept.
  ///
  /// With `resource`, the record has a usable access token for that resource (``TokenRecord/resourceTokens``),
  /// issued from the session's refresh token when it has none yet. One refresh runs at a time, of
  /// whichever token: a caller that needs another token than the one being refreshed waits for that
  /// refresh (which may rotate the refresh token) and then refreshes its own.
  func validRecord(force: Bool, resource: ProtectedResource? = nil) async throws -> TokenRecord {
    while true {
      guard let current = try record() else {
        throw XidError(.signInRequired, "no user is signed in for this account; call signIn()")
      }
      if !force && current.hasUsableAccessToken(for: resource?.parameter, at: clock.now, leeway: expiryLeeway) {
        if unsaved != nil { saveUnsavedSoon(version: current.version) }
        return current
      }
      if let inFlight {
        if inFlight.resource == resource?.parameter { return try await inFlight.task.value }
        // Another token's refresh: its outcome (a rotated refresh token, a sign-out) is read afresh,
        // and this token, which it left as it was, is still refreshed when forced.
        _ = await inFlight.task.result
        continue
      }
      let canceller = AccountCanceller()
      let goal = RefreshGoal(force: force, resource: resource)
      let task = Task {
        try await self.refreshUnderLock(seenVersion: current.version, goal: goal, canceller: canceller)
      }
      canceller.set { task.cancel() }
      inFlight = (task, resource?.parameter)
      defer { inFlight = nil }
      return try await task.value
    }
  }

  /// Starts saving, under the lock, the tokens storage refused after a refresh (see ``unsaved``),
  /// unless an attempt is under way or one began less than a second ago; the caller does not wait
  /// for it. The refresh path saves them first (or drops them when the session was signed out or
  /// replaced meanwhile), and sends nothing while the access token is usable.
  private func saveUnsavedSoon(version: Int64) {
    guard inFlight == nil, clock.now >= nextSaveAttempt else { return }
    nextSaveAttempt = clock.now.addingTimeInterval(1)
    let canceller = AccountCanceller()
    let task = Task {
      try await self.refreshUnderLock(seenVersion: version, goal: RefreshGoal(force: false), canceller: canceller)
    }
    canceller.set { task.cancel() }
    inFlight = (task, nil)
    Task {
      if case .failure(let error) = await task.result {
        logger.log(
          .notice, category: "refresh",
          "the refreshed tokens this process keeps are still not saved (\((error as? XidError)?.code.rawValue ?? "an error")); trying again at the next use"
        )
      }
      self.finished(task)
    }
  }

  /// Forgets `task` as the refresh under way, unless another one took its place.
  private func finished(_ task: Task<TokenRecord, any Error>) {
    if inFlight?.task == task { inFlight = nil }
  }

  /// Saves a record from a sign-in, replacing this configuration's previous one (also one of a
  /// format this version cannot read). With a sealer, the refresh token is sealed first, unless it
  /// already is (the engine seals a sign-in's record itself, to revoke its tokens when sealing fails).
  ///
  /// Written at once, without waiting for the account's lock, so that a slow refresh never makes a
  /// sign-in fail: a refresh under way, here or in another process, compares the record right
  /// before each write and leaves the new one alone. With a lock file, the record is checked again
  /// once the lock is free (``checkUnderTheLock(_:_:)``): a refresh of the replaced session in
  /// another process, whose compare ran just before this write and whose write landed just after
  /// it, is written over again.
  ///
  /// - Returns: the record replaced, when it could be read: its session is over, and its refresh
  ///   token is for the caller to revoke. The newest of that session: tokens this process could not
  ///   save, or the refresh another process wrote just after this write.
  @discardableResult
  func store(_ record: TokenRecord) async throws -> TokenRecord? {
    var stored = try await sealedWithNewKey(record)
    let slot = try records.read(replacingUnreadable: true)
    stored.version = max(stored.version, (slot.record?.version ?? 0) + 1)
    try records.save(stored, at: slot.key)
    epoch &+= 1
    cached.set(stored)
    var replaced = slot.record
    // Tokens this process could not save are the newest of the replaced session.
    if let unsaved, let old = replaced, old.isSameSave(as: unsaved.base) { replaced = unsaved.record }
    unsaved = nil
    guard let base = slot.record else { return replaced }
    let written = epoch
    let late = await checkUnderTheLock("sign-in") { tenure -> TokenRecord? in
      // Whatever this process did since (a sign-out, another sign-in) is newer.
      guard epoch == written else { return nil }
      let current = try records.read()
      guard let found = current.record, found.signInID != stored.signInID, found.isSameSignIn(as: base) else {
        return nil
      }
      var again = stored
      again.version = max(stored.version, found.version + 1)
      try tenure.commit { try records.save(again, at: current.key) }
      epoch &+= 1
      cached.set(again)
      logger.log(
        .notice, category: "sign-in",
        "a refresh of the replaced session in another process wrote over the new session just after it was stored; stored it again"
      )
      return found
    }
    return late ?? replaced
  }

  /// Deletes this configuration's record (sign-out), also one of a format this version cannot read.
  ///
  /// Deleted at once, without waiting for the account's lock, so that a slow refresh never makes a
  /// sign-out fail: a refresh under way, here or in another process, compares the record right
  /// before each write and writes nothing once it is gone. With a lock file, the record is checked
  /// again once the lock is free (``checkUnderTheLock(_:_:)``): a refresh in another process whose
  /// compare ran just before the deletion and whose write landed just after it is deleted too.
  ///
  /// - Returns: the record deleted, when it could be read: the newest of the session (tokens this
  ///   process could not save, or the refresh another process wrote just after the deletion), whose
  ///   refresh token is the one to revoke.
  @discardableResult
  func remove() async throws -> TokenRecord? {
    let deleted = try records.deleteOwn()
    epoch &+= 1
    cached.set(nil)
    var removed = deleted
    // Tokens this process could not save are the newest of the session.
    if let unsaved, let deleted, deleted.isSameSave(as: unsaved.base) { removed = unsaved.record }
    unsaved = nil
    guard let base = deleted else { return removed }
    let written = epoch
    let late = await checkUnderTheLock("sign-out") { tenure -> TokenRecord? in
      // A sign-in of this process since then is newer.
      guard epoch == written else { return nil }
      let current = try records.read()
      guard let found = current.record, found.isSameSignIn(as: base) else { return nil }
      try tenure.commit { try records.delete(at: current.key) }
      logger.log(
        .notice, category: "sign-out",
        "a refresh in another process wrote the signed-out session again just after it was deleted; deleted it again")
      return found
    }
    return late ?? removed
  }

  /// Deletes this configuration's record as ``remove()`` does, when the stored one is still the
  /// sign-in `signInID` (read and deleted with no suspension in between); `nil` when another
  /// sign-in, or none, is there.
  func remove(ifSignInID signInID: String?) async throws -> TokenRecord? {
    guard let current = try records.read().record, current.signInID == signInID else { return nil }
    return try await remove()
  }

  /// Runs `check` once the account's lock is free, after a sign-in's or a sign-out's write made
  /// without it: a refresh in another process that compared the record just before that write may
  /// have written just after it, and it has released the lock once its writes are done. Waits at
  /// most the lock timeout.
  ///
  /// Without a lock file nothing tells when another process's refresh is done: the refreshes'
  /// compare is all there is, and `check` does not run. Its failures (the lock still taken after the
  /// timeout, storage errors) are logged, never thrown: the write was made. What remains is the
  /// window docs/reliability.md describes ("Sign-out and sign-in during a refresh").
  ///
  /// - Returns: what `check` returns: the record of the old session it found and dealt with.
  private func checkUnderTheLock(
    _ action: String, _ check: (AccountTenure) throws -> TokenRecord?
  ) async -> TokenRecord? {
    guard lock.file != nil else { return nil }
    do {
      return try await lock.run(action + " check", isolation: self) { tenure in try check(tenure) }
    } catch {
      logger.log(
        .notice, category: action,
        "done; whether a refresh in another process wrote the old session again just after it could not be checked (\((error as? XidError)?.code.rawValue ?? "an error")): see docs/reliability.md, \"Sign-out and sign-in during a refresh\""
      )
      return nil
    }
  }
}

extension TokenRecord {
  /// Whether this record is `other` or a later save of the same sign-in (a refresh of it). Records
  /// of earlier versions of Xid have no sign-in ID: then any one without, of `other`'s version or
  /// later, counts.
  func isSameSignIn(as other: TokenRecord) -> Bool {
    signInID == other.signInID && (signInID != nil || version >= other.version)
  }
}

extension XidError {
  /// Whether this refresh failure means the grant is gone (the provider refused the refresh token),
  /// as opposed to a failure worth retrying (network, server error, locked storage).
  var endsSession: Bool { code == .refreshRefused }
}
