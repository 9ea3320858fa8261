/// A key bound to this device that signs only after the user proves their presence: for step-up
/// authentication with your backend ("confirm this payment with Face ID").
///
/// On Apple platforms it is an `LAPersistedRight` in `LARightStore` (iOS 16, macOS 13), backed by a
/// Secure Enclave key that never leaves the device; elsewhere a ``SoftwareDeviceCredentialStore``.
///
/// ```swift
/// // Once, for example after sign-in: register the public key with your backend.
/// let credential = try await DeviceCredential.enroll(
///   identifier: "payments", requirement: .biometryCurrentSet, store: PersistedRightStore())
/// try await api.registerDeviceKey(credential.publicJWK)
///
/// // At each step-up: the backend sends a challenge, the user confirms, the backend verifies.
/// let proof = try await credential.signedJWS(
///   challenge: Array(challenge.utf8), localizedReason: "Confirm the payment of €42")
/// try await api.confirm(paymentID, proof: proof)
/// ```
public struct DeviceCredential: Sendable, CustomStringConvertible {
  /// The name the credential is saved under.
  public let identifier: String
  /// The public key as an ES256 JWK (`kty` EC, `crv` P-256, `alg` ES256, `use` sig, and the RFC 7638
  /// thumbprint as `kid`), to register with the backend.
  public let publicJWK: JWK
  private let verificationKey: JWSVerificationKey
  private let store: any DeviceCredentialStore

  private init(identifier: String, key: DeviceCredentialKey, store: any DeviceCredentialStore) throws {
    guard key.canSignES256 else {
      throw XidError(
        .unsupportedKey,
        "the device credential's key cannot make ECDSA P-256 SHA-256 signatures, so it cannot sign ES256")
    }
    guard key.publicKey.count == 65, key.publicKey[0] == 0x04 else {
      throw XidError(
        .unsupportedKey,
        "the device credential's public key is not an uncompressed P-256 point (\(key.publicKey.count) bytes); Xid supports P-256 only"
      )
    }
    var members: [String: JSONValue] = [
      "kty": "EC", "crv": "P-256", "x": .string(Base64URL.encode(key.publicKey[1..<33])),
      "y": .string(Base64URL.encode(key.publicKey[33...])), "alg": "ES256", "use": "sig",
    ]
    do {
      members["kid"] = .string(try JWK(json: .object(members)).thumbprint)
      publicJWK = try JWK(json: .object(members))
      verificationKey = try JWSVerificationKey(jwk: publicJWK)
    } catch {
      throw XidError(.unsupportedKey, "the device credential's public key is not a valid P-256 point")
    }
    self.identifier = identifier
    self.store = store
  }

  /// Saves a new credential under `identifier` (replacing one of that name) and returns it; register
  /// its ``publicJWK`` with your backend. Does not ask the user.
  ///
  /// - Throws: ``XidError/Code/unsupportedKey`` when the platform's key is not a P-256 key that signs
  ///   ES256; the presence codes the store reports.
  public static func enroll(
    identifier: String, requirement: PresenceRequirement = .biometryWithPasscodeFallback,
    store: any DeviceCredentialStore
  ) async throws -> DeviceCredential {
    try requireIdentifier(identifier)
    let key = try await store.create(identifier: identifier, requirement: requirement)
    do {
      return try DeviceCredential(identifier: identifier, key: key, store: store)
    } catch {
      try? await store.remove(identifier: identifier)
      throw error
    }
  }

  /// The credential saved under `identifier`, or `nil` when there is none (enroll one). Does not ask
  /// the user.
  public static func existing(identifier: String, store: any DeviceCredentialStore) async throws -> DeviceCredential? {
    try requireIdentifier(identifier)
    guard let key = try await store.key(identifier: identifier) else { return nil }
    return try DeviceCredential(identifier: identifier, key: key, store: store)
  }

  /// Asks the user (showing `localizedReason`), then signs `challenge` with ES256 and returns the
  /// signature in JWS form: r ‖ s, 64 bytes (the platform's DER is converted and the signature checked
  /// against ``publicJWK``).
  ///
  /// - Throws: the presence codes (``XidError/Code/authenticationCancelled``,
  ///   ``XidError/Code/biometryLockout``, …); ``XidError/Code/presenceKeyInvalidated`` when the
  ///   credential is gone (enroll again).
  public func sign(challenge: some Sequence<UInt8>, localizedReason: String) async throws -> [UInt8] {
    try await sign(Array(challenge), localizedReason: localizedReason)
  }

  private func sign(_ message: [UInt8], localizedReason: String) async throws -> [UInt8] {
    guard !localizedReason.isEmpty else {
      throw XidError(.invalidConfiguration, "signing with a device credential needs a localizedReason to show the user")
    }
    let der = try await store.sign(message, identifier: identifier, localizedReason: localizedReason)
    guard let raw = ECDSASignatureDER.rawP256(fromDER: der) else {
      throw XidError(.cryptoFailure, "the device credential's signature is not a DER ECDSA P-256 signature")
    }
    guard verificationKey.isValidSignature(raw, for: message, algorithm: .es256) else {
      throw XidError(
        .presenceKeyInvalidated,
        "the device credential's signature does not verify with its enrolled public key: the credential was replaced; enroll again"
      )
    }
    return raw
  }

  /// A compact JWS (ES256) whose payload is `challenge`, with `alg`, the ``publicJWK``'s `kid` and the
  /// members of `header`; signed after the user confirms (see ``sign(challenge:localizedReason:)``).
  /// The backend verifies it with the registered key and compares the payload with its challenge.
  public func signedJWS(
    challenge: some Sequence<UInt8>, localizedReason: String, header: [String: JSONValue] = [:]
  ) async throws -> String {
    var members = header
    members["alg"] = "ES256"
    members["kid"] = .string(publicJWK.keyID ?? publicJWK.thumbprint)
    let signingInput = Base64URL.encode(JSONValue.object(members).serializedBytes()) + "." + Base64URL.encode(challenge)
    let signature = try await sign(Array(signingInput.utf8), localizedReason: localizedReason)
    return signingInput + "." + Base64URL.encode(signature)
  }

  /// Deletes the credential from the device. Tell your backend to forget its key too.
  public func remove() async throws {
    try await store.remove(identifier: identifier)
  }

  /// `DeviceCredential("<identifier>", kid: …)`; never key material.
  public var description: String { "DeviceCredential(\"\(identifier)\", kid: \(publicJWK.keyID ?? "none"))" }

  private static func requireIdentifier(_ identifier: String) throws {
    guard !identifier.isEmpty else {
      throw XidError(.invalidConfiguration, "a device credential needs a non-empty identifier")
    }
  }
}
