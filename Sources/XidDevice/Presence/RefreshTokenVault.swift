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
///
/// An account has two key names (``tags``). The session's token is sealed with the key under one of
/// them, found by its key id; a sign-in makes its key under the other
/// (``sealWithNewKey(_:besides:)``), so that the session it replaces keeps a key that opens its token
/// until the new record is stored. Then the other key goes (``deleteKeys(except:)``); when the store
/// fails, the new key goes instead (``deleteKey(of:)``). At most two keys exist per account, and
/// sign-out deletes both.
package actor RefreshTokenVault {
  private let keyStore: any PresenceSealingKeyStore
  private let requirement: PresenceRequirement
  /// The confirmations of the user's presence, shared with the DPoP key of the stricter mode.
  let confirmations: PresenceConfirmations
  /// The name of the account's first key: the one name that versions of Xid before the second used.
  let tag: String
  /// The names of the account's two keys: ``tag``, then ``tag`` with `.2`.
  let tags: [String]

  init(
    keyStore: any PresenceSealingKeyStore, requirement: PresenceRequirement, confirmations: PresenceConfirmations,
    tag: String
  ) {
    self.keyStore = keyStore
    self.requirement = requirement
    self.confirmations = confirmations
    self.tag = tag
    tags = [tag, tag + ".2"]
  }

  /// A sealed refresh token, and whether sealing it made the key.
  package struct Sealed {
    /// The sealed form, kept in the record in place of the refresh token.
    package var text: String
    /// Whether a new key was made: the record then takes ``biometryState``.
    package var madeKey: Bool
    /// A hash of the enrolled biometry's state when the key was made, for a
    /// ``PresenceRequirement/biometryCurrentSet`` key on a store that can tell.
    package var biometryState: String?
  }

  /// Returns when the device can verify the user by the requirement, so that a key made with it can
  /// be used; a sign-in calls it before sending anything. In the stricter mode the DPoP key is made
  /// with the same requirement, so `includingDPoPKey` only names it in the error.
  ///
  /// - Throws: the key store's reason (``XidError/Code/biometryNotEnrolled``,
  ///   ``XidError/Code/passcodeNotSet``, …), saying that the refresh token (and the DPoP key) cannot
  ///   be protected.
  package func checkCanSeal(includingDPoPKey: Bool = false) async throws {
    do {
      try await keyStore.checkCanAuthorize(requirement: requirement)
    } catch let error as XidError {
      let what =
        includingDPoPKey
        ? "PresenceOptions.refreshTokenProtection (.\(requirement)) with protectsDPoPKey cannot protect the refresh token and the DPoP key"
        : "PresenceOptions.refreshTokenProtection (.\(requirement)) cannot protect the refresh token"
      throw XidError(error.code, "\(what) on this device: \(error.reason)")
    }
  }

  /// Seals a sign-in's `refreshToken` with a new key, so that a key invalidated since the last
  /// session, or made with another requirement, is not reused. The key is made under the name that
  /// `live`'s key does not use (`live`: the stored session's sealed token, when there is one), so
  /// that the stored session can still be opened until the new record replaces it; when `live`'s key
  /// cannot be told, under the name that holds no key. A key that sealing fails with is deleted.
  package func sealWithNewKey(_ refreshToken: String, besides live: String?) throws -> Sealed {
    let tag = freeTag(besides: live)
    // A confirmation under way or kept for reuse stays valid: it confirmed the user for this
    // requirement, whatever the key (as an evaluated LAContext does).
    let publicKey = try keyStore.createKey(tag: tag, requirement: requirement)
    do {
      return try sealed(refreshToken, with: publicKey, madeKey: true)
    } catch {
      try? keyStore.deleteKey(tag: tag)
      throw error
    }
  }

  /// Seals a refreshed `refreshToken` with the key that sealed `previous` (the token it replaces).
  /// Without one (the record was stored before the protection was turned on, or the key has gone
  /// since), with the account's key when it has one, or a new key.
  package func seal(_ refreshToken: String, withKeyOf previous: String?) throws -> Sealed {
    if let previous, let key = try key(of: previous) {
      return try sealed(refreshToken, with: key.publicKey, madeKey: false)
    }
    for tag in tags {
      if let publicKey = try keyStore.publicKey(tag: tag) {
        return try sealed(refreshToken, with: publicKey, madeKey: false)
      }
    }
    return try sealed(refreshToken, with: try keyStore.createKey(tag: tag, requirement: requirement), madeKey: true)
  }

  private func sealed(_ refreshToken: String, with publicKey: [UInt8], madeKey: Bool) throws -> Sealed {
    let sealed = try keyStore.encrypt(Array(refreshToken.utf8), to: publicKey)
    return Sealed(
      text: "1." + Self.keyID(publicKey) + "." + Base64URL.encode(sealed), madeKey: madeKey,
      biometryState: madeKey ? currentBiometryState() : nil)
  }

  /// The name a sign-in's new key goes under, the first that is the least likely to hold the stored
  /// session's key: one with no key; then one whose key sealed nothing stored (`live` is known and
  /// is not its); then one whose key might be `live`'s (`live` unknown, or the lookup failed: a
  /// damaged key is replaced rather than blocking every sign-in); never `live`'s, while another name
  /// is free of it.
  private func freeTag(besides live: String?) -> String {
    let liveID = live.flatMap { try? Self.parse($0).keyID }
    let ranks = tags.map { tag -> Int in
      switch Result(catching: { try keyStore.publicKey(tag: tag) }) {
      case .success(nil): return 0
      case .success(let key?) where liveID != nil: return Self.keyID(key) == liveID ? 3 : 1
      case .success, .failure: return 2
      }
    }
    return tags[ranks.firstIndex(of: ranks.min() ?? 0) ?? 0]
  }

  /// The key that sealed a token of key id `keyID`, and whether any key is there at all.
  ///
  /// - Throws: a lookup's error, when no key matched and a lookup failed.
  private func lookUp(keyID: String) throws -> (key: (tag: String, publicKey: [UInt8])?, anyKey: Bool) {
    var anyKey = false
    var failure: (any Error)?
    for tag in tags {
      do {
        guard let publicKey = try keyStore.publicKey(tag: tag) else { continue }
        if Self.keyID(publicKey) == keyID { return ((tag, publicKey), true) }
        anyKey = true
      } catch {
        failure = failure ?? error
      }
    }
    if let failure { throw failure }
    return (nil, anyKey)
  }

  /// The name and public key of the key that sealed `sealed`, or `nil` when neither key did.
  private func key(of sealed: String) throws -> (tag: String, publicKey: [UInt8])? {
    guard let keyID = try? Self.parse(sealed).keyID else { return nil }
    return try lookUp(keyID: keyID).key
  }

  /// Deletes the account's keys except the one that sealed `kept` (every key when `kept` is `nil`):
  /// once a sign-in's record is stored, the key of the session it replaced, or one an interrupted
  /// sign-in left. Nothing is deleted when the kept key cannot be told.
  ///
  /// - Throws: the key store's error for a key it could not delete (the others are deleted).
  package func deleteKeys(except kept: String?) throws {
    let keep: String?
    if let kept {
      guard let key = try key(of: kept) else { return }
      keep = key.tag
    } else {
      keep = nil
    }
    try deleteEach(tags.filter { $0 != keep })
  }

  /// Deletes the key that sealed `sealed`, if it is still there: a sign-in's key, whose record was not
  /// stored.
  package func deleteKey(of sealed: String) throws {
    guard let key = try key(of: sealed) else { return }
    try keyStore.deleteKey(tag: key.tag)
  }

  /// Deletes the keys `tags`, every one of them even when one fails; throws the first failure.
  private func deleteEach(_ tags: [String]) throws {
    var failure: (any Error)?
    for tag in tags {
      do { try keyStore.deleteKey(tag: tag) } catch { failure = failure ?? error }
    }
    if let failure { throw failure }
  }

  /// Opens a sealed refresh token, asking the user unless the call or a recent confirmation allows it.
  ///
  /// `biometryState` is the record's hash of the enrolled biometry when the key was made: when the
  /// key refuses the user (as the keychain's `errSecAuthFailed`, CryptoTokenKit's errors, or no
  /// biometry enrolled any more) and the biometry has changed since, the key was invalidated
  /// (``XidError/Code/presenceKeyInvalidated``), not the user unrecognised.
  package func open(_ sealed: String, biometryState: String? = nil) async throws -> String {
    do {
      return try await openAsking(sealed)
    } catch let error as XidError where biometryState != nil && Self.mayMeanChangedBiometry(error.code) {
      let current = currentBiometryState()
      // No state now (biometry locked out, say) tells nothing, except that none is enrolled any more.
      guard error.code == .biometryNotEnrolled || (current != nil && current != biometryState) else { throw error }
      throw invalidated(
        "the enrolled faces or fingers changed since the key was made, which invalidates a .biometryCurrentSet key (\(error.code))"
      )
    }
  }

  /// The failures a `.biometryCurrentSet` key gives once an enrollment change invalidated it.
  private static func mayMeanChangedBiometry(_ code: XidError.Code) -> Bool {
    [.authenticationFailed, .biometryNotEnrolled, .storageFailure, .cryptoFailure].contains(code)
  }

  /// A hash of the enrolled biometry's state now, for a `.biometryCurrentSet` key; `nil` otherwise or
  /// when the store cannot tell.
  private func currentBiometryState() -> String? {
    guard requirement == .biometryCurrentSet, let state = keyStore.biometryDomainState(), !state.isEmpty else {
      return nil
    }
    return Base64URL.encode(XidCrypto.sha256(state).prefix(16))
  }

  private func openAsking(_ sealed: String) async throws -> String {
    let (keyID, ciphertext) = try Self.parse(sealed)
    let found = try lookUp(keyID: keyID)
    guard let tag = found.key?.tag else {
      throw invalidated(
        found.anyKey ? "the key that sealed it was replaced" : "the key that sealed it no longer exists")
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
      } catch let error as XidError
        where !confirmation.isNew && !retried && PresenceConfirmations.meansStaleContext(error)
      {
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
  package func openWithoutAsking(_ sealed: String) async -> String? {
    guard let context = await confirmations.contextWithoutAsking(),
      let (_, ciphertext) = try? Self.parse(sealed), let key = try? key(of: sealed),
      let plaintext = try? await keyStore.decrypt(ciphertext, withKey: key.tag, context: context)
    else { return nil }
    return String(bytes: plaintext, encoding: .utf8)
  }

  /// Deletes both keys (sign-out): a sealed token left anywhere can no longer be opened.
  func destroyKey() async throws {
    await confirmations.forget()
    try deleteEach(tags)
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
