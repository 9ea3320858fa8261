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

  // MARK: - Sign-in

  /// Before a sign-in sends anything: the device must be able to verify the user by the refresh
  /// token's protection, or the tokens it issues could not be kept. In the stricter mode
  /// (``PresenceOptions/protectsDPoPKey``) the sign-in's DPoP key is made with the same requirement,
  /// so the one check covers it too.
  ///
  /// - Throws: ``XidError/Code/biometryNotEnrolled`` (``PresenceRequirement/biometryCurrentSet`` with
  ///   no face or finger enrolled), ``XidError/Code/passcodeNotSet``, ``XidError/Code/biometryUnavailable``.
  func checkPresenceBeforeSignIn() async throws {
    try await presence.vault?.checkCanSeal(includingDPoPKey: presence.dpopKeyProtection != nil)
  }

  /// A sign-in's record as it is stored (its refresh token sealed, with a new key beside the stored
  /// session's, which keeps its own until this record replaces it). When sealing fails, nothing is
  /// stored: the issued tokens are revoked (best effort; not in the stricter mode, whose DPoP key is
  /// deleted instead) and the error says why the device cannot protect them, when it can tell, and
  /// what became of the tokens.
  func sealedForSignIn(_ record: TokenRecord) async throws -> TokenRecord {
    do {
      return try await account.sealedWithNewKey(record)
    } catch {
      let outcome = await revokeUnstored(record)
      let cause: XidError
      do {
        try await checkPresenceBeforeSignIn()
        cause = error as? XidError ?? XidError(.storageFailure, "the refresh token could not be sealed")
      } catch let typed as XidError {
        cause = typed
      }
      throw Self.unstored(cause, tokens: outcome)
    }
  }

  /// After a sign-in's record `sealed` was stored: the account's other presence key (the replaced
  /// session's, or one a sign-in interrupted before this point left) is deleted. A failure is logged:
  /// the key then stays until the next sign-in or sign-out, and opens nothing stored.
  func keepOnlyThePresenceKey(of sealed: TokenRecord) async {
    guard let vault = presence.vault else { return }
    do {
      try await vault.deleteKeys(except: sealed.sealedRefreshToken)
    } catch {
      configuration.parts.logger.log(
        .notice, category: "sign-in",
        "could not delete the presence key of the session the sign-in replaced: \((error as? XidError)?.code.rawValue ?? "an error")"
      )
    }
  }

  /// A sign-in's record `sealed` (of the tokens in `record`) could not be stored, for `cause`:
  /// the stored session stays as it was, with its key. The sign-in's presence key is deleted, its
  /// tokens revoked (as when sealing fails), and the error says so.
  func storeFailed(_ record: TokenRecord, sealed: TokenRecord, cause: any Error) async -> XidError {
    if let vault = presence.vault, let text = sealed.sealedRefreshToken {
      do {
        try await vault.deleteKey(of: text)
      } catch {
        configuration.parts.logger.log(
          .notice, category: "sign-in",
          "could not delete the presence key of a sign-in that was not stored: \((error as? XidError)?.code.rawValue ?? "an error")"
        )
      }
    }
    let outcome = await revokeUnstored(record)
    let typed = cause as? XidError ?? XidError(.storageFailure, "the session could not be stored")
    return Self.unstored(typed, tokens: outcome)
  }

  /// `cause` of a sign-in that stored nothing, saying what became of its tokens.
  private static func unstored(_ cause: XidError, tokens outcome: RevocationOutcome) -> XidError {
    XidError(
      cause.code, cause.reason + "; nothing was stored, and " + outcome.clause(about: "the sign-in's tokens"),
      httpStatus: cause.httpStatus, oauthError: cause.oauthError)
  }

  /// Revokes the refresh token, then the access token, of a sign-in that was not stored. Their DPoP
  /// key is deleted afterwards: nothing will use it.
  ///
  /// - Returns: what became of the tokens; ``RevocationOutcome/NotRevocableReason/dpopKeyNeedsTheUser``
  ///   in the stricter mode, where revocation is not attempted.
  private func revokeUnstored(_ record: TokenRecord) async -> RevocationOutcome {
    let key = try? signer.key(for: record)
    defer { if let thumbprint = record.dpopKeyThumbprint { dpopKeys.delete(thumbprint: thumbprint) } }
    // As at sign-out, nothing here asks the user, and the proof of a key that needs them
    // (the stricter mode) might: such tokens are not revoked. They are bound to that key, which is
    // deleted, so no one can use them.
    if key?.key is PresenceDPoPKey {
      configuration.parts.logger.log(
        .info, category: "sign-in", "the tokens that could not be stored are not revoked: their DPoP key needs the user"
      )
      return .notRevocable(.dpopKeyNeedsTheUser)
    }
    let tokens: [(String?, TokenTypeHint)] = [(record.refreshToken, .refreshToken), (record.accessToken, .accessToken)]
    let outcome = await client.revokeReportingOutcome(
      tokens.compactMap { token, hint in token.map { ($0, hint) } }, dpopKey: key?.key)
    switch outcome {
    case .revoked: break
    case .notRevocable(let reason):
      configuration.parts.logger.log(
        .notice, category: "sign-in", "the tokens that could not be stored were not revoked: \(reason)")
    case .failed(let error):
      configuration.parts.logger.log(
        .notice, category: "sign-in", "the provider did not revoke the tokens that could not be stored: \(error.code)")
    }
    return outcome
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
    familyAccountID = record.familyKey
    signedInFromFamily = record.fromFamilyExchange
    authorizationDetails = nil
    resourceGrants = [:]
    isLocked = true
  }
}
