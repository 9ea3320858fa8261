import Foundation

/// The confirmations of the user's presence for one account's keys that need the user: the sealed
/// refresh token's key, and in the stricter mode (``PresenceOptions/protectsDPoPKey``) the DPoP key.
///
/// - One prompt per call: a context evaluated during a call (``PresenceScope``) is used for every key
///   the call needs, as an `LAContext` passed with `kSecUseAuthenticationContext` is.
/// - With ``PresenceOptions/authenticationReuse`` the evaluated context is kept for that long, then
///   invalidated; otherwise it is invalidated when the call ends.
/// - While the app is in the background no prompt is attempted: the call fails with
///   ``XidError/Code/userPresenceRequired``.
actor PresenceConfirmations {
  /// A key that needs the user.
  enum Key: Sendable {
    /// The key named `tag` that seals the refresh token.
    case sealing(tag: String)
    /// A signing key (the DPoP key of the stricter mode) in its stored form.
    case signing(storedForm: String)
  }

  /// An evaluated context, and who ends it.
  struct Confirmation: Sendable {
    let context: any PresenceContext
    /// Whether the caller invalidates it after its use (no call holds it and no reuse keeps it).
    let endsAfterUse: Bool
    /// Whether the user was asked for it just now (rather than a call or the reuse time holding it).
    let isNew: Bool
  }

  /// The store that makes the contexts and the sealing key's confirmations.
  private let keyStore: any PresenceSealingKeyStore
  /// The store of the signing key's confirmations: the same store, as a signing store.
  private let signingKeys: any PresenceSigningKeyStore
  private let reuse: Duration
  private let reason: String
  private let clock: any XidClock
  private let interactionAllowed: @Sendable () -> Bool
  private var reusable: (context: any PresenceContext, since: Date)?

  init(
    keyStore: any PresenceSealingKeyStore, signingKeys: any PresenceSigningKeyStore, reuse: Duration, reason: String,
    clock: any XidClock, interactionAllowed: @escaping @Sendable () -> Bool
  ) {
    self.keyStore = keyStore
    self.signingKeys = signingKeys
    self.reuse = reuse
    self.reason = reason
    self.clock = clock
    self.interactionAllowed = interactionAllowed
  }

  deinit {
    // A reconfigured Xid drops its confirmations: a context it kept must not outlive it.
    reusable?.context.invalidate()
  }

  /// An evaluated context for `key`: the call's, a recent one within the reuse time, or a new one,
  /// for which the user is asked (once).
  ///
  /// - Parameter purpose: what needs the user, for the error in the background ("refreshing").
  /// - Throws: ``XidError/Code/userPresenceRequired`` in the background, and the key store's errors
  ///   (``XidError/Code/authenticationCancelled``, ``XidError/Code/presenceKeyInvalidated``, …).
  func confirmation(for key: Key, purpose: String) async throws -> Confirmation {
    let scope = PresenceScope.current
    if let context = scope?.context { return Confirmation(context: context, endsAfterUse: false, isNew: false) }
    if let context = recentContext {
      scope?.hold(context, endsWithCall: false)
      return Confirmation(context: context, endsAfterUse: false, isNew: false)
    }
    forget()
    guard interactionAllowed() else {
      throw XidError(
        .userPresenceRequired,
        "\(purpose) needs the user to confirm it's them, and the app is in the background; retry in the foreground (the session is kept)"
      )
    }
    let context = keyStore.makeContext()
    do {
      switch key {
      case .sealing(let tag): try await keyStore.authenticate(context, forKey: tag, localizedReason: reason)
      case .signing(let storedForm):
        try await signingKeys.authenticate(context, forSigningKey: storedForm, localizedReason: reason)
      }
    } catch {
      context.invalidate()
      throw error
    }
    if reuse > .zero {
      reusable = (context, clock.now)
      scheduleExpiry(of: context)
    }
    scope?.hold(context, endsWithCall: reuse == .zero)
    return Confirmation(context: context, endsAfterUse: scope == nil && reuse == .zero, isNew: true)
  }

  /// A context that allows use without a prompt: the call's or a recent one; `nil` otherwise.
  func contextWithoutAsking() -> (any PresenceContext)? {
    PresenceScope.current?.context ?? recentContext
  }

  /// The context kept for reuse, while the reuse time lasts.
  private var recentContext: (any PresenceContext)? {
    guard let reusable, clock.now.timeIntervalSince(reusable.since) < reuse.timeInterval else { return nil }
    return reusable.context
  }

  /// Whether `error`, from a use of a context that was evaluated before, says that the system ended
  /// it (`authenticationInterrupted`, `userPresenceRequired`): asking once more is then right.
  static func meansStaleContext(_ error: XidError) -> Bool {
    error.code == .authenticationInterrupted || error.code == .userPresenceRequired
  }

  /// Drops `context`, which went stale (the system invalidated it), so that the next use asks again.
  func drop(_ context: any PresenceContext) {
    PresenceScope.current?.drop(context)
    if reusable?.context === context { forget() }
  }

  /// Ends any reused confirmation, so that the next use asks the user: at lock, in the background,
  /// when a key is replaced.
  func forget() {
    reusable?.context.invalidate()
    reusable = nil
  }

  /// Invalidates `context` once the reuse time has passed in real time, even if no call comes.
  private func scheduleExpiry(of context: any PresenceContext) {
    let reuse = reuse
    Task { [weak self] in
      try? await Task.sleep(for: reuse)
      await self?.expire(context)
    }
  }

  private func expire(_ context: any PresenceContext) {
    guard let reusable, reusable.context === context else { return }
    forget()
  }
}
