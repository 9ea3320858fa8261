/// A confirmation of the user's presence that a key accepts for a while: an `LAContext` on Apple
/// platforms. One context, evaluated once, covers every use of the key until it is invalidated.
public protocol PresenceContext: AnyObject, Sendable {
  /// Ends the context: keys no longer accept it, and a prompt it is showing goes away.
  func invalidate()
}

/// Keys whose private half can be used only while the user is present, that seal the refresh token
/// (``PresenceOptions/refreshTokenProtection``): the Secure Enclave on Apple platforms
/// (`SecureEnclaveKeyStore`), ``SoftwarePresenceKeyStore`` elsewhere. A store that is also a
/// ``PresenceSigningKeyStore``, as those two are, makes the DPoP keys of the stricter mode
/// (``PresenceOptions/protectsDPoPKey``).
///
/// A context evaluated once allows every key of the store that has the same requirement, as an
/// evaluated `LAContext` passed with `kSecUseAuthenticationContext` does: one prompt covers opening
/// the refresh token and signing the refresh's DPoP proof.
///
/// Keys are P-256 and encrypt with ECIES, ANSI X9.63 KDF with SHA-256 and AES-GCM with a variable IV,
/// as `SecKeyAlgorithm.eciesEncryptionCofactorVariableIVX963SHA256AESGCM` does. Using the public half
/// never asks the user; using the private half needs a context that ``authenticate(_:forKey:localizedReason:)``
/// evaluated. Throw ``XidError`` with the presence codes; a missing key is
/// ``XidError/Code/presenceKeyInvalidated``.
public protocol PresenceSealingKeyStore: Sendable {
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
  /// Returns when the device can verify the user by `requirement`, so that a key made with it (the
  /// refresh token's, and in the stricter mode the DPoP key) can be used, without asking (`LAContext.canEvaluatePolicy` on Apple platforms); throws why not
  /// (``XidError/Code/biometryNotEnrolled``, ``XidError/Code/passcodeNotSet``,
  /// ``XidError/Code/biometryUnavailable``). Xid calls it before a sign-in sends anything. The default
  /// implementation returns: a store that cannot tell lets key creation fail instead.
  func checkCanAuthorize(requirement: PresenceRequirement) async throws
  /// An opaque value that changes whenever a face or finger is enrolled or removed
  /// (`LAContext.evaluatedPolicyDomainState`), read without asking the user; `nil` when biometry is
  /// not available or not enrolled, or the store cannot tell (the default). Xid keeps a hash of it
  /// with a token sealed for a ``PresenceRequirement/biometryCurrentSet`` key, and tells a key that
  /// the change invalidated from a user who was not recognised.
  func biometryDomainState() -> [UInt8]?
}

extension PresenceSealingKeyStore {
  /// Returns: a store that cannot tell lets key creation fail instead.
  public func checkCanAuthorize(requirement: PresenceRequirement) async throws {}

  /// `nil`: the store cannot tell when the enrolled biometry changes.
  public func biometryDomainState() -> [UInt8]? { nil }
}

/// P-256 signing keys whose private use needs the user: the DPoP keys of the stricter mode
/// (``PresenceOptions/protectsDPoPKey``), in the Secure Enclave on Apple platforms
/// (`SecureEnclaveKeyStore`), in software elsewhere (``SoftwarePresenceKeyStore``).
///
/// Xid signs with the ``PresenceOptions/keyStore`` when it conforms to this protocol too, and the
/// contexts passed here are the ones that store made (``PresenceSealingKeyStore/makeContext()``): one
/// evaluated context (one prompt) covers opening the refresh token and signing the refresh's DPoP
/// proof. With a key store that is not a signing store, the stricter mode fails with
/// ``XidError/Code/invalidConfiguration`` when it needs a key. Throw ``XidError`` with the presence
/// codes.
public protocol PresenceSigningKeyStore: Sendable {
  /// Makes a new P-256 signing key whose private use needs `requirement`: the DPoP key of the stricter
  /// mode. Never asks the user.
  ///
  /// - Returns: the public key (65-byte X9.63); what to store to use the key again (an opaque handle,
  ///   such as a Secure Enclave key's `dataRepresentation`, or the private key itself in software),
  ///   which Xid keeps with the tokens and never shows; and whether the key lives in hardware.
  func createSigningKey(requirement: PresenceRequirement) throws -> (
    publicKey: [UInt8], storedForm: String, isHardwareBacked: Bool
  )
  /// Asks the user, showing `localizedReason`, to allow signing with the key `storedForm` using
  /// `context`.
  func authenticate(_ context: any PresenceContext, forSigningKey storedForm: String, localizedReason: String)
    async throws
  /// The ES256 signature (64 bytes r ‖ s) of `message` (SHA-256, then ECDSA P-256) with the key
  /// `storedForm` and the evaluated `context`; never asks.
  func sign(_ message: [UInt8], withSigningKey storedForm: String, context: any PresenceContext) throws -> [UInt8]
}
