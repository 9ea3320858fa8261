extension Xid {
  /// Takes the account's lock, the one a refresh, a sign-in's save and a sign-out take, holds it for
  /// `duration`, and releases it; reads and writes no tokens and never asks the user. See
  /// ``SessionEngine/checkAccountLock(holding:)``.
  ///
  /// For diagnostics, such as an extension showing that it shares the lock with the app through the
  /// App Group container (``AccountLockCheck/isShared``).
  ///
  /// - Throws: ``XidError/Code/lockTimeout`` when another process held it for the whole
  ///   ``SessionPolicy/refreshLockTimeout``, ``XidError/Code/storageFailure`` when the lock file
  ///   cannot be made.
  public func checkAccountLock(holding duration: Duration = .zero) async throws -> AccountLockCheck {
    try await engine().checkAccountLock(holding: duration)
  }
}
