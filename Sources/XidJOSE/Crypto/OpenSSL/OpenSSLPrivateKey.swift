#if canImport(COpenSSL)
  import COpenSSL

  /// A private key that makes JWS signatures with OpenSSL 3 (EVP API only).
  final class PlatformPrivateKey: Sendable {
    let algorithm: JWSAlgorithm
    private let key: OpenSSLKey
    private let template: OpenSSLOperationTemplate?

    private init(algorithm: JWSAlgorithm, key: OpenSSLKey) throws {
      self.algorithm = algorithm
      self.key = key
      switch algorithm {
      case .es256: template = OpenSSLOperationTemplate(key: key, sign: true, padding: nil)
      case .rs256: template = OpenSSLOperationTemplate(key: key, sign: true, padding: RSA_PKCS1_PADDING)
      case .ps256: template = OpenSSLOperationTemplate(key: key, sign: true, padding: RSA_PKCS1_PSS_PADDING)
      case .edDSA: template = nil
      }
      guard algorithm == .edDSA || template != nil else {
        throw XidError(.cryptoFailure, "OpenSSL could not prepare \(algorithm) signing")
      }
    }

    /// Generates a new key for `algorithm` (P-256, RSA-2048 or Ed25519).
    static func generate(for algorithm: JWSAlgorithm) throws -> PlatformPrivateKey {
      try OpenSSL.requireLibrary()
      let type: String
      switch algorithm {
      case .es256: type = "EC"
      case .rs256, .ps256: type = "RSA"
      case .edDSA: type = "ED25519"
      }
      guard let pointer = xid_pkey_generate(type, 2048) else {
        OpenSSL.clearErrors()
        throw XidError(.cryptoFailure, "OpenSSL could not generate a \(algorithm) key")
      }
      return try PlatformPrivateKey(algorithm: algorithm, key: OpenSSLKey(pointer))
    }

    /// A P-256 key pair from its private scalar and public point, which must be the scalar's.
    static func p256(d: [UInt8], x: [UInt8], y: [UInt8]) throws -> PlatformPrivateKey {
      try OpenSSL.requireLibrary()
      let point = [0x04] + x + y
      guard let pointer = xid_pkey_p256(point, point.count, d, d.count) else {
        OpenSSL.clearErrors()
        throw XidError(.invalidKey, "OpenSSL rejected the P-256 private JWK")
      }
      let key = OpenSSLKey(pointer)
      // OpenSSL takes the point as given; the pairwise check computes d·G and compares.
      let context = EVP_PKEY_CTX_new_from_pkey(nil, pointer, nil)
      defer { EVP_PKEY_CTX_free(context) }
      guard let context, EVP_PKEY_pairwise_check(context) == 1 else {
        OpenSSL.clearErrors()
        throw XidError(.invalidKey, "the P-256 private JWK's x and y do not match its d")
      }
      return try PlatformPrivateKey(algorithm: .es256, key: key)
    }

    /// An Ed25519 key pair from its 32-byte seed and public key, which must be the seed's.
    static func ed25519(seed: [UInt8], x: [UInt8]) throws -> PlatformPrivateKey {
      try OpenSSL.requireLibrary()
      // Made from the seed alone, so that the public key is derived, never taken from the JWK:
      // OpenSSL keeps a public key given with the seed without checking that they belong together.
      guard let pointer = EVP_PKEY_new_raw_private_key_ex(nil, "ED25519", nil, seed, seed.count) else {
        OpenSSL.clearErrors()
        throw XidError(.invalidKey, "OpenSSL rejected the Ed25519 private JWK")
      }
      let key = OpenSSLKey(pointer)
      var derived = [UInt8](repeating: 0, count: 32)
      var length = derived.count
      guard EVP_PKEY_get_raw_public_key(pointer, &derived, &length) == 1, length == 32 else {
        OpenSSL.clearErrors()
        throw XidError(.cryptoFailure, "OpenSSL could not derive the Ed25519 public key")
      }
      guard derived == x else { throw XidError(.invalidKey, "the Ed25519 private JWK's x does not match its d") }
      return try PlatformPrivateKey(algorithm: .edDSA, key: key)
    }

    /// The public half, as JWK members (`kty` and the public parameters).
    func publicJWKMembers() throws -> [String: JSONValue] {
      switch algorithm {
      case .es256:
        guard let x = key.bigNumber("qx", length: 32), let y = key.bigNumber("qy", length: 32) else { break }
        return ["kty": "EC", "crv": "P-256", "x": .string(Base64URL.encode(x)), "y": .string(Base64URL.encode(y))]
      case .rs256, .ps256:
        guard let n = key.bigNumber("n"), let e = key.bigNumber("e") else { break }
        return ["kty": "RSA", "n": .string(Base64URL.encode(n)), "e": .string(Base64URL.encode(e))]
      case .edDSA:
        var x = [UInt8](repeating: 0, count: 32)
        var length = 32
        guard EVP_PKEY_get_raw_public_key(key.pointer, &x, &length) == 1, length == 32 else { break }
        return ["kty": "OKP", "crv": "Ed25519", "x": .string(Base64URL.encode(x))]
      }
      OpenSSL.clearErrors()
      throw XidError(.cryptoFailure, "OpenSSL could not export the public key")
    }

    /// The private scalar of a P-256 key, 32 big-endian bytes; `nil` for other keys.
    func privateScalar() -> [UInt8]? {
      guard algorithm == .es256 else { return nil }
      return key.bigNumber("priv", length: 32)
    }

    /// Signs `message`, returning the JWS signature bytes (r ‖ s for ES256).
    func signature(for message: UnsafeRawBufferPointer) throws -> [UInt8] {
      let result: [UInt8]?
      switch algorithm {
      case .edDSA: result = signEd25519(message)
      case .es256: result = signP256(message)
      case .rs256, .ps256: result = signDigest(message)
      }
      guard let result else {
        OpenSSL.clearErrors()
        throw XidError(.cryptoFailure, "OpenSSL could not make a \(algorithm) signature")
      }
      return result
    }

    private func signDigest(_ message: UnsafeRawBufferPointer) -> [UInt8]? {
      withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { digest in
        OpenSSL.sha256(message, into: digest.baseAddress!)
        return template?.withContext { context -> [UInt8]? in
          var length = 0
          guard EVP_PKEY_sign(context, nil, &length, digest.baseAddress, 32) == 1 else { return nil }
          var output = [UInt8](repeating: 0, count: length)
          guard EVP_PKEY_sign(context, &output, &length, digest.baseAddress, 32) == 1 else { return nil }
          return Array(output.prefix(length))
        }
      }
    }

    /// An ES256 signature as r ‖ s: SHA-256, ECDSA into a stack buffer, and its DER read in place
    /// (a proof is signed for every DPoP request, so no BIGNUMs and no size query).
    private func signP256(_ message: UnsafeRawBufferPointer) -> [UInt8]? {
      withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32 + ECDSASignatureDER.maximumLength) { buffer in
        let digest = buffer.baseAddress!
        let der = digest + 32
        OpenSSL.sha256(message, into: digest)
        return template?.withContext { context -> [UInt8]? in
          var length = ECDSASignatureDER.maximumLength
          guard EVP_PKEY_sign(context, der, &length, digest, 32) == 1 else { return nil }
          return ECDSASignatureDER.rawP256(fromDER: UnsafeBufferPointer(start: der, count: length))
        }
      }
    }

    private func signEd25519(_ message: UnsafeRawBufferPointer) -> [UInt8]? {
      guard let context = EVP_MD_CTX_new() else { return nil }
      defer { EVP_MD_CTX_free(context) }
      guard EVP_DigestSignInit_ex(context, nil, nil, nil, nil, key.pointer, nil) == 1 else { return nil }
      var output = [UInt8](repeating: 0, count: 64)
      var length = 64
      guard
        EVP_DigestSign(
          context, &output, &length, message.baseAddress?.assumingMemoryBound(to: UInt8.self), message.count) == 1,
        length == 64
      else { return nil }
      return output
    }
  }
#endif
