/// The public half of a device credential's key, as its store reports it.
public struct DeviceCredentialKey: Sendable, Hashable {
  /// The public key in X9.63 form (`0x04 ‖ x ‖ y`, 65 bytes for P-256), as `LAPublicKey.bytes` and
  /// `SecKeyCopyExternalRepresentation` give it.
  public var publicKey: [UInt8]
  /// Whether the private key can make ECDSA P-256 SHA-256 signatures
  /// (`LAPrivateKey.canSign(using: .ecdsaSignatureMessageX962SHA256)`).
  public var canSignES256: Bool

  /// Creates the description of a key.
  public init(publicKey: [UInt8], canSignES256: Bool) {
    self.publicKey = publicKey
    self.canSignES256 = canSignES256
  }
}

/// Where device credentials live: `PersistedRightStore` (`LARightStore`, a Secure Enclave key per
/// right) on Apple platforms, ``SoftwareDeviceCredentialStore`` elsewhere. ``DeviceCredential`` checks
/// what a store returns (the key's type, the signature), so a store only does the platform's part.
///
/// Throw ``XidError`` with the presence codes; a missing credential is
/// ``XidError/Code/presenceKeyInvalidated``.
public protocol DeviceCredentialStore: Sendable {
  /// Saves a new credential under `identifier` (replacing any other), whose key signs only after the
  /// user is verified by `requirement`; never asks the user.
  func create(identifier: String, requirement: PresenceRequirement) async throws -> DeviceCredentialKey
  /// The credential saved under `identifier`, or `nil` when there is none; never asks the user.
  func key(identifier: String) async throws -> DeviceCredentialKey?
  /// Asks the user (showing `localizedReason`), then signs `message` with ECDSA P-256 SHA-256 and
  /// returns the signature in DER (X9.62), as `LAPrivateKey.sign` and `SecKeyCreateSignature` do.
  func sign(_ message: [UInt8], identifier: String, localizedReason: String) async throws -> [UInt8]
  /// Deletes the credential; deleting a missing one is not an error.
  func remove(identifier: String) async throws
}
