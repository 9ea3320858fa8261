#if canImport(COpenSSL)
  import COpenSSL

  /// A public key prepared for signature verification with OpenSSL 3 (EVP API only).
  ///
  /// Built once from JWK parameters with `EVP_PKEY_fromdata` and checked with `EVP_PKEY_public_check`;
  /// each verification then only duplicates a prepared context.
  final class PlatformPublicKey: Sendable {
    private let key: OpenSSLKey
    private let kind: Kind

    private enum Kind {
      case p256(OpenSSLOperationTemplate)
      /// `modulusLength`: the modulus's length in bytes, which every signature must have.
      case rsa(pkcs1: OpenSSLOperationTemplate, pss: OpenSSLOperationTemplate, modulusLength: Int)
      case ed25519(OpenSSLDigestVerifyTemplate)
    }

    private init(key: OpenSSLKey, kind: Kind) {
      self.key = key
      self.kind = kind
    }

    /// A P-256 key from its affine coordinates (32 bytes each).
    static func p256(x: [UInt8], y: [UInt8]) throws -> PlatformPublicKey {
      try OpenSSL.requireLibrary()
      let point = [0x04] + x + y
      guard let pointer = xid_pkey_p256(point, point.count, nil, 0) else {
        OpenSSL.clearErrors()
        throw XidError(.invalidKey, "P-256 JWK coordinates are not a point on the curve")
      }
      let key = OpenSSLKey(pointer)
      guard xid_pkey_public_check(pointer) == 1 else {
        OpenSSL.clearErrors()
        throw XidError(.invalidKey, "P-256 JWK coordinates are not a valid public point")
      }
      guard let template = OpenSSLOperationTemplate(key: key, sign: false, padding: nil) else {
        throw XidError(.cryptoFailure, "OpenSSL could not prepare ECDSA verification")
      }
      return PlatformPublicKey(key: key, kind: .p256(template))
    }

    /// An RSA key from its big-endian modulus and public exponent.
    static func rsa(modulus: [UInt8], exponent: [UInt8]) throws -> PlatformPublicKey {
      try OpenSSL.requireLibrary()
      guard let pointer = xid_pkey_rsa_public(modulus, modulus.count, exponent, exponent.count) else {
        OpenSSL.clearErrors()
        throw XidError(.invalidKey, "OpenSSL rejected the RSA JWK parameters")
      }
      let key = OpenSSLKey(pointer)
      guard let pkcs1 = OpenSSLOperationTemplate(key: key, sign: false, padding: RSA_PKCS1_PADDING, digestInfo: true),
        let pss = OpenSSLOperationTemplate(key: key, sign: false, padding: RSA_PKCS1_PSS_PADDING)
      else { throw XidError(.cryptoFailure, "OpenSSL could not prepare RSA verification") }
      return PlatformPublicKey(
        key: key, kind: .rsa(pkcs1: pkcs1, pss: pss, modulusLength: modulus.drop { $0 == 0 }.count))
    }

    /// An Ed25519 key from its 32-byte encoding.
    static func ed25519(x: [UInt8]) throws -> PlatformPublicKey {
      try OpenSSL.requireLibrary()
      guard let pointer = xid_pkey_ed25519(x, nil) else {
        OpenSSL.clearErrors()
        throw XidError(.invalidKey, "OpenSSL rejected the Ed25519 JWK public key")
      }
      let key = OpenSSLKey(pointer)
      guard let template = OpenSSLDigestVerifyTemplate(key: key) else {
        throw XidError(.cryptoFailure, "OpenSSL could not prepare Ed25519 verification")
      }
      return PlatformPublicKey(key: key, kind: .ed25519(template))
    }

    /// Whether `signature` is a valid JWS signature of `algorithm` over `message` with this key.
    /// The caller has already checked that the algorithm fits the key's type.
    func isValidSignature(
      _ signature: UnsafeRawBufferPointer, for message: UnsafeRawBufferPointer, algorithm: JWSAlgorithm
    ) -> Bool {
      let valid: Bool
      switch (kind, algorithm) {
      case (.p256(let template), .es256):
        valid = verifyECDSA(template, signature, message)
      // An RSA signature is exactly as long as the modulus (RFC 8017 §8.1.2, §8.2.2), as the Apple
      // path checks too: OpenSSL's PSS verification reads a shorter one as the same number.
      case (.rsa(let pkcs1, _, let modulusLength), .rs256):
        valid =
          signature.count == modulusLength
          && verifyDigest(pkcs1, signature, message, prefix: Self.sha256DigestInfoPrefix)
      case (.rsa(_, let pss, let modulusLength), .ps256):
        valid = signature.count == modulusLength && verifyDigest(pss, signature, message)
      case (.ed25519(let template), .edDSA):
        valid = signature.count == 64 && template.verify(signature, message)
      default:
        valid = false
      }
      if !valid { OpenSSL.clearErrors() }
      return valid
    }

    /// Verifies `signature` over the SHA-256 of `message`, handed to OpenSSL after `prefix`.
    ///
    /// RSASSA-PKCS1-v1_5 passes the DER of a SHA-256 DigestInfo up to the hash
    /// (``sha256DigestInfoPrefix``), with a context that knows no digest: OpenSSL then compares the
    /// signature's whole encoded message with it (RFC 8017 §9.2), as it would compare the one it
    /// builds itself, without allocating and wiping one per signature. The others pass no prefix.
    private func verifyDigest(
      _ template: OpenSSLOperationTemplate, _ signature: UnsafeRawBufferPointer, _ message: UnsafeRawBufferPointer,
      prefix: [UInt8] = []
    ) -> Bool {
      withUnsafeTemporaryAllocation(of: UInt8.self, capacity: prefix.count + 32) { input in
        _ = input.initialize(from: prefix)
        OpenSSL.sha256(message, into: input.baseAddress! + prefix.count)
        // 1: valid, 0: not valid, below 0: an error (the context is then not kept).
        return template.withContext { context -> Bool? in
          let result = EVP_PKEY_verify(
            context, signature.baseAddress?.assumingMemoryBound(to: UInt8.self), signature.count,
            input.baseAddress, input.count)
          return result < 0 ? nil : result == 1
        } ?? false
      }
    }

    /// The DER of a SHA-256 DigestInfo up to the hash itself (RFC 8017 §9.2, note 1).
    private static let sha256DigestInfoPrefix: [UInt8] = [
      0x30, 0x31, 0x30, 0x0D, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00, 0x04, 0x20,
    ]

    private func verifyECDSA(
      _ template: OpenSSLOperationTemplate, _ signature: UnsafeRawBufferPointer, _ message: UnsafeRawBufferPointer
    ) -> Bool {
      // JWS ES256 signatures are r ‖ s, exactly 64 bytes (RFC 7518 §3.4); OpenSSL wants DER.
      guard signature.count == 64 else { return false }
      return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: ECDSASignatureDER.maximumLength) { der in
        let length = ECDSASignatureDER.encode(rawP256: signature, into: der)
        return verifyDigest(template, UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: der[..<length])), message)
      }
    }
  }
#endif
