/// A confirmation of the user's presence that a key accepts for a while: an `LAContext` on Apple
/// platforms. One context, evaluated once, covers every use of the key until it is invalidated.
public protocol PresenceContext: AnyObject, Sendable {
  /// Ends the context: keys no longer accept it, and a prompt it is showing goes away.
  func invalidate()
}

/// Keys whose private half can be used only while the user is present: the Secure Enclave on Apple
/// platforms (`SecureEnclaveKeyStore`), ``SoftwarePresenceKeyStore`` elsewhere. Xid seals the refresh
/// token with one (``PresenceOptions/refreshTokenProtection``).
///
/// Keys are P-256 and encrypt with ECIES, ANSI X9.63 KDF with SHA-256 and AES-GCM with a variable IV,
/// as `SecKeyAlgorithm.eciesEncryptionCofactorVariableIVX963SHA256AESGCM` does. Using the public half
/// never asks the user; using the private half needs a context that ``authenticate(_:forKey:localizedReason:)``
/// evaluated. Throw ``XidError`` with the presence codes; a missing key is
/// ``XidError/Code/presenceKeyInvalidated``.
public protocol PresenceKeyStore: Sendable {
  /// A new context, not yet evaluated.
  func makeContext() -> any PresenceContext
  /// The public key (65-byte X9.63) of the key named `tag`, or `nil` when there is none. Never asks the
  /// user.
  func publicKey(tag: String) throws -> [UInt8]?
  /// Makes a new key named `tag` (replacing any other of that name) whose private use needs
  /// `requirement`, and returns its public key. Never asks the user.
  func createKey(tag: String, requirement: PresenceRequirement) throws -> [UInt8]
  /// Deletes the key named `tag`; deleting a missing key is not an error.
  func deleteKey(tag: String) throws
  /// Seals `plaintext` for the key whose public key is `publicKey`. Never asks the user.
  func encrypt(_ plaintext: [UInt8], to publicKey: [UInt8]) throws -> [UInt8]
  /// Asks the user, showing `localizedReason`, to allow the key `tag`'s private use with `context`.
  func authenticate(_ context: any PresenceContext, forKey tag: String, localizedReason: String) async throws
  /// Opens `ciphertext` with the private key `tag`, using the evaluated `context`; never asks again.
  func decrypt(_ ciphertext: [UInt8], withKey tag: String, context: any PresenceContext) async throws -> [UInt8]
}
