#if canImport(COpenSSL)
  import COpenSSL

  /// ECIES's primitives from OpenSSL 3 (EVP only): P-256 keys, ECDH, the X9.63 KDF and AES-GCM.
  enum PlatformECIES {
    /// A new P-256 key pair: its 32-byte scalar and 65-byte X9.63 public key.
    static func generateP256() throws -> (scalar: [UInt8], publicKey: [UInt8]) {
      try OpenSSL.requireLibrary()
      guard let pointer = xid_pkey_generate("EC", 0) else {
        OpenSSL.clearErrors()
        throw XidError(.cryptoFailure, "OpenSSL could not generate a P-256 key")
      }
      let key = OpenSSLKey(pointer)
      guard let d = key.bigNumber("priv", length: 32), let x = key.bigNumber("qx", length: 32),
        let y = key.bigNumber("qy", length: 32)
      else {
        OpenSSL.clearErrors()
        throw XidError(.cryptoFailure, "OpenSSL could not export a new P-256 key")
      }
      return (d, [0x04] + x + y)
    }

    /// Checks that `scalar` and `publicKey` form a P-256 key pair.
    static func checkPair(scalar: [UInt8], publicKey: [UInt8]) throws {
      _ = try keyPair(scalar: scalar, publicKey: publicKey)
    }

    /// ECDH of `key` with `peer`, stretched by the X9.63 KDF with SHA-256 and `sharedInfo` to `count`
    /// bytes.
    static func sharedKey(of key: P256KeyAgreementKey, peer: [UInt8], sharedInfo: [UInt8], count: Int) throws
      -> [UInt8]
    {
      try x963KDFSHA256(
        sharedSecret: ecdh(scalar: key.scalar, publicKey: key.publicKey, peer: peer),
        sharedInfo: sharedInfo, count: count)
    }

    /// The raw ECDH shared secret (x coordinate, 32 bytes) of a key pair and a peer's public key.
    static func ecdh(scalar: [UInt8], publicKey: [UInt8], peer: [UInt8]) throws -> [UInt8] {
      try OpenSSL.requireLibrary()
      let own = try keyPair(scalar: scalar, publicKey: publicKey)
      guard let peerPointer = xid_pkey_p256(peer, peer.count, nil, 0) else {
        OpenSSL.clearErrors()
        throw XidError(.invalidKey, "the peer's key is not a P-256 point")
      }
      let peerKey = OpenSSLKey(peerPointer)
      var secret = [UInt8](repeating: 0, count: 32)
      guard xid_ecdh_derive(own.pointer, peerKey.pointer, &secret, secret.count) == 32 else {
        OpenSSL.clearErrors()
        throw XidError(.invalidKey, "OpenSSL refused the peer's P-256 key for ECDH")
      }
      return secret
    }

    /// The ANSI X9.63 KDF with SHA-256.
    static func x963KDFSHA256(sharedSecret: [UInt8], sharedInfo: [UInt8], count: Int) throws -> [UInt8] {
      try OpenSSL.requireLibrary()
      var output = [UInt8](repeating: 0, count: count)
      guard xid_x963kdf_sha256(sharedSecret, sharedSecret.count, sharedInfo, sharedInfo.count, &output, count) == 1
      else {
        OpenSSL.clearErrors()
        throw XidError(.cryptoFailure, "OpenSSL could not run the X9.63 KDF")
      }
      return output
    }

    /// AES-GCM encryption with a 16- or 32-byte key, any IV length, no additional data; a 16-byte tag.
    static func aesGCMSeal(_ plaintext: [UInt8], key: [UInt8], iv: [UInt8]) throws -> (
      ciphertext: [UInt8], tag: [UInt8]
    ) {
      try OpenSSL.requireLibrary()
      var output = [UInt8](repeating: 0, count: max(plaintext.count, 1))
      var tag = [UInt8](repeating: 0, count: 16)
      let input = plaintext.isEmpty ? [0] : plaintext
      guard xid_aes_gcm(1, key, key.count, iv, iv.count, input, plaintext.count, &output, &tag) == 1 else {
        OpenSSL.clearErrors()
        throw XidError(.cryptoFailure, "OpenSSL could not encrypt with AES-GCM")
      }
      return (Array(output.prefix(plaintext.count)), tag)
    }

    /// AES-GCM decryption; see ``aesGCMSeal(_:key:iv:)``.
    static func aesGCMOpen(_ ciphertext: [UInt8], tag: [UInt8], key: [UInt8], iv: [UInt8]) throws -> [UInt8] {
      try OpenSSL.requireLibrary()
      var output = [UInt8](repeating: 0, count: max(ciphertext.count, 1))
      var tag = tag
      let input = ciphertext.isEmpty ? [0] : ciphertext
      guard tag.count == 16, xid_aes_gcm(0, key, key.count, iv, iv.count, input, ciphertext.count, &output, &tag) == 1
      else {
        OpenSSL.clearErrors()
        throw XidError(.decryptionFailed, "the sealed data does not open with this key (the AES-GCM tag is wrong)")
      }
      return Array(output.prefix(ciphertext.count))
    }

    private static func keyPair(scalar: [UInt8], publicKey: [UInt8]) throws -> OpenSSLKey {
      try OpenSSL.requireLibrary()
      guard let pointer = xid_pkey_p256(publicKey, publicKey.count, scalar, scalar.count) else {
        OpenSSL.clearErrors()
        throw XidError(.invalidKey, "OpenSSL rejected the P-256 key pair")
      }
      let key = OpenSSLKey(pointer)
      guard xid_pkey_pairwise_check(pointer) == 1 else {
        OpenSSL.clearErrors()
        throw XidError(.invalidKey, "the P-256 private scalar does not belong to the public key")
      }
      return key
    }
  }
#endif
