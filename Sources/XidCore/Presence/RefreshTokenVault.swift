import Foundation

/// Seals an account's refresh token with a key whose private use needs the user, and opens it for a
/// refresh: ``PresenceOptions/refreshTokenProtection``.
///
/// - Sealing uses the public key only, so a sign-in or a refresh never asks twice.
/// - Opening evaluates one context (one prompt) and opens the token with it. With
///   ``PresenceOptions/authenticationReuse`` the evaluated context is kept for that long, then
///   invalidated; otherwise it is invalidated at once.
/// - While the app is in the background no prompt is attempted: the refresh fails with
///   ``XidError/Code/userPresenceRequired`` and the access token stays in use until it expires.
/// - A missing or replaced key means the token is lost (``XidError/Code/presenceKeyInvalidated``):
///   the record is left alone until the user signs in again or signs out.
///
/// A sealed token is the text `1.<key id>.<sealed bytes>`, the key id being the first 8 bytes of the
/// SHA-256 of the public key, all base64url.
actor RefreshTokenVault {
  private let keyStore: any PresenceKeyStore
  private let requirement: PresenceRequirement
  private let reuse: Duration
  private let reason: String
  private let clock: any XidClock
  /// The key's name: one key per account.
  let tag: String
  private let interactionAllowed: @Sendable () -> Bool
  private var reusable: (context: any PresenceContext, since: Date)?

  init(
    keyStore: any PresenceKeyStore, requirement: PresenceRequirement, reuse: Duration, reason: String,
    clock: any XidClock, tag: String, interactionAllowed: @escaping @Sendable () -> Bool
  ) {
    self.keyStore = keyStore
    self.requirement = requirement
    self.reuse = reuse
    self.reason = reason
    self.clock = clock
    self.tag = tag
    self.interactionAllowed = interactionAllowed
  }

  deinit {
    // A reconfigured Xid drops its vault: a confirmation it kept must not outlive it.
    reusable?.context.invalidate()
  }

  /// Seals `refreshToken` with the account's key; `newKey` makes a fresh key first (at sign-in), so
  /// that a key invalidated since the last session, or made with another requirement, is not reused.
  func seal(_ refreshToken: String, newKey: Bool) throws -> String {
    var publicKey = newKey ? nil : try keyStore.publicKey(tag: tag)
    if publicKey == nil {
      forgetAuthentication()
      publicKey = try keyStore.createKey(tag: tag, requirement: requirement)
    }
    let sealed = try keyStore.encrypt(Array(refreshToken.utf8), to: publicKey!)
    return "1." + Self.keyID(publicKey!) + "." + Base64URL.encode(sealed)
  }

  /// Opens a sealed refresh token, asking the user unless a recent confirmation may be reused.
  func open(_ sealed: String) async throws -> String {
    let (keyID, ciphertext) = try Self.parse(sealed)
    guard let publicKey = try keyStore.publicKey(tag: tag) else {
      throw invalidated("the key that sealed it no longer exists")
    }
    guard Self.keyID(publicKey) == keyID else {
      throw invalidated("the key that sealed it was replaced")
    }
    var retried = false
    while true {
      let (context, reused) = try await evaluatedContext()
      do {
        let plaintext = try await keyStore.decrypt(ciphertext, withKey: tag, context: context)
        if !reused && reuse == .zero { context.invalidate() }
        guard let token = String(bytes: plaintext, encoding: .utf8), !token.isEmpty else {
          throw invalidated("it opened to something that is not a refresh token")
        }
        return token
      } catch let error as XidError where reused && !retried && Self.contextExpired(error) {
        // The reused context went stale (the system invalidated it): ask once more with a new one.
        forgetAuthentication()
        retried = true
      } catch let error as XidError where error.code == .decryptionFailed {
        if !reused { context.invalidate() }
        throw invalidated("it does not open with the key (\(error.reason))")
      } catch {
        if !reused { context.invalidate() }
        throw error
      }
    }
  }

  /// Opens a sealed refresh token only if a reused confirmation allows it without a prompt; `nil`
  /// otherwise.
  func openWithoutAsking(_ sealed: String) async -> String? {
    guard let reusable, clock.now.timeIntervalSince(reusable.since) < reuse.timeInterval,
      let (keyID, ciphertext) = try? Self.parse(sealed),
      let publicKey = try? keyStore.publicKey(tag: tag), Self.keyID(publicKey) == keyID,
      let plaintext = try? await keyStore.decrypt(ciphertext, withKey: tag, context: reusable.context)
    else { return nil }
    return String(bytes: plaintext, encoding: .utf8)
  }

  /// Ends any reused confirmation, so that the next refresh asks the user: at lock, in the background.
  func forgetAuthentication() {
    reusable?.context.invalidate()
    reusable = nil
  }

  /// Deletes the key (sign-out): a sealed token left anywhere can no longer be opened.
  func destroyKey() throws {
    forgetAuthentication()
    try keyStore.deleteKey(tag: tag)
  }

  // MARK: - Contexts

  private func evaluatedContext() async throws -> (context: any PresenceContext, reused: Bool) {
    if let reusable, clock.now.timeIntervalSince(reusable.since) < reuse.timeInterval {
      return (reusable.context, true)
    }
    forgetAuthentication()
    guard interactionAllowed() else {
      throw XidError(
        .userPresenceRequired,
        "refreshing needs the user to confirm it's them, and the app is in the background; the access token stays usable until it expires, then retry in the foreground"
      )
    }
    let context = keyStore.makeContext()
    do {
      try await keyStore.authenticate(context, forKey: tag, localizedReason: reason)
    } catch let error as XidError where error.code == .presenceKeyInvalidated {
      context.invalidate()
      throw invalidated("the key refused the user (\(error.reason))")
    } catch {
      context.invalidate()
      throw error
    }
    if reuse > .zero {
      reusable = (context, clock.now)
      scheduleExpiry(of: context)
    }
    return (context, false)
  }

  /// Invalidates `context` once the reuse time has passed in real time, even if no refresh comes.
  private func scheduleExpiry(of context: any PresenceContext) {
    let reuse = reuse
    Task { [weak self] in
      try? await Task.sleep(for: reuse)
      await self?.expire(context)
    }
  }

  private func expire(_ context: any PresenceContext) {
    guard let reusable, reusable.context === context else { return }
    forgetAuthentication()
  }

  private static func contextExpired(_ error: XidError) -> Bool {
    error.code == .authenticationInterrupted || error.code == .userPresenceRequired
  }

  // MARK: - The sealed form

  private static func keyID(_ publicKey: [UInt8]) -> String {
    Base64URL.encode(XidCrypto.sha256(publicKey).prefix(8))
  }

  private static func parse(_ sealed: String) throws -> (keyID: String, ciphertext: [UInt8]) {
    let parts = sealed.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3, parts[0] == "1", let ciphertext = try? Base64URL.decode(String(parts[2])),
      ciphertext.count > ECIESP256.overhead
    else {
      throw XidError(
        .presenceKeyInvalidated,
        "the stored refresh token is sealed in a form this version of Xid cannot read; sign the user in again")
    }
    return (String(parts[1]), ciphertext)
  }

  private func invalidated(_ why: String) -> XidError {
    XidError(
      .presenceKeyInvalidated,
      "the sealed refresh token cannot be opened: \(why). The enrolled biometry or the passcode may have changed; sign the user in again (signOut() cleans up)"
    )
  }
}
