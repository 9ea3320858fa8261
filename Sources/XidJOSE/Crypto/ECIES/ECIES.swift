/// ECIES on P-256 exactly as Apple's Security framework does it with
/// `SecKeyAlgorithm.eciesEncryptionCofactorVariableIVX963SHA256AESGCM`, so that a software key (Linux,
/// tests) and a Secure Enclave key seal and open the same bytes:
///
/// 1. an ephemeral P-256 key pair is made for each message;
/// 2. ECDH of the ephemeral private key and the recipient's public key gives the shared secret (P-256
///    has cofactor 1, so cofactor ECDH is plain ECDH);
/// 3. the ANSI X9.63 KDF with SHA-256 stretches it to 32 bytes, with the ephemeral public key
///    (65-byte X9.63 form) as shared info;
/// 4. AES-128-GCM encrypts with the first 16 bytes as key and the last 16 as IV, without additional
///    data, and a 16-byte tag.
///
/// The sealed form is `ephemeral public key (65 bytes) ‖ ciphertext ‖ tag (16 bytes)`. The primitives
/// are the platform's (OpenSSL 3 EVP on Linux, CryptoKit on Apple platforms); nothing here is
/// arithmetic of its own.
package enum ECIESP256 {
  /// The bytes a sealed message adds to its plaintext: the ephemeral public key and the tag.
  package static let overhead = 65 + 16

  /// Seals `plaintext` for the holder of the private key of `recipient` (a 65-byte X9.63 public key).
  ///
  /// - Throws: ``XidError/Code/invalidKey`` when `recipient` is not a P-256 point;
  ///   ``XidError/Code/cryptoFailure`` when the platform fails.
  package static func seal(_ plaintext: [UInt8], to recipient: [UInt8]) throws -> [UInt8] {
    try seal(plaintext, to: recipient, ephemeral: .generate())
  }

  /// Seals with a given ephemeral key: for known-answer tests only, since reusing one breaks ECIES.
  package static func seal(_ plaintext: [UInt8], to recipient: [UInt8], ephemeral: P256KeyAgreementKey) throws
    -> [UInt8]
  {
    try P256KeyAgreementKey.requirePoint(recipient)
    let derived = try PlatformECIES.sharedKey(
      of: ephemeral, peer: recipient, sharedInfo: ephemeral.publicKey, count: 32)
    let (ciphertext, tag) = try PlatformECIES.aesGCMSeal(
      plaintext, key: Array(derived[..<16]), iv: Array(derived[16...]))
    return ephemeral.publicKey + ciphertext + tag
  }

  /// Opens `sealed` with `key`.
  ///
  /// - Throws: ``XidError/Code/decryptionFailed`` when `sealed` was not sealed for `key` or was
  ///   changed; ``XidError/Code/cryptoFailure`` when the platform fails.
  package static func open(_ sealed: [UInt8], with key: P256KeyAgreementKey) throws -> [UInt8] {
    guard sealed.count >= overhead, sealed[0] == 0x04 else {
      throw XidError(.decryptionFailed, "the sealed data is too short or does not start with an ephemeral P-256 key")
    }
    let ephemeral = Array(sealed[..<65])
    let derived: [UInt8]
    do {
      derived = try PlatformECIES.sharedKey(of: key, peer: ephemeral, sharedInfo: ephemeral, count: 32)
    } catch let error as XidError where error.code == .invalidKey {
      throw XidError(.decryptionFailed, "the sealed data's ephemeral key is not a P-256 point")
    }
    return try PlatformECIES.aesGCMOpen(
      Array(sealed[65..<(sealed.count - 16)]), tag: Array(sealed[(sealed.count - 16)...]),
      key: Array(derived[..<16]), iv: Array(derived[16...]))
  }
}

/// A P-256 key pair for key agreement (ECIES), as bytes: the 32-byte private scalar and the 65-byte
/// X9.63 public key (`0x04 ‖ x ‖ y`). It is what a software key store persists; the scalar never
/// appears in `description`.
package struct P256KeyAgreementKey: Sendable, Hashable, CustomStringConvertible {
  /// The private scalar `d`, 32 bytes big-endian.
  package let scalar: [UInt8]
  /// The public key in X9.63 form, 65 bytes.
  package let publicKey: [UInt8]

  private init(unchecked scalar: [UInt8], publicKey: [UInt8]) {
    self.scalar = scalar
    self.publicKey = publicKey
  }

  /// A new key pair from the platform's generator.
  package static func generate() throws -> P256KeyAgreementKey {
    let (scalar, publicKey) = try PlatformECIES.generateP256()
    return P256KeyAgreementKey(unchecked: scalar, publicKey: publicKey)
  }

  /// A key pair from stored bytes, checked to belong together.
  ///
  /// - Throws: ``XidError/Code/invalidKey`` when the scalar and the point do not form a P-256 key pair.
  package init(scalar: [UInt8], publicKey: [UInt8]) throws {
    guard scalar.count == 32 else { throw XidError(.invalidKey, "a P-256 private scalar is 32 bytes") }
    try Self.requirePoint(publicKey)
    try PlatformECIES.checkPair(scalar: scalar, publicKey: publicKey)
    self.init(unchecked: scalar, publicKey: publicKey)
  }

  /// The key's public half as JWK members (`kty`, `crv`, `x`, `y`).
  package var publicJWKMembers: [String: JSONValue] {
    [
      "kty": "EC", "crv": "P-256", "x": .string(Base64URL.encode(publicKey[1..<33])),
      "y": .string(Base64URL.encode(publicKey[33..<65])),
    ]
  }

  /// Checks the shape of an X9.63 uncompressed P-256 point; the platform checks the curve equation.
  static func requirePoint(_ point: [UInt8]) throws {
    guard point.count == 65, point[0] == 0x04 else {
      throw XidError(.invalidKey, "a P-256 public key in X9.63 form is 65 bytes starting with 0x04")
    }
  }

  /// `P256KeyAgreementKey(public: <first bytes of x>…)`; never the scalar.
  package var description: String {
    "P256KeyAgreementKey(public: \(Base64URL.encode(publicKey[1..<9]))…)"
  }
}

extension P256KeyAgreementKey: CustomReflectable {
  /// The public key only: `dump` never shows the scalar.
  package var customMirror: Mirror { Mirror(self, children: ["publicKey": publicKey]) }
}
