import Foundation

/// What ``SessionEngine/checkAccountLock(holding:)`` found: whether this process can take the
/// account's lock, the one a refresh, a sign-in's save and a sign-out take, and how long it waited.
///
/// It is for diagnostics, such as the example app's device self-check: an App Intent or a widget
/// takes the lock in its own process, to show that the App Group container holds the lock file and
/// that another process's holding of it makes the extension wait.
public struct AccountLockCheck: Sendable, Hashable {
  /// Whether the lock is a file that every process sharing the storage takes
  /// (``TokenStorageAdapter/refreshLockDirectory``). `false`: the storage is private to this
  /// process, and the lock excludes nothing.
  public var isShared: Bool
  /// How long taking the lock took: the wait while another holder (another process's refresh, or
  /// its own check) had it, and the start of the background activity the lock is held in.
  public var waited: Duration

  /// Creates a check's outcome.
  public init(isShared: Bool, waited: Duration) {
    self.isShared = isShared
    self.waited = waited
  }
}

extension AccountSession {
  /// Takes the account's lock as a refresh does (inside its background activity, waiting at most the
  /// lock's timeout), holds it for `duration` on the configuration's clock, and releases it. Reads
  /// and writes nothing.
  ///
  /// - Throws: ``XidError/Code/lockTimeout`` when another holder kept it for the whole timeout,
  ///   ``XidError/Code/storageFailure`` when the lock file cannot be made, and
  ///   ``XidError/Code/cancelled`` when the background time ran out.
  func checkLock(holding duration: Duration) async throws -> AccountLockCheck {
    let start = clock.monotonicNow
    return try await lock.run("lock check", isolation: self) { tenure in
      let check = AccountLockCheck(isShared: lock.file != nil, waited: clock.monotonicNow - start)
      if duration > .zero { try await clock.sleep(for: duration) }
      try tenure.check()
      return check
    }
  }
}
