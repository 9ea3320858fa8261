#if canImport(LocalAuthentication) && canImport(Security) && canImport(CryptoKit) && !os(watchOS) && !os(tvOS)
  import CryptoKit
  import Foundation
  @preconcurrency import LocalAuthentication
  import Security
  import XidCore

  /// Presence keys in the Secure Enclave: P-256 keys made there (`kSecAttrTokenIDSecureEnclave`),
  /// whose private use needs `.privateKeyUsage` and the requirement's flags; where there is no Secure
  /// Enclave (the Simulator, some Macs), keychain keys with the same access control. `Xid` uses it for
  /// ``PresenceOptions/refreshTokenProtection``.
  ///
  /// - Sealing uses the public key only (`SecKeyCreateEncryptedData`), never a prompt.
  /// - Opening evaluates an `LAContext` once (`evaluateAccessControl(_:operation: .useKeyDecrypt,…)`)
  ///   and passes it with `kSecUseAuthenticationContext` to find the key and decrypt
  ///   (`SecKeyCreateDecryptedData`), so the user sees one prompt.
  /// - The algorithm is `eciesEncryptionCofactorVariableIVX963SHA256AESGCM`, the same bytes as
  ///   ``SoftwarePresenceKeyStore``'s.
  ///
  /// Keys are `kSecAttrAccessibleWhenUnlockedThisDeviceOnly`, never synchronized; with `accessGroup`
  /// they are shared with the app's extensions.
  ///
  /// Signing keys (the DPoP key of ``PresenceOptions/protectsDPoPKey``) are CryptoKit
  /// `SecureEnclave.P256.Signing` keys with the access control `.privateKeyUsage` and the
  /// requirement's flags; their stored form is the requirement and the key's `dataRepresentation`.
  /// A signature uses a context evaluated with `evaluateAccessControl(_:operation: .useKeySign,…)`,
  /// passed as `authenticationContext`. They need a Secure Enclave: elsewhere
  /// ``createSigningKey(requirement:)`` throws ``XidError/Code/invalidConfiguration``.
  public struct SecureEnclaveKeyStore: PresenceSealingKeyStore, PresenceSigningKeyStore {
    /// The full, team-prefixed keychain access group shared with the extensions; `nil` for the app's.
    public let accessGroup: String?
    /// Whether keys are made in the Secure Enclave.
    public let usesSecureEnclave: Bool

    static let algorithm = SecKeyAlgorithm.eciesEncryptionCofactorVariableIVX963SHA256AESGCM

    /// Keeps keys in `accessGroup`, in the Secure Enclave when the device has one.
    public init(accessGroup: String? = nil, usesSecureEnclave: Bool = SecureEnclave.isAvailable) {
      self.accessGroup = accessGroup
      self.usesSecureEnclave = usesSecureEnclave
    }

    public func makeContext() -> any PresenceContext { LocalAuthenticationContext() }

    public func publicKey(tag: String) throws -> [UInt8]? {
      guard let privateKey = try privateKey(tag: tag, context: Self.silentContext()) else { return nil }
      return try Self.externalPublicKey(of: privateKey)
    }

    public func createKey(tag: String, requirement: PresenceRequirement) throws -> [UInt8] {
      try deleteKey(tag: tag)
      var flags = requirement.accessControlFlags
      if usesSecureEnclave { flags.insert(.privateKeyUsage) }
      var error: Unmanaged<CFError>?
      guard
        let access = SecAccessControlCreateWithFlags(
          nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, flags, &error)
      else { throw PresenceFailure(error, operation: "describe the presence key's access").error }
      var attributes: [CFString: Any] = [
        kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom,
        kSecAttrKeySizeInBits: 256,
        kSecUseDataProtectionKeychain: true,
        kSecPrivateKeyAttrs: [
          kSecAttrIsPermanent: true,
          kSecAttrApplicationTag: Data(tag.utf8),
          kSecAttrLabel: Self.label(requirement),
          kSecAttrAccessControl: access,
        ] as [CFString: Any],
      ]
      if usesSecureEnclave { attributes[kSecAttrTokenID] = kSecAttrTokenIDSecureEnclave }
      if let accessGroup { attributes[kSecAttrAccessGroup] = accessGroup }
      guard let key = SecKeyCreateRandomKey(attributes as CFDictionary, &error) else {
        throw PresenceFailure(error, operation: "create the presence key").error
      }
      return try Self.externalPublicKey(of: key)
    }

    public func deleteKey(tag: String) throws {
      let status = SecItemDelete(query(tag: tag) as CFDictionary)
      guard status == errSecSuccess || status == errSecItemNotFound else {
        throw PresenceFailure.keychain(status: status, operation: "delete the presence key").error
      }
    }

    public func encrypt(_ plaintext: [UInt8], to publicKey: [UInt8]) throws -> [UInt8] {
      let attributes: [CFString: Any] = [
        kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeyClass: kSecAttrKeyClassPublic,
        kSecAttrKeySizeInBits: 256,
      ]
      var error: Unmanaged<CFError>?
      guard let key = SecKeyCreateWithData(Data(publicKey) as CFData, attributes as CFDictionary, &error) else {
        _ = error?.takeRetainedValue()
        throw XidError(.invalidKey, "the presence key's public key is not a P-256 key")
      }
      guard SecKeyIsAlgorithmSupported(key, .encrypt, Self.algorithm) else {
        throw XidError(.cryptoFailure, "the Security framework cannot seal with ECIES X9.63 SHA-256 AES-GCM here")
      }
      guard let sealed = SecKeyCreateEncryptedData(key, Self.algorithm, Data(plaintext) as CFData, &error) else {
        throw PresenceFailure(error, operation: "seal the refresh token").error
      }
      return Array(sealed as Data)
    }

    public func authenticate(_ context: any PresenceContext, forKey tag: String, localizedReason: String) async throws {
      let context = try Self.context(context)
      let access = try accessControl(ofKey: tag)
      try await context.evaluate(access, operation: .useKeyDecrypt, localizedReason: localizedReason)
    }

    public func decrypt(_ ciphertext: [UInt8], withKey tag: String, context: any PresenceContext) async throws
      -> [UInt8]
    {
      let context = try Self.context(context)
      guard let privateKey = try privateKey(tag: tag, context: context.context) else {
        throw PresenceFailure.keychain(status: errSecItemNotFound, operation: "open the refresh token").error
      }
      guard SecKeyIsAlgorithmSupported(privateKey, .decrypt, Self.algorithm) else {
        throw XidError(.cryptoFailure, "the presence key cannot open ECIES X9.63 SHA-256 AES-GCM")
      }
      var error: Unmanaged<CFError>?
      guard let plaintext = SecKeyCreateDecryptedData(privateKey, Self.algorithm, Data(ciphertext) as CFData, &error)
      else { throw PresenceFailure(error, operation: "open the refresh token").error }
      return Array(plaintext as Data)
    }

    /// Checks that the device can evaluate `requirement` (`LAContext.canEvaluatePolicy`: biometry for
    /// `.biometryCurrentSet`, biometry or the passcode otherwise), without asking.
    public func checkCanAuthorize(requirement: PresenceRequirement) async throws {
      try LocalAuthenticationContext.checkCanEvaluate(requirement, operation: "check the device")
    }

    /// `LAContext.evaluatedPolicyDomainState` after `canEvaluatePolicy` for biometry, which needs no
    /// prompt; `nil` when biometry cannot be evaluated now.
    public func biometryDomainState() -> [UInt8]? {
      LocalAuthenticationContext.biometryDomainState()
    }

    // MARK: - Signing keys

    /// Makes a signing key in the Secure Enclave whose use needs `requirement`; never asks.
    ///
    /// - Throws: ``XidError/Code/invalidConfiguration`` where there is no Secure Enclave.
    public func createSigningKey(requirement: PresenceRequirement) throws -> (
      publicKey: [UInt8], storedForm: String, isHardwareBacked: Bool
    ) {
      guard usesSecureEnclave else {
        throw XidError(
          .invalidConfiguration,
          "PresenceOptions.protectsDPoPKey needs the Secure Enclave, which this device lacks (the Simulator, some Macs); turn protectsDPoPKey off on such devices"
        )
      }
      let access = try Self.signingAccessControl(requirement)
      let key: SecureEnclave.P256.Signing.PrivateKey
      do {
        key = try SecureEnclave.P256.Signing.PrivateKey(accessControl: access)
      } catch {
        throw PresenceFailure(error, operation: "create the DPoP key").error
      }
      let storedForm = requirement.rawValue + "." + key.dataRepresentation.base64EncodedString()
      return (Array(key.publicKey.x963Representation), storedForm, true)
    }

    /// Evaluates `context` for signing with the key `storedForm` (`.useKeySign` on the key's access
    /// control): the user sees `localizedReason` once.
    public func authenticate(_ context: any PresenceContext, forSigningKey storedForm: String, localizedReason: String)
      async throws
    {
      let context = try Self.context(context)
      let (requirement, _) = try Self.signingKey(storedForm)
      try await context.evaluate(
        Self.signingAccessControl(requirement), operation: .useKeySign, localizedReason: localizedReason)
    }

    /// Signs `message` (ES256, r ‖ s) in the Secure Enclave with the evaluated `context`; never asks.
    public func sign(_ message: [UInt8], withSigningKey storedForm: String, context: any PresenceContext) throws
      -> [UInt8]
    {
      let context = try Self.context(context)
      let (_, data) = try Self.signingKey(storedForm)
      do {
        let key = try SecureEnclave.P256.Signing.PrivateKey(
          dataRepresentation: data, authenticationContext: context.context)
        return Array(try key.signature(for: message).rawRepresentation)
      } catch {
        throw PresenceFailure(error, operation: "sign a DPoP proof").error
      }
    }

    /// The access control of signing keys: `.privateKeyUsage` and the requirement's flags.
    private static func signingAccessControl(_ requirement: PresenceRequirement) throws -> SecAccessControl {
      var error: Unmanaged<CFError>?
      guard
        let access = SecAccessControlCreateWithFlags(
          nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, requirement.accessControlFlags.union(.privateKeyUsage),
          &error)
      else { throw PresenceFailure(error, operation: "describe the DPoP key's access").error }
      return access
    }

    private static func signingKey(_ storedForm: String) throws -> (PresenceRequirement, Data) {
      let parts = storedForm.split(separator: ".", maxSplits: 1)
      guard parts.count == 2, let requirement = PresenceRequirement(rawValue: String(parts[0])),
        let data = Data(base64Encoded: String(parts[1]))
      else {
        throw XidError(
          .presenceKeyInvalidated, "the stored DPoP key is not a Secure Enclave key's; sign the user in again")
      }
      return (requirement, data)
    }

    // MARK: - Keychain

    private func query(tag: String) -> [CFString: Any] {
      var query: [CFString: Any] = [
        kSecClass: kSecClassKey,
        kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom,
        kSecAttrKeyClass: kSecAttrKeyClassPrivate,
        kSecAttrApplicationTag: Data(tag.utf8),
        kSecUseDataProtectionKeychain: true,
      ]
      if let accessGroup { query[kSecAttrAccessGroup] = accessGroup }
      return query
    }

    /// The private key's reference, found with `context` (`kSecUseAuthenticationContext`); `nil` when
    /// there is none. Finding it never needs the user; using it does.
    private func privateKey(tag: String, context: LAContext) throws -> SecKey? {
      var search = query(tag: tag)
      search[kSecReturnRef] = true
      search[kSecMatchLimit] = kSecMatchLimitOne
      search[kSecUseAuthenticationContext] = context
      var result: CFTypeRef?
      let status = SecItemCopyMatching(search as CFDictionary, &result)
      if status == errSecItemNotFound { return nil }
      guard status == errSecSuccess, let result, CFGetTypeID(result) == SecKeyGetTypeID() else {
        throw PresenceFailure.keychain(status: status, operation: "find the presence key").error
      }
      return (result as! SecKey)
    }

    /// The key's own access control when the keychain reports it; else the one its label names.
    private func accessControl(ofKey tag: String) throws -> SecAccessControl {
      guard let privateKey = try privateKey(tag: tag, context: Self.silentContext()) else {
        throw PresenceFailure.keychain(status: errSecItemNotFound, operation: "open the refresh token").error
      }
      let attributes = SecKeyCopyAttributes(privateKey) as? [CFString: Any] ?? [:]
      if let value = attributes[kSecAttrAccessControl] as CFTypeRef?,
        CFGetTypeID(value) == SecAccessControlGetTypeID()
      {
        return (value as! SecAccessControl)
      }
      let label = attributes[kSecAttrLabel] as? String
      let requirement =
        PresenceRequirement.allCases.first { Self.label($0) == label } ?? .deviceOwner
      var flags = requirement.accessControlFlags
      if usesSecureEnclave { flags.insert(.privateKeyUsage) }
      var error: Unmanaged<CFError>?
      guard
        let access = SecAccessControlCreateWithFlags(
          nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, flags, &error)
      else { throw PresenceFailure(error, operation: "describe the presence key's access").error }
      return access
    }

    private static func label(_ requirement: PresenceRequirement) -> String { "xid presence key (\(requirement))" }

    /// A context that never shows a prompt, for finding keys.
    private static func silentContext() -> LAContext {
      let context = LAContext()
      context.interactionNotAllowed = true
      return context
    }

    private static func context(_ context: any PresenceContext) throws -> LocalAuthenticationContext {
      guard let context = context as? LocalAuthenticationContext else {
        throw XidError(.invalidConfiguration, "SecureEnclaveKeyStore was given a context it did not make")
      }
      return context
    }

    private static func externalPublicKey(of privateKey: SecKey) throws -> [UInt8] {
      var error: Unmanaged<CFError>?
      guard let publicKey = SecKeyCopyPublicKey(privateKey),
        let data = SecKeyCopyExternalRepresentation(publicKey, &error)
      else { throw PresenceFailure(error, operation: "read the presence key's public key").error }
      let bytes = Array(data as Data)
      // CryptoKit checks that the point is a P-256 point.
      do {
        _ = try P256.KeyAgreement.PublicKey(x963Representation: bytes)
      } catch {
        throw XidError(
          .unsupportedKey,
          "the presence key is not a P-256 key (\(PresenceFailure(error, operation: "read the key").error.reason))")
      }
      return bytes
    }
  }
#endif
