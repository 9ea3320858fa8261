import Foundation

/// The presence options of one engine, put together: the session lock, the refresh token's vault,
/// and where the app is. The engine asks it before handing anything out and tells it about sign-ins
/// and sign-outs.
final class PresenceCoordinator: Sendable {
  /// The session lock, when one is configured.
  let lock: SessionLock?
  /// The vault of the refresh token, when its protection is configured.
  let vault: RefreshTokenVault?
  private let phase = LockedValue(XidScenePhase.active)

  /// - Throws: ``XidError/Code/invalidConfiguration`` when an option lacks what it needs.
  init(options: PresenceOptions, accountKey: String, clock: any XidClock) throws {
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
      vault = RefreshTokenVault(
        keyStore: keyStore, requirement: requirement, reuse: options.authenticationReuse,
        reason: options.refreshReason, clock: clock, tag: "xid.presence." + accountKey,
        interactionAllowed: { phase.get() != .background })
    } else {
      vault = nil
    }
  }

  /// Whether tokens may be handed out: no lock, or an open one. Cheap enough for the fast path.
  var lockIsOpen: Bool { lock?.isOpen ?? true }

  /// Where the app is.
  var scenePhase: XidScenePhase { phase.get() }

  /// Records where the app is; in the background the lock may close and a reused confirmation of
  /// presence ends (it is reused only while the app stays in the foreground).
  func setScenePhaseAndForget(_ next: XidScenePhase) {
    phase.set(next)
    lock?.setScenePhase(next)
    if next == .background, let vault { Task { await vault.forgetAuthentication() } }
  }

  /// The refresh token to revoke at sign-out: the stored one, or the sealed one when a reused
  /// confirmation can open it without asking. A sealed token that cannot be opened is not revoked;
  /// deleting its key makes it unusable anyway.
  func revocableRefreshToken(of record: TokenRecord?) async -> String? {
    guard let record else { return nil }
    if let refreshToken = record.refreshToken { return refreshToken }
    guard let sealed = record.sealedRefreshToken, let vault else { return nil }
    return await vault.openWithoutAsking(sealed)
  }

  func lockNow() async {
    await lock?.lock()
    await vault?.forgetAuthentication()
  }

  /// The user signed in, in this process: they are present.
  func didSignIn() { lock?.openAfterSignIn() }

  /// The user signed out: close the lock and delete the key of the sealed refresh token.
  func didSignOut(logger: any XidLogger) async {
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
