extension SessionEngine {
  /// Takes the account's lock, the one a refresh, a sign-in's save and a sign-out take, as they take
  /// it (inside a background activity, waiting at most ``SessionPolicy/refreshLockTimeout``), holds it
  /// for `duration`, and releases it. It reads and writes no tokens, and never asks the user.
  ///
  /// For diagnostics: an extension that calls it shows that it can take the lock the app shares with
  /// it through the App Group container; while one process holds it for a while, another one's check
  /// waits (``AccountLockCheck/waited``) or throws ``XidError/Code/lockTimeout``. Holding it also
  /// makes the other processes' refreshes wait, so hold it only briefly.
  ///
  /// - Throws: ``XidError/Code/lockTimeout``, ``XidError/Code/storageFailure`` (the lock file cannot
  ///   be made), ``XidError/Code/cancelled`` (the background time ran out), and `CancellationError` when the
  ///   task is cancelled while it holds the lock (which it then releases).
  public func checkAccountLock(holding duration: Duration = .zero) async throws -> AccountLockCheck {
    try await account.checkLock(holding: duration)
  }
}
