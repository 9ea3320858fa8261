#if canImport(COpenSSL)
  import COpenSSL
  import COpenSSLLoader
  import Foundation
  import Synchronization

  /// OpenSSL objects that are fetched once per process and shared: fetching an algorithm is the
  /// expensive part of an OpenSSL 3 operation, so the SHA-256 implementation is looked up only once.
  enum OpenSSL {
    /// The SHA-256 message digest, fetched once. OpenSSL's fetched methods are immutable and thread-safe.
    nonisolated(unsafe) static let sha256: OpaquePointer = fetchDigest("SHA2-256")
    /// The SHA-512 message digest, fetched once.
    nonisolated(unsafe) static let sha512: OpaquePointer = fetchDigest("SHA2-512")

    private static func fetchDigest(_ name: String) -> OpaquePointer {
      if let reason = xid_libcrypto_load_error() {
        fatalError("Xid needs OpenSSL 3 for \(name): \(String(cString: reason)); \(installHint)")
      }
      guard let md = EVP_MD_fetch(nil, name, nil) else {
        fatalError("OpenSSL cannot provide \(name); libcrypto is broken or misconfigured")
      }
      return md
    }

    private static let installHint = "install OpenSSL 3's libcrypto (Debian and Ubuntu: apt-get install libssl3)"

    /// Loads libcrypto if that has not been done yet: Xid opens it on the first cryptographic
    /// operation, not at the program's start (Sources/COpenSSLLoader).
    ///
    /// - Throws: ``XidError/Code/cryptoFailure`` saying why when it cannot be loaded.
    static func requireLibrary() throws {
      if let reason = xid_libcrypto_load_error() {
        throw XidError(.cryptoFailure, "\(String(cString: reason)); \(installHint)")
      }
    }

    /// Clears OpenSSL's thread-local error queue after a failure, so that a later, unrelated call does
    /// not report a stale error.
    static func clearErrors() { ERR_clear_error() }

    /// SHA-256 of `bytes` into a 32-byte buffer.
    static func sha256(_ bytes: UnsafeRawBufferPointer, into digest: UnsafeMutablePointer<UInt8>) {
      self.digest(sha256, bytes, into: digest, length: 32)
    }

    /// The digest `md` of `bytes` into a buffer of `length` bytes, the digest's size.
    ///
    /// With the calling thread's digest context (``DigestContext``): `EVP_Digest` makes and frees one
    /// per call, which cost a fifth of hashing a 1 KB token's signing input.
    static func digest(
      _ md: OpaquePointer, _ bytes: UnsafeRawBufferPointer, into digest: UnsafeMutablePointer<UInt8>, length: Int
    ) {
      var written: UInt32 = 0
      guard let context = DigestContext.current(), EVP_DigestInit_ex2(context, md, nil) == 1,
        EVP_DigestUpdate(context, bytes.baseAddress, bytes.count) == 1,
        EVP_DigestFinal_ex(context, digest, &written) == 1, written == length
      else {
        fatalError("OpenSSL could not compute a message digest")
      }
    }
  }

  /// One `EVP_MD_CTX` per thread, kept for the thread's next digests: `EVP_DigestInit_ex2` resets a
  /// context for another digest without freeing it, and a digest runs start to end on one thread
  /// (it never suspends), so no two digests share one. The context is freed when its thread ends.
  ///
  /// Per thread rather than a locked pool of spares: the lock and the pool's bookkeeping cost a
  /// third of hashing a DPoP proof's signing input.
  enum DigestContext {
    private static let key: pthread_key_t = {
      var key = pthread_key_t()
      let created = pthread_key_create(&key) { context in
        EVP_MD_CTX_free(OpaquePointer(context))
      }
      precondition(created == 0, "Xid could not create the thread-specific key of its digest contexts")
      return key
    }()

    /// The calling thread's context, made on its first digest; `nil` when OpenSSL cannot make one.
    static func current() -> OpaquePointer? {
      if let context = pthread_getspecific(key) { return OpaquePointer(context) }
      guard let context = EVP_MD_CTX_new() else { return nil }
      guard pthread_setspecific(key, UnsafeRawPointer(context)) == 0 else {
        EVP_MD_CTX_free(context)
        return nil
      }
      return context
    }
  }

  /// An owned `EVP_PKEY`, freed when the last reference goes. OpenSSL keys are reference-counted and
  /// safe to use from several threads for verification and signing once built.
  final class OpenSSLKey: @unchecked Sendable {
    let pointer: OpaquePointer

    init(_ pointer: OpaquePointer) { self.pointer = pointer }

    deinit { EVP_PKEY_free(pointer) }

    /// A big-number parameter of the key (such as `n`, `e`, `qx`) as big-endian bytes, left-padded to
    /// `length` when it is given.
    func bigNumber(_ name: String, length: Int = 0) -> [UInt8]? {
      var buffer = [UInt8](repeating: 0, count: max(length, 2048))
      let written = xid_pkey_get_bn(pointer, name, &buffer, Int32(buffer.count), Int32(length))
      guard written > 0 else {
        OpenSSL.clearErrors()
        return nil
      }
      return Array(buffer.prefix(Int(written)))
    }
  }

  /// A prepared verification or signing context: `EVP_PKEY_CTX` after `*_init` and padding set-up.
  /// Each operation gets a context of its own, so concurrent callers never share mutable OpenSSL
  /// state: a spare one an earlier operation finished with, else a copy of the prepared one.
  ///
  /// Keeping spares matters for DPoP, which signs a proof for every request: copying and freeing the
  /// context took about a tenth of a P-256 signature.
  final class OpenSSLOperationTemplate: @unchecked Sendable {
    // `context` is only copied after init; `spares` are owned by the mutex until taken.
    private let context: OpaquePointer
    private let spares = Mutex<[SpareContext]>([])
    /// The most spare contexts kept: as many operations as run at once, in practice.
    private static let maximumSpares = 4

    /// - Parameters:
    ///   - key: the key to operate with.
    ///   - sign: `true` for signing, `false` for verification.
    ///   - padding: an `RSA_PKCS1_PADDING` or `RSA_PKCS1_PSS_PADDING` for RSA keys, `nil` otherwise.
    ///   - digestInfo: with `RSA_PKCS1_PADDING`, whether the operation takes the whole DigestInfo
    ///     (RFC 8017 §9.2) rather than the SHA-256 hash alone; the context then knows no digest.
    init?(key: OpenSSLKey, sign: Bool, padding: Int32?, digestInfo: Bool = false) {
      guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key.pointer, nil) else { return nil }
      self.context = context
      var ok = (sign ? EVP_PKEY_sign_init(context) : EVP_PKEY_verify_init(context)) == 1
      precondition(!digestInfo || padding == RSA_PKCS1_PADDING, "a DigestInfo is RSASSA-PKCS1-v1_5's")
      ok = ok && (digestInfo || EVP_PKEY_CTX_set_signature_md(context, OpenSSL.sha256) == 1)
      if let padding, ok {
        ok = EVP_PKEY_CTX_set_rsa_padding(context, padding) == 1
        if ok && padding == RSA_PKCS1_PSS_PADDING {
          // RFC 7518 §3.5: MGF1 with SHA-256 and a salt as long as the hash, enforced on verification.
          ok =
            EVP_PKEY_CTX_set_rsa_mgf1_md(context, OpenSSL.sha256) == 1
            && EVP_PKEY_CTX_set_rsa_pss_saltlen(context, RSA_PSS_SALTLEN_DIGEST) == 1
        }
      }
      guard ok else {
        OpenSSL.clearErrors()
        return nil
      }
    }

    deinit {
      EVP_PKEY_CTX_free(context)
      spares.withLock { spares in for spare in spares { EVP_PKEY_CTX_free(spare.pointer) } }
    }

    /// A context no operation uses: it moves between operations only through `spares`.
    private struct SpareContext: @unchecked Sendable {
      let pointer: OpaquePointer
    }

    /// Runs `body` with a prepared context no other operation uses meanwhile. `body` returns `nil`
    /// when the operation failed: its context is then freed rather than kept, since a failed
    /// operation may leave state behind in it.
    func withContext<R>(_ body: (OpaquePointer) -> R?) -> R? {
      guard let context = spares.withLock({ $0.popLast()?.pointer }) ?? EVP_PKEY_CTX_dup(context) else {
        OpenSSL.clearErrors()
        return nil
      }
      let result = body(context)
      let kept =
        result != nil
        && spares.withLock { spares in
          guard spares.count < Self.maximumSpares else { return false }
          spares.append(SpareContext(pointer: context))
          return true
        }
      if !kept { EVP_PKEY_CTX_free(context) }
      return result
    }
  }

  /// A prepared one-shot verification (`EVP_DigestVerifyInit_ex` done once), copied for each
  /// signature: Ed25519 has no separate digest, and OpenSSL 3 looks the algorithm up again on every
  /// init, which costs more than the copy.
  final class OpenSSLDigestVerifyTemplate: @unchecked Sendable {
    // Never used directly after init; only copied, which reads it.
    private let context: OpaquePointer

    init?(key: OpenSSLKey) {
      guard let context = EVP_MD_CTX_new() else { return nil }
      self.context = context
      guard EVP_DigestVerifyInit_ex(context, nil, nil, nil, nil, key.pointer, nil) == 1 else {
        OpenSSL.clearErrors()
        return nil
      }
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Whether `signature` verifies over `message`.
    func verify(_ signature: UnsafeRawBufferPointer, _ message: UnsafeRawBufferPointer) -> Bool {
      guard let copy = EVP_MD_CTX_new() else { return false }
      defer { EVP_MD_CTX_free(copy) }
      guard EVP_MD_CTX_copy_ex(copy, context) == 1 else {
        OpenSSL.clearErrors()
        return false
      }
      return EVP_DigestVerify(
        copy, signature.baseAddress?.assumingMemoryBound(to: UInt8.self), signature.count,
        message.baseAddress?.assumingMemoryBound(to: UInt8.self), message.count) == 1
    }
  }
#endif
