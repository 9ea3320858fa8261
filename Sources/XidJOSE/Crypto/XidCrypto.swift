/// The primitives the rest of Xid needs besides signatures, from the platform's crypto: SHA-256 (PKCE,
/// `at_hash`, thumbprints), SHA-512 (`at_hash` of EdDSA tokens) and secure random bytes (`state`,
/// `nonce`, PKCE, `jti`).
public enum XidCrypto {
  /// The SHA-512 digest of `bytes`.
  public static func sha512(_ bytes: some Sequence<UInt8>) -> [UInt8] {
    Array(bytes).withUnsafeBytes { PlatformPrimitives.sha512($0) }
  }

  /// The SHA-256 digest of `bytes`.
  @inlinable
  public static func sha256(_ bytes: some Sequence<UInt8>) -> [UInt8] {
    // Inlined, so that a caller's contiguous bytes reach the digest without generic dispatch.
    if let digest = bytes.withContiguousStorageIfAvailable({ sha256(contiguous: UnsafeRawBufferPointer($0)) }) {
      return digest
    }
    return Array(bytes).withUnsafeBytes { sha256(contiguous: $0) }
  }

  @usableFromInline
  static func sha256(contiguous bytes: UnsafeRawBufferPointer) -> [UInt8] { PlatformPrimitives.sha256(bytes) }

  /// The SHA-256 digest of `bytes` into the 32 bytes at `digest`, for callers that hash on every
  /// request and keep the digest on the stack.
  package static func sha256(_ bytes: UnsafeRawBufferPointer, into digest: UnsafeMutablePointer<UInt8>) {
    PlatformPrimitives.sha256(bytes, into: digest)
  }

  /// `count` bytes from the platform's cryptographically secure random generator.
  ///
  /// - Throws: ``XidError`` with code ``XidError/Code/cryptoFailure`` if the generator fails.
  public static func randomBytes(count: Int) throws -> [UInt8] {
    precondition(count >= 0, "randomBytes(count:) needs a non-negative count")
    return try PlatformPrimitives.randomBytes(count: count)
  }
}
