#if canImport(COpenSSL)
  import COpenSSL

  /// SHA-256, SHA-512 and secure random bytes from OpenSSL 3.
  enum PlatformPrimitives {
    static func sha256(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
      [UInt8](unsafeUninitializedCapacity: 32) { digest, count in
        OpenSSL.digest(OpenSSL.sha256, bytes, into: digest.baseAddress!, length: 32)
        count = 32
      }
    }

    static func sha256(_ bytes: UnsafeRawBufferPointer, into digest: UnsafeMutablePointer<UInt8>) {
      OpenSSL.sha256(bytes, into: digest)
    }

    static func sha512(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
      [UInt8](unsafeUninitializedCapacity: 64) { digest, count in
        OpenSSL.digest(OpenSSL.sha512, bytes, into: digest.baseAddress!, length: 64)
        count = 64
      }
    }

    static func randomBytes(count: Int) throws -> [UInt8] {
      try OpenSSL.requireLibrary()
      var bytes = [UInt8](repeating: 0, count: count)
      guard count == 0 || RAND_bytes(&bytes, Int32(count)) == 1 else {
        OpenSSL.clearErrors()
        throw XidError(.cryptoFailure, "OpenSSL's random generator failed; no random bytes are available")
      }
      return bytes
    }
  }
#endif
