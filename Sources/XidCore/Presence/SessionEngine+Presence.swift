extension SessionEngine {
  // MARK: - Session lock

  /// The session lock's state now; ``SessionLockState/unlocked`` when no lock is configured.
  public nonisolated var lockState: SessionLockState { presence.lock?.current ?? .unlocked }

  /// The session lock's state now and at every change, for a lock screen in SwiftUI:
  ///
  /// ```swift
  /// .task { for await state in engine.lockStates() { isLocked = state != .unlocked } }
  /// ```
  ///
  /// The sequence ends when the engine goes away (with `Xid`, when it is configured again). Without
  /// a lock it yields ``SessionLockState/unlocked`` once and ends.
  public nonisolated func lockStates() -> AsyncStream<SessionLockState> {
    guard let lock = presence.lock else {
      return AsyncStream { continuation in
        continuation.yield(.unlocked)
        continuation.finish()
      }
    }
    return lock.states()
  }

  /// Opens the session lock: checks that the device can ask the user (`LARight.checkCanAuthorize()`),
  /// then asks them, showing `localizedReason`. Returns at once when the lock is open or none is
  /// configured; concurrent calls share one prompt. Call it from the app in the foreground.
  ///
  /// - Throws: why the device cannot ask (``XidError/Code/biometryNotEnrolled``,
  ///   ``XidError/Code/passcodeNotSet``, ``XidError/Code/biometryUnavailable``,
  ///   ``XidError/Code/biometryLockout``), or how the prompt ended
  ///   (``XidError/Code/authenticationCancelled``, ``XidError/Code/authenticationFailed``, …). The lock
  ///   stays closed; the user stays signed in.
  public nonisolated func unlock(localizedReason: String) async throws {
    guard let lock = presence.lock else { return }
    guard !localizedReason.isEmpty else {
      throw XidError(.invalidConfiguration, "unlock(localizedReason:) needs a reason to show the user")
    }
    try await lock.unlock(localizedReason: localizedReason)
  }

  /// Closes the session lock and deauthorizes (`LARight.deauthorize()`), so that the next unlock asks
  /// the user; a reused confirmation for the sealed refresh token ends too. Sign-out does this as well.
  public nonisolated func lock() async {
    await presence.lockNow()
  }

  /// Tells Xid where the app is, from SwiftUI's `scenePhase` (or the app delegate's notifications):
  ///
  /// ```swift
  /// .onChange(of: scenePhase) { _, phase in
  ///   engine.setScenePhase(phase == .active ? .active : phase == .inactive ? .inactive : .background)
  /// }
  /// ```
  ///
  /// After ``PresenceOptions/relockAfterBackground`` in the background the lock closes; in the
  /// background no prompt is attempted for the sealed refresh token, and a reused confirmation ends.
  public nonisolated func setScenePhase(_ phase: XidScenePhase) {
    presence.setScenePhaseAndForget(phase)
  }

  /// Throws ``XidError/Code/sessionLocked`` while the lock is closed and someone is signed in
  /// (``XidError/Code/signInRequired`` when nobody is, which says more).
  nonisolated func requireOpenLock(for operation: String) async throws {
    guard let lock = presence.lock, !lock.isOpen else { return }
    guard try await account.record() != nil else {
      throw XidError(.signInRequired, "no user is signed in for this account; call signIn()")
    }
    try lock.requireOpen(for: operation)
  }
}

extension XidSession {
  /// The session as a closed lock shows it: who the provider and account are, nothing about the user.
  init(lockedSessionOf record: TokenRecord) throws {
    subject = ""
    claims = try JWTClaims(raw: [:])
    scopes = []
    accessTokenExpiresAt = nil
    issuer = record.issuer
    account = record.account
    dpopBinding = nil
    isLocked = true
  }
}
