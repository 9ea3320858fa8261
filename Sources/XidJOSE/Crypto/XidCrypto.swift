/// The primitives the rest of Xid needs besides signatures, from the platform's crypto: SHA-256 (PKCE,
/// `at_hash`, thumbprints), SHA-512 (`at_hash` of EdDSA tokens) and secure random bytes (`state`,
/// `nonce`, PKCE, `jti`).
public enum XidCrypto {
  /// The SHA-512 digest of `bytes`.
  public static func sha512(_ bytes: some Sequence<UInt8>) -> [UInt8] {
    Array(bytes).withUnsafeBytes { PlatformPrimitives.sha512($0) }
  }

  /// The SHA-256 digest of `bytes`.
  public static func sha256(_ bytes: some Sequence<UInt8>) -> [UInt8] {
    if let digest = bytes.withContiguousStorageIfAvailable({ PlatformPrimitives.sha256(UnsafeRawBufferPointer($0)) }) {
      return digest
    }
    return Array(bytes).withUnsafeBytes { PlatformPrimitives.sha256($0) }
  }

  /// `count` bytes from the platform's cryptographically secure random generator.
  ///
  /// - Throws: ``XidError`` with code ``XidError/Code/cryptoFailure`` if the generator fails.
  public static func randomBytes(count: Int) throws -> [UInt8] {
    precondition(count >= 0, "randomBytes(count:) needs a non-negative count")
    return try PlatformPrimitives.randomBytes(count: count)
  }
}
