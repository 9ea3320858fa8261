import XidCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The BSD socket calls the loopback server makes, with the differences between Glibc and Darwin
/// (socket type constants, `MSG_NOSIGNAL` against `SO_NOSIGPIPE`, `sin_len`) kept in one place.
///
/// Every descriptor it hands out is non-blocking and close-on-exec; every call retries on `EINTR`.
enum LoopbackSocket {
  /// What a non-blocking read or write did.
  enum IOResult: Equatable {
    /// This many bytes moved (for a read, more than zero).
    case bytes(Int)
    /// The peer closed its sending side (reads only).
    case endOfStream
    /// Nothing can move now; wait for the descriptor to become ready.
    case wouldBlock
    /// The connection failed, with this `errno`.
    case failed(Int32)
  }

  #if canImport(Darwin)
    private static let streamType = SOCK_STREAM
    private static let sendFlags: Int32 = 0
  #else
    private static let streamType = Int32(SOCK_STREAM.rawValue)
    private static let sendFlags = Int32(MSG_NOSIGNAL)
  #endif

  /// Creates a TCP socket bound to `127.0.0.1:port` (0 for an ephemeral port) and listening, with
  /// `SO_REUSEADDR` set.
  ///
  /// - Returns: the descriptor and the port it is bound to.
  /// - Throws: ``XidError`` with ``XidError/Code/loopbackServerFailure``.
  static func listen(port: UInt16, backlog: Int32) throws -> (descriptor: Int32, port: UInt16) {
    let descriptor = socket(AF_INET, streamType, 0)
    guard descriptor >= 0 else { throw failure("create a socket", errno) }
    do {
      try configure(descriptor)
      var reuse: Int32 = 1
      guard setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
        throw failure("set SO_REUSEADDR", errno)
      }
      var address = loopbackAddress(port: port)
      let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
      }
      guard bound == 0 else { throw failure("bind 127.0.0.1:\(port)", errno) }
      guard cListen(descriptor, backlog) == 0 else { throw failure("listen on 127.0.0.1:\(port)", errno) }
      return (descriptor, try boundPort(descriptor))
    } catch {
      _ = closeDescriptor(descriptor)
      throw error
    }
  }

  /// Accepts one pending connection from a non-blocking listening socket.
  ///
  /// - Returns: the new connection's descriptor (non-blocking, close-on-exec), or why there was none.
  static func accept(_ listener: Int32) -> Result<Int32, AcceptFailure> {
    while true {
      let descriptor = cAccept(listener)
      if descriptor >= 0 {
        do {
          try configure(descriptor)
          return .success(descriptor)
        } catch {
          _ = closeDescriptor(descriptor)
          continue
        }
      }
      switch errno {
      case EINTR, ECONNABORTED: continue
      case EAGAIN, EWOULDBLOCK: return .failure(.wouldBlock)
      case let code: return .failure(.failed(code))
      }
    }
  }

  /// Why ``accept(_:)`` returned no connection.
  enum AcceptFailure: Error, Equatable {
    /// No connection is pending.
    case wouldBlock
    /// `accept` failed with this `errno` (for example `EMFILE`).
    case failed(Int32)
  }

  /// Reads at most `buffer.count` bytes without blocking.
  static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) -> IOResult {
    while true {
      let count = recv(descriptor, buffer.baseAddress, buffer.count, 0)
      if count > 0 { return .bytes(count) }
      if count == 0 { return .endOfStream }
      switch errno {
      case EINTR: continue
      case EAGAIN, EWOULDBLOCK: return .wouldBlock
      case let code: return .failed(code)
      }
    }
  }

  /// Writes as much of `bytes` as the socket takes without blocking, never raising `SIGPIPE`.
  static func write(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> IOResult {
    while true {
      let count = send(descriptor, bytes.baseAddress, bytes.count, sendFlags)
      if count >= 0 { return .bytes(count) }
      switch errno {
      case EINTR: continue
      case EAGAIN, EWOULDBLOCK: return .wouldBlock
      case let code: return .failed(code)
      }
    }
  }

  /// Shuts down the sending side (`SHUT_WR`) or both sides (`SHUT_RDWR`) of a socket.
  static func shutdown(_ descriptor: Int32, sending onlySending: Bool) {
    _ = cShutdown(descriptor, Int32(onlySending ? SHUT_WR : SHUT_RDWR))
  }

  /// Closes a descriptor. `EINTR` is not retried: the descriptor is released either way (POSIX 2024).
  @discardableResult
  static func closeDescriptor(_ descriptor: Int32) -> Bool {
    close(descriptor) == 0
  }

  /// Makes a descriptor non-blocking and close-on-exec, and on Darwin stops it raising `SIGPIPE`.
  private static func configure(_ descriptor: Int32) throws {
    let flags = fcntl(descriptor, F_GETFL)
    guard flags >= 0, fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0 else {
      throw failure("make a socket non-blocking", errno)
    }
    let descriptorFlags = fcntl(descriptor, F_GETFD)
    guard descriptorFlags >= 0, fcntl(descriptor, F_SETFD, descriptorFlags | FD_CLOEXEC) == 0 else {
      throw failure("set close-on-exec on a socket", errno)
    }
    #if canImport(Darwin)
      var noSigPipe: Int32 = 1
      guard setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &noSigPipe, socklen_t(MemoryLayout<Int32>.size)) == 0
      else { throw failure("set SO_NOSIGPIPE", errno) }
    #endif
  }

  private static func loopbackAddress(port: UInt16) -> sockaddr_in {
    var address = sockaddr_in()
    #if canImport(Darwin)
      address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
    #endif
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    return address
  }

  private static func boundPort(_ descriptor: Int32) throws -> UInt16 {
    var address = sockaddr_in()
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let result = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
    }
    guard result == 0 else { throw failure("read the bound port", errno) }
    return UInt16(bigEndian: address.sin_port)
  }

  private static func failure(_ action: String, _ code: Int32) -> XidError {
    XidError(.loopbackServerFailure, "the loopback HTTP server could not \(action): \(describe(code))")
  }

  /// `errno` as text, for example `"Address already in use (errno 98)"`.
  static func describe(_ code: Int32) -> String {
    "\(String(cString: strerror(code))) (errno \(code))"
  }
}

// Inside `LoopbackSocket`, `listen`, `accept` and `shutdown` name its own members; these reach the C functions.
private func cListen(_ descriptor: Int32, _ backlog: Int32) -> Int32 {
  listen(descriptor, backlog)
}

private func cAccept(_ descriptor: Int32) -> Int32 {
  accept(descriptor, nil, nil)
}

private func cShutdown(_ descriptor: Int32, _ how: Int32) -> Int32 {
  shutdown(descriptor, how)
}
