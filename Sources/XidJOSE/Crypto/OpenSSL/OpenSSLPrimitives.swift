#if canImport(COpenSSL)
  import COpenSSL

  /// SHA-256 and secure random bytes from OpenSSL 3.
  enum PlatformPrimitives {
    static func sha256(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
      [UInt8](unsafeUninitializedCapacity: 32) { digest, count in
        OpenSSL.sha256(bytes, into: digest.baseAddress!)
        count = 32
      }
    }

    static func randomBytes(count: Int) throws -> [UInt8] {
      var bytes = [UInt8](repeating: 0, count: count)
      guard count == 0 || RAND_bytes(&bytes, Int32(count)) == 1 else {
        OpenSSL.clearErrors()
        throw XidError(.cryptoFailure, "OpenSSL's random generator failed; no random bytes are available")
      }
      return bytes
    }
  }
#endif
