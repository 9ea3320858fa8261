/// A DPoP key whose private use needs the user: the stricter mode,
/// ``PresenceOptions/protectsDPoPKey``. It is made by the ``PresenceSigningKeyStore`` (in the Secure
/// Enclave with the access control of ``PresenceOptions/refreshTokenProtection``), stored with the
/// tokens under the kind `"presence"`, and signs only inside a call (``PresenceScope``) that holds an
/// evaluated context: the engine gets one with `PresenceCoordinator.prepareToSign(with:)` before any
/// proof is made.
package struct PresenceDPoPKey: UserPresenceDPoPKey, CustomReflectable {
  /// The kind stored with these keys.
  static let kind = "presence"

  package let publicJWK: JWK
  package let thumbprint: String
  package let isHardwareBacked: Bool
  /// What the key store returned to find the key again; never shown.
  let storedForm: String
  /// The store that signs with it; `nil` in a process that configures none (an extension).
  let keyStore: (any PresenceSigningKeyStore)?

  /// - Parameter publicKey: the 65-byte X9.63 public key.
  /// - Throws: ``XidError/Code/dpopKeyUnavailable`` when it is not a P-256 point's encoding.
  init(
    publicKey: [UInt8], storedForm: String, isHardwareBacked: Bool, keyStore: (any PresenceSigningKeyStore)?
  ) throws {
    guard publicKey.count == 65, publicKey[0] == 0x04,
      let jwk = try? JWK(json: [
        "kty": "EC", "crv": "P-256", "x": .string(Base64URL.encode(publicKey[1..<33])),
        "y": .string(Base64URL.encode(publicKey[33...])),
      ])
    else {
      throw XidError(.dpopKeyUnavailable, "the session's DPoP key has a malformed public key; sign the user in again")
    }
    publicJWK = jwk
    thumbprint = jwk.thumbprint
    self.storedForm = storedForm
    self.isHardwareBacked = isHardwareBacked
    self.keyStore = keyStore
  }

  /// Signs with the context of the call under way.
  ///
  /// - Throws: ``XidError/Code/userPresenceRequired`` outside a call that confirmed the user, and the
  ///   key store's errors.
  package func sign(_ message: [UInt8]) throws -> [UInt8] {
    guard let keyStore, let context = PresenceScope.current?.context else {
      throw XidError(
        .userPresenceRequired,
        "the session's DPoP key needs the user (PresenceOptions.protectsDPoPKey) and this call has no confirmation of their presence; make the call from the app in the foreground"
      )
    }
    return try keyStore.sign(message, withSigningKey: storedForm, context: context)
  }

  /// The thumbprint only: `dump` shows nothing of the stored form.
  package var customMirror: Mirror {
    Mirror(self, children: ["thumbprint": thumbprint, "isHardwareBacked": isHardwareBacked])
  }
}
