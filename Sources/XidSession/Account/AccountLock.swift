import Foundation

/// The account's lock: the lock file shared by every process that uses the storage, held only inside a
/// ``BackgroundActivity``, so that the system never suspends a process while it holds it.
///
/// Refreshes, the checks that follow a sign-in's save and a sign-out (which write without it, so
/// that a slow refresh never makes them fail), and changes to the pending sign-ins run under it.
/// When the activity's time runs out, the lock is released before the expiry handler returns, the
/// work is cancelled, and its writes through ``AccountTenure/commit(_:)`` are refused from then on:
/// nothing of that work is written without the lock.
///
/// A `flock(2)` lock is per open file description, so two holders in one process exclude each other
/// as two processes do; never take it while holding it.
struct AccountLock: Sendable {
  /// The lock file, or `nil` when the storage is private to this process.
  let file: FileLock?
  /// How long to wait for another holder.
  let timeout: Duration
  /// The time asked of the system while the lock is held; `nil` for none.
  let activity: (any BackgroundActivity)?
  /// The configuration's clock, on which the wait for the lock also ends after ``timeout``; `nil`
  /// for real time alone.
  var clock: (any XidClock)? = nil

  /// Runs `body` holding the lock, inside an activity called `name`, on the caller's actor
  /// (`isolation`; the iOS 17 SDK has no `#isolation` to default it).
  ///
  /// - Parameters:
  ///   - name: what the work is, for the system and for the error when its time runs out.
  ///   - canceller: cancels the work when the time runs out.
  /// - Throws: ``XidError/Code/cancelled`` when the time ran out (nothing was written after that),
  ///   ``XidError/Code/lockTimeout``, storage errors, and what `body` throws.
  func run<T>(
    _ name: String, canceller: AccountCanceller? = nil, isolation: isolated any Actor,
    _ body: (AccountTenure) async throws -> T
  ) async throws -> T {
    let tenure = AccountTenure(name: name, canceller: canceller)
    defer { tenure.finish() }
    do {
      if let activity { tenure.attach(await activity.begin(name: "Xid " + name) { tenure.expire() }) }
      try tenure.check()
      try tenure.attach(try await file?.acquire(timeout: timeout, clock: clock))
      return try await body(tenure)
    } catch {
      // Whatever the abandoned work threw (a cancelled request, a cancelled wait), say why.
      if tenure.hasExpired { throw tenure.expiredError }
      throw error
    }
  }
}

/// One holding of the ``AccountLock``: what the work checks and writes through.
final class AccountTenure: @unchecked Sendable {
  // Everything below is only touched while `lock` is held. No code that waits runs under it; a
  // commit's storage write does, so that expiry and a write never interleave.
  private let lock = NSLock()
  private var holder: FileLock.Holder?
  private var lease: BackgroundActivityLease?
  private var expired = false
  private var finished = false
  private let canceller: AccountCanceller?
  private let name: String

  init(name: String, canceller: AccountCanceller?) {
    self.name = name
    self.canceller = canceller
  }

  /// Whether the time ran out.
  var hasExpired: Bool { lock.withLock { expired } }

  /// The error of work whose time ran out.
  var expiredError: XidError {
    XidError(
      .cancelled,
      "the system ended the background time of the \(name) before it finished; the lock was released and nothing was saved. The user is still signed in: try again when the app is active"
    )
  }

  /// Throws ``expiredError`` once the time has run out.
  func check() throws {
    if hasExpired { throw expiredError }
  }

  /// Runs `write` (a storage write) only while the lock is still held: never after the time ran out.
  func commit<R>(_ write: () throws -> R) throws -> R {
    try lock.withLock {
      guard !expired else { throw expiredError }
      return try write()
    }
  }

  func attach(_ lease: BackgroundActivityLease) {
    let late = lock.withLock { () -> Bool in
      guard !expired, !finished else { return true }
      self.lease = lease
      return false
    }
    if late { lease.end() }
  }

  func attach(_ holder: FileLock.Holder?) throws {
    let refused = lock.withLock { () -> Bool in
      guard !expired else { return true }
      self.holder = holder
      return false
    }
    if refused {
      holder?.release()
      throw expiredError
    }
  }

  /// The time ran out: release the lock now, cancel the work, end the activity.
  func expire() {
    let lease = lock.withLock { () -> BackgroundActivityLease?? in
      guard !expired, !finished else { return nil }
      expired = true
      holder?.release()
      holder = nil
      defer { self.lease = nil }
      return .some(self.lease)
    }
    guard let lease else { return }
    canceller?.cancel()
    lease?.end()
  }

  /// The work is over: release the lock and end the activity.
  func finish() {
    let lease = lock.withLock { () -> BackgroundActivityLease? in
      finished = true
      holder?.release()
      holder = nil
      defer { self.lease = nil }
      return self.lease
    }
    lease?.end()
  }
}

/// Cancels a piece of work that may not have started yet: the task is set once it exists.
final class AccountCanceller: Sendable {
  private let state = LockedValue<(cancel: (@Sendable () -> Void)?, cancelled: Bool)>((nil, false))

  /// Sets what cancelling does; runs it at once when cancelled already.
  func set(_ cancel: @escaping @Sendable () -> Void) {
    let now = state.update { state -> Bool in
      state.cancel = cancel
      return state.cancelled
    }
    if now { cancel() }
  }

  func cancel() {
    let cancel = state.update { state -> (@Sendable () -> Void)? in
      state.cancelled = true
      return state.cancel
    }
    cancel?()
  }
}
