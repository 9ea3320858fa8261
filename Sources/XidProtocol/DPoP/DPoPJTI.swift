import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The `jti` of each proof: 128 bits from the platform's CSPRNG (``XidCrypto/randomBytes(count:)``),
/// drawn 32 proofs at a time. A proof is made for every request, and on Linux each call to the
/// generator costs a system call (OpenSSL checks the process ID), about as much as the rest of the
/// proof's assembly; drawing in batches removes it from all but one proof in 32.
///
/// A forked child must not reuse its parent's unused bytes: a `pthread_atfork` handler gives the
/// child a new, empty pool (and a new lock, in case the fork happened while another thread held it).
enum DPoPJTI {
  /// The random bytes of one `jti`.
  static let size = 16
  /// How many `jti`s one draw serves.
  static let batch = 32

  private final class Pool: @unchecked Sendable {
    // `bytes` and `used` are only touched while `lock` is held.
    let lock = NSLock()
    var bytes: [UInt8] = []
    var used = 0
  }

  /// Replaced only in a forked child, which then runs one thread.
  nonisolated(unsafe) private static var pool = Pool()

  private static let forkHandler: Void = {
    _ = pthread_atfork(nil, nil, { DPoPJTI.pool = Pool() })
  }()

  /// Appends a fresh `jti` to `output`, base64url: 22 characters for 16 random bytes, written
  /// straight into the proof's claims.
  ///
  /// - Throws: ``XidError`` with ``XidError/Code/cryptoFailure`` when the generator fails.
  static func append(to output: inout [UInt8]) throws {
    _ = forkHandler
    let pool = self.pool
    try pool.lock.withLock {
      if pool.used + size > pool.bytes.count {
        pool.bytes = try XidCrypto.randomBytes(count: size * batch)
        pool.used = 0
      }
      let range = pool.used..<(pool.used + size)
      pool.bytes.withUnsafeMutableBufferPointer { bytes in
        Base64URL.append(UnsafeBufferPointer(rebasing: bytes[range]), to: &output)
        // Used bytes are overwritten: nothing of a sent jti stays behind.
        UnsafeMutableBufferPointer(rebasing: bytes[range]).update(repeating: 0)
      }
      pool.used += size
    }
  }
}
