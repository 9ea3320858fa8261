#if canImport(CryptoKit) && canImport(Security)
  import Foundation
  import Security

  /// An RSA `SecKey`, public or private, with the JWS operations Xid needs (RS256, PS256).
  ///
  /// `SecKey` objects are immutable once created and the Security framework documents them as safe to
  /// use from several threads, but the SDK does not mark them `Sendable`; this wrapper is the one
  /// place that vouches for it, hence `@unchecked Sendable`.
  final class AppleRSAKey: @unchecked Sendable {
    let key: SecKey

    private init(_ key: SecKey) { self.key = key }

    /// A public key from its big-endian modulus and exponent, imported as PKCS#1 DER.
    static func publicKey(modulus: [UInt8], exponent: [UInt8]) -> AppleRSAKey? {
      let der = AppleDER.rsaPublicKey(modulus: modulus, exponent: exponent)
      let attributes: [CFString: Any] = [kSecAttrKeyType: kSecAttrKeyTypeRSA, kSecAttrKeyClass: kSecAttrKeyClassPublic]
      guard let key = SecKeyCreateWithData(Data(der) as CFData, attributes as CFDictionary, nil) else { return nil }
      return AppleRSAKey(key)
    }

    /// A new private key of `bits` bits, kept in memory only (`kSecAttrIsPermanent` defaults to `false`).
    static func generate(bits: Int) -> AppleRSAKey? {
      let attributes: [CFString: Any] = [kSecAttrKeyType: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits: bits]
      guard let key = SecKeyCreateRandomKey(attributes as CFDictionary, nil) else { return nil }
      return AppleRSAKey(key)
    }

    /// The public modulus and exponent, big-endian without leading zero bytes.
    func publicComponents() -> (modulus: [UInt8], exponent: [UInt8])? {
      guard let publicKey = SecKeyCopyPublicKey(key),
        let der = SecKeyCopyExternalRepresentation(publicKey, nil)
      else { return nil }
      return AppleDER.parseRSAPublicKey(Array(der as Data))
    }

    /// Whether `signature` is a valid `algorithm` signature of `message`; `false` for a non-RSA algorithm.
    func isValidSignature(
      _ signature: UnsafeRawBufferPointer, for message: UnsafeRawBufferPointer, algorithm: JWSAlgorithm
    ) -> Bool {
      // An RSA signature is exactly as long as the modulus (RFC 8017 §8.1.2, §8.2.2).
      guard let secAlgorithm = Self.secKeyAlgorithm(algorithm), signature.count == SecKeyGetBlockSize(key) else {
        return false
      }
      return SecKeyVerifySignature(key, secAlgorithm, Data(message) as CFData, Data(signature) as CFData, nil)
    }

    /// An `algorithm` signature of `message` with this private key; `nil` on failure.
    func signature(for message: UnsafeRawBufferPointer, algorithm: JWSAlgorithm) -> [UInt8]? {
      guard let secAlgorithm = Self.secKeyAlgorithm(algorithm),
        let signature = SecKeyCreateSignature(key, secAlgorithm, Data(message) as CFData, nil)
      else { return nil }
      return Array(signature as Data)
    }

    /// RS256 is PKCS #1 v1.5 with SHA-256; PS256 is PSS with SHA-256, MGF1-SHA-256 and a salt as long
    /// as the hash (RFC 7518 §3.5), which is what the Security framework's PSS algorithms use.
    private static func secKeyAlgorithm(_ algorithm: JWSAlgorithm) -> SecKeyAlgorithm? {
      switch algorithm {
      case .rs256: .rsaSignatureMessagePKCS1v15SHA256
      case .ps256: .rsaSignatureMessagePSSSHA256
      case .es256, .edDSA: nil
      }
    }
  }
#endif
