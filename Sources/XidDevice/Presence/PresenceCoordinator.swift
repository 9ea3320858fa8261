import Foundation

/// The presence options of one engine, put together: the session lock, the refresh token's vault,
/// the confirmations of presence that the vault and the stricter mode's DPoP key share, and where
/// the app is. The engine asks it before handing anything out or signing a proof, and tells it about
/// sign-ins and sign-outs.
package final class PresenceCoordinator: Sendable {
  /// The session lock, when one is configured.
  package let lock: SessionLock?
  /// The vault of the refresh token, when its protection is configured.
  package let vault: RefreshTokenVault?
  /// The confirmations of presence for this account's keys, with the vault.
  let confirmations: PresenceConfirmations?
  /// The store of signing keys that need the user (the stricter mode's DPoP keys), with the vault: the
  /// configured key store, or when it is not a ``PresenceSigningKeyStore`` a ``NoSigningKeyStore``.
  package let keyStore: (any PresenceSigningKeyStore)?
  /// The requirement of new DPoP keys in the stricter mode (``PresenceOptions/protectsDPoPKey``).
  package let dpopKeyProtection: PresenceRequirement?
  private let phase = LockedValue(XidScenePhase.active)

  /// - Throws: ``XidError/Code/invalidConfiguration`` when an option lacks what it needs.
  package init(options: PresenceOptions, accountKey: String, clock: any XidClock) throws {
    try options.validate()
    if options.sessionLock != nil {
      guard let authorizer = options.authorizer else {
        throw XidError(
          .invalidConfiguration,
          "PresenceOptions.sessionLock needs an authorizer: the Xid module uses LocalAuthentication on Apple platforms; elsewhere set PresenceOptions.authorizer (XidTesting's FakePresenceAuthorizer in tests)"
        )
      }
      lock = SessionLock(authorizer: authorizer, relockAfter: options.relockAfterBackground, clock: clock)
    } else {
      lock = nil
    }
    if let requirement = options.refreshTokenProtection {
      guard let keyStore = options.keyStore else {
        throw XidError(
          .invalidConfiguration,
          "PresenceOptions.refreshTokenProtection needs a key store: the Xid module uses the Secure Enclave on Apple platforms and SoftwarePresenceKeyStore (with PresenceOptions.authorizer) elsewhere; or set PresenceOptions.keyStore"
        )
      }
      let phase = phase
      let signingKeys = keyStore as? any PresenceSigningKeyStore ?? NoSigningKeyStore(for: keyStore)
      let confirmations = PresenceConfirmations(
        keyStore: keyStore, signingKeys: signingKeys, reuse: options.authenticationReuse,
        reason: options.refreshReason, clock: clock, interactionAllowed: { phase.get() != .background })
      vault = RefreshTokenVault(
        keyStore: keyStore, requirement: requirement, confirmations: confirmations, tag: "xid.presence." + accountKey)
      self.confirmations = confirmations
      self.keyStore = signingKeys
      dpopKeyProtection = options.protectsDPoPKey ? requirement : nil
    } else {
      vault = nil
      confirmations = nil
      keyStore = nil
      dpopKeyProtection = nil
    }
  }

  // MARK: - The stricter mode's DPoP key

  /// Makes `key` ready to sign in the call under way (``PresenceScope``): a key that needs the user
  /// gets the call's confirmation, which asks them unless the call or the reuse time already has
  /// one. A key that signs without the user is refused in the stricter mode. The prepared key knows
  /// which it is, so a request with a plain key makes no cast.
  ///
  /// - Throws: ``XidError/Code/dpopKeyUnavailable`` for an unprotected key in the stricter mode,
  ///   ``XidError/Code/userPresenceRequired`` in the background or in a process that cannot ask,
  ///   ``XidError/Code/presenceKeyInvalidated`` when the key no longer accepts the user, and how the
  ///   prompt ended.
  package func prepareToSign(with key: PreparedDPoPKey?) async throws {
    guard let key else { return }
    guard key.needsUser, let protected = key.key as? PresenceDPoPKey else {
      guard dpopKeyProtection == nil else {
        throw XidError(
          .dpopKeyUnavailable,
          "the session's DPoP key signs without the user: it was made before PresenceOptions.protectsDPoPKey was turned on, and is not used while it is on; sign the user in again (the session is kept until then)"
        )
      }
      return
    }
    guard let confirmations else {
      throw XidError(
        .userPresenceRequired,
        "the session's DPoP key needs the user (PresenceOptions.protectsDPoPKey), and this process has no PresenceOptions.refreshTokenProtection to ask them (an extension or a widget?); make the call from the app in the foreground"
      )
    }
    assert(PresenceScope.current != nil, "a proof with a protected DPoP key is prepared outside a call")
    do {
      let heldByTheCall = PresenceScope.current?.context != nil
      var confirmation = try await confirmations.confirmation(
        for: .signing(storedForm: protected.storedForm), purpose: "this call")
      if !heldByTheCall && !confirmation.isNew && !signs(protected, with: confirmation.context) {
        // The reused confirmation went stale (the system ends an evaluated LAContext, for example
        // when the device locks): drop it and ask once more, rather than fail every call until the
        // reuse time is over.
        await confirmations.drop(confirmation.context)
        confirmation = try await confirmations.confirmation(
          for: .signing(storedForm: protected.storedForm), purpose: "this call")
      }
      // Outside a call nothing would hold the context: the proof then fails with userPresenceRequired.
      if confirmation.endsAfterUse { confirmation.context.invalidate() }
    } catch let error as XidError where error.code == .presenceKeyInvalidated {
      throw XidError(
        .presenceKeyInvalidated,
        "the session's DPoP key no longer accepts the user (\(error.reason)): the enrolled biometry or the passcode may have changed. Sign the user in again (signOut() cleans up; the session is kept until then)"
      )
    }
  }

  /// Whether `key` still signs with a confirmation kept from an earlier call: one signature of a
  /// fixed message, made once per call that reuses a confirmation. Only a context that went stale
  /// (`authenticationInterrupted`, `userPresenceRequired`) says no; any other failure is left to the
  /// proof, which reports it.
  private func signs(_ key: PresenceDPoPKey, with context: any PresenceContext) -> Bool {
    guard let keyStore else { return true }
    do {
      _ = try keyStore.sign(Array("xid.presence.probe".utf8), withSigningKey: key.storedForm, context: context)
      return true
    } catch let error as XidError {
      return !PresenceConfirmations.meansStaleContext(error)
    } catch {
      return true
    }
  }

  /// Whether tokens may be handed out: no lock, or an open one. Cheap enough for the fast path.
  package var lockIsOpen: Bool { lock?.isOpen ?? true }

  /// Where the app is.
  var scenePhase: XidScenePhase { phase.get() }

  /// Records where the app is; in the background the lock may close and a reused confirmation of
  /// presence ends (it is reused only while the app stays in the foreground).
  package func setScenePhaseAndForget(_ next: XidScenePhase) {
    phase.set(next)
    lock?.setScenePhase(next)
    if next == .background, let confirmations { Task { await confirmations.forget() } }
  }

  package func lockNow() async {
    await lock?.lock()
    await confirmations?.forget()
  }

  /// The user signed in, in this process: they are present.
  package func didSignIn() { lock?.openAfterSignIn() }

  /// The user signed out: close the lock and delete the key of the sealed refresh token.
  package func didSignOut(logger: any XidLogger) async {
    await lockNow()
    do {
      try await vault?.destroyKey()
    } catch let error as XidError {
      logger.log(.notice, category: "sign-out", "could not delete the presence key: \(error.code)")
    } catch {
      logger.log(.notice, category: "sign-out", "could not delete the presence key")
    }
  }
}
