import XidApple
import XidCore

extension PlatformDefaults {
  /// `options` with the platform's authorizer and key store where it names none, for the options that
  /// need them:
  ///
  /// - Apple platforms: `LocalAuthenticationAuthorizer` (an `LARight` of the lock's requirement) and
  ///   `SecureEnclaveKeyStore` (the Secure Enclave, or the keychain where there is none).
  /// - Elsewhere: ``SoftwarePresenceKeyStore`` in `storage`, guarded by the configured authorizer;
  ///   without one, the engine reports what to set.
  static func presence(_ options: PresenceOptions, storage: any TokenStorageAdapter) -> PresenceOptions {
    var options = options
    #if canImport(LocalAuthentication) && canImport(Security) && !os(watchOS) && !os(tvOS)
      if options.authorizer == nil, let requirement = options.sessionLock {
        options.authorizer = LocalAuthenticationAuthorizer(requirement: requirement)
      }
      if options.keyStore == nil, options.refreshTokenProtection != nil {
        options.keyStore = SecureEnclaveKeyStore()
      }
    #else
      if options.keyStore == nil, options.refreshTokenProtection != nil, let authorizer = options.authorizer {
        options.keyStore = SoftwarePresenceKeyStore(storage: storage, authorizer: authorizer)
      }
    #endif
    return options
  }
}
