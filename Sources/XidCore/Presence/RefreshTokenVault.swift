import Foundation

/// Seals an account's refresh token with a key whose private use needs the user, and opens it for a
/// refresh: ``PresenceOptions/refreshTokenProtection``.
///
/// - Sealing uses the public key only, so a sign-in or a refresh never asks twice.
/// - Opening evaluates one context (one prompt) and opens the token with it, through
///   ``PresenceConfirmations``: the call's context when it has one (the stricter mode's DPoP proof of
///   the same refresh uses it too), kept for ``PresenceOptions/authenticationReuse``, otherwise
///   invalidated when the call ends.
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
  /// The confirmations of the user's presence, shared with the DPoP key of the stricter mode.
  let confirmations: PresenceConfirmations
  /// The key's name: one key per account.
  let tag: String

  init(
    keyStore: any PresenceKeyStore, requirement: PresenceRequirement, confirmations: PresenceConfirmations,
    tag: String
  ) {
    self.keyStore = keyStore
    self.requirement = requirement
    self.confirmations = confirmations
    self.tag = tag
  }

  /// Seals `refreshToken` with the account's key; `newKey` makes a fresh key first (at sign-in), so
  /// that a key invalidated since the last session, or made with another requirement, is not reused.
  func seal(_ refreshToken: String, newKey: Bool) throws -> String {
    var publicKey = newKey ? nil : try keyStore.publicKey(tag: tag)
    if publicKey == nil {
      // A confirmation under way or kept for reuse stays valid: it confirmed the user for this
      // requirement, whatever the key (as an evaluated LAContext does).
      publicKey = try keyStore.createKey(tag: tag, requirement: requirement)
    }
    let sealed = try keyStore.encrypt(Array(refreshToken.utf8), to: publicKey!)
    return "1." + Self.keyID(publicKey!) + "." + Base64URL.encode(sealed)
  }

  /// Opens a sealed refresh token, asking the user unless the call or a recent confirmation allows it.
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
      let confirmation: PresenceConfirmations.Confirmation
      do {
        confirmation = try await confirmations.confirmation(for: .sealing(tag: tag), purpose: "refreshing")
      } catch let error as XidError where error.code == .presenceKeyInvalidated {
        throw invalidated("the key refused the user (\(error.reason))")
      }
      let context = confirmation.context
      do {
        let plaintext = try await keyStore.decrypt(ciphertext, withKey: tag, context: context)
        if confirmation.endsAfterUse { context.invalidate() }
        guard let token = String(bytes: plaintext, encoding: .utf8), !token.isEmpty else {
          throw invalidated("it opened to something that is not a refresh token")
        }
        return token
      } catch let error as XidError where !confirmation.isNew && !retried && Self.contextExpired(error) {
        // The reused context went stale (the system invalidated it): ask once more with a new one.
        await confirmations.drop(context)
        retried = true
      } catch let error as XidError where error.code == .decryptionFailed {
        if confirmation.endsAfterUse { context.invalidate() }
        throw invalidated("it does not open with the key (\(error.reason))")
      } catch {
        if confirmation.endsAfterUse { context.invalidate() }
        throw error
      }
    }
  }

  /// Opens a sealed refresh token only if the call or a reused confirmation allows it without a
  /// prompt; `nil` otherwise.
  func openWithoutAsking(_ sealed: String) async -> String? {
    guard let context = await confirmations.contextWithoutAsking(),
      let (keyID, ciphertext) = try? Self.parse(sealed),
      let publicKey = try? keyStore.publicKey(tag: tag), Self.keyID(publicKey) == keyID,
      let plaintext = try? await keyStore.decrypt(ciphertext, withKey: tag, context: context)
    else { return nil }
    return String(bytes: plaintext, encoding: .utf8)
  }

  /// Deletes the key (sign-out): a sealed token left anywhere can no longer be opened.
  func destroyKey() async throws {
    await confirmations.forget()
    try keyStore.deleteKey(tag: tag)
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
