/// What signs in place of a configured key store (``PresenceOptions/keyStore``) that is not a
/// ``PresenceSigningKeyStore``: every use throws ``XidError/Code/invalidConfiguration``, naming the
/// store, so that the stricter mode fails when it needs a key (at sign-in, or at the first proof of a
/// key made by another process).
struct NoSigningKeyStore: PresenceSigningKeyStore {
  /// The configured store's type, as the error names it.
  let storeName: String

  init(for keyStore: any PresenceSealingKeyStore) { storeName = "\(type(of: keyStore))" }

  func createSigningKey(requirement: PresenceRequirement) throws -> (
    publicKey: [UInt8], storedForm: String, isHardwareBacked: Bool
  ) {
    throw noSigningKeys
  }

  func authenticate(_ context: any PresenceContext, forSigningKey storedForm: String, localizedReason: String)
    async throws
  {
    throw noSigningKeys
  }

  func sign(_ message: [UInt8], withSigningKey storedForm: String, context: any PresenceContext) throws -> [UInt8] {
    throw noSigningKeys
  }

  private var noSigningKeys: XidError {
    XidError(
      .invalidConfiguration,
      "PresenceOptions.protectsDPoPKey needs a key store that makes signing keys (\(storeName) does not): use the platform's (SecureEnclaveKeyStore, SoftwarePresenceKeyStore) or conform it to PresenceSigningKeyStore"
    )
  }
}
