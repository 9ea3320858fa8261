/// DPoP keys made and kept in software: OpenSSL on Linux, CryptoKit on Apple platforms. The private
/// key is stored as a private JWK in the session's ``TokenStorageAdapter`` (a file of mode 0600 with
/// ``FileTokenStorage``, a keychain item with ``KeychainTokenStorage``).
///
/// The default wherever no hardware key store is available, and the fallback of every other factory.
public struct SoftwareDPoPKeyFactory: DPoPKeyFactory {
  /// `"software"`.
  public static let kind = "software"

  /// Creates the factory.
  public init() {}

  /// `"software"`.
  public var kind: String { Self.kind }

  /// Always `true`.
  public var isAvailable: Bool { true }

  /// Makes a new P-256 key; its stored form is its private JWK.
  public func makeKey() throws -> (key: any DPoPKey, storedForm: String) {
    let signingKey = try JWSSigningKey.generate(for: .es256)
    let key = try SoftwareDPoPKey(signingKey)
    return (key, try signingKey.exportPrivateJWK().serialized(sortedKeys: true))
  }

  /// Restores a key from its private JWK.
  ///
  /// - Throws: ``XidError`` with ``XidError/Code/dpopKeyUnavailable`` when the stored form is not a
  ///   P-256 private JWK.
  public func restoreKey(from storedForm: String) throws -> any DPoPKey {
    do {
      let json = try JSONValue(parsing: Array(storedForm.utf8))
      return try SoftwareDPoPKey(JWSSigningKey(privateJWK: json))
    } catch let error as XidError {
      throw XidError(.dpopKeyUnavailable, "the stored DPoP key cannot be read (\(error.code)); sign the user in again")
    }
  }
}

/// A P-256 key in software, signing with XidJOSE's ES256. Its description and mirror show the
/// thumbprint only.
struct SoftwareDPoPKey: DPoPKey, CustomReflectable {
  let signingKey: JWSSigningKey
  let publicJWK: JWK
  let thumbprint: String
  var isHardwareBacked: Bool { false }

  init(_ signingKey: JWSSigningKey) throws {
    guard signingKey.algorithm == .es256 else {
      throw XidError(.unsupportedKey, "a DPoP key must be P-256 (ES256)")
    }
    self.signingKey = signingKey
    self.publicJWK = try DPoPProof.publicJWK(of: signingKey.publicJWK)
    self.thumbprint = publicJWK.thumbprint
  }

  func sign(_ message: [UInt8]) throws -> [UInt8] { try signingKey.signature(for: message) }

  var customMirror: Mirror { Mirror(self, children: ["thumbprint": thumbprint, "isHardwareBacked": false]) }
}
