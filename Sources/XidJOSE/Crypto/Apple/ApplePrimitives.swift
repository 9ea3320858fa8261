#if canImport(CryptoKit) && canImport(Security)
  import CryptoKit
  import Security

  /// SHA-256 and SHA-512 from CryptoKit, and secure random bytes from the Security framework.
  enum PlatformPrimitives {
    static func sha256(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
      SHA256.hash(data: bytes).withUnsafeBytes { Array($0) }
    }

    static func sha256(_ bytes: UnsafeRawBufferPointer, into digest: UnsafeMutablePointer<UInt8>) {
      SHA256.hash(data: bytes).withUnsafeBytes { hash in
        digest.update(from: hash.bindMemory(to: UInt8.self).baseAddress!, count: 32)
      }
    }

    static func sha512(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
      SHA512.hash(data: bytes).withUnsafeBytes { Array($0) }
    }

    static func randomBytes(count: Int) throws -> [UInt8] {
      var bytes = [UInt8](repeating: 0, count: count)
      guard count == 0 || SecRandomCopyBytes(kSecRandomDefault, count, &bytes) == errSecSuccess else {
        throw XidError(.cryptoFailure, "the system's random generator failed; no random bytes are available")
      }
      return bytes
    }
  }
#endif
