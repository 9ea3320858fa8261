import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A loopback port that refuses every connection, and that no other test can take while it is held:
/// a TCP socket bound to `127.0.0.1` that never listens.
///
/// A server that was started and stopped leaves a free port, which a server of a test running at the
/// same time may be given next; a request meant to be refused then reaches that server instead.
public final class RefusingPort: Sendable {
  /// The port, on `127.0.0.1`.
  public let port: UInt16
  private let descriptor: Int32

  /// Binds a socket to a free port of `127.0.0.1`.
  public init() throws {
    let (descriptor, port) = try Self.boundLoopbackSocket()
    self.descriptor = descriptor
    self.port = port
  }

  deinit { close(descriptor) }

  /// A TCP socket bound to a free port of `127.0.0.1`, and that port; `listen` is the caller's.
  package static func boundLoopbackSocket() throws -> (descriptor: Int32, port: UInt16) {
    #if canImport(Darwin)
      let descriptor = socket(AF_INET, SOCK_STREAM, 0)
    #else
      let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #endif
    guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
      }
    }
    guard bound else {
      let code = errno
      close(descriptor)
      throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
    }
    return (descriptor, UInt16(bigEndian: address.sin_port))
  }
}
