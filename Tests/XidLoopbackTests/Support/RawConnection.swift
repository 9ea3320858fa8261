import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A blocking TCP client for tests that need to see what `URLSession` hides: exact bytes, half-sent
/// requests, silence. Use it inside ``onOwnThread(_:)`` so it never blocks the threads that the
/// server's handlers run on.
final class RawConnection {
  struct Failure: Error, CustomStringConvertible {
    let action: String
    let code: Int32
    var description: String { "\(action) failed: \(String(cString: strerror(code))) (errno \(code))" }
  }

  private let descriptor: Int32

  /// Connects to `address:port`; reads and writes give up after `timeout`.
  init(address: String = "127.0.0.1", port: UInt16, timeout: Duration = .seconds(30)) throws {
    // Not assigned before it is connected: a throwing init of a fully initialized class runs deinit,
    // which would close the descriptor a second time.
    descriptor = try Self.connected(address: address, port: port, timeout: timeout)
  }

  private static func connected(address: String, port: UInt16, timeout: Duration) throws -> Int32 {
    #if canImport(Darwin)
      let descriptor = socket(AF_INET, SOCK_STREAM, 0)
    #else
      let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #endif
    guard descriptor >= 0 else { throw Failure(action: "socket", code: errno) }
    var time = timeval(
      tv_sec: .init(timeout.components.seconds), tv_usec: .init(timeout.components.attoseconds / 1_000_000_000_000))
    setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
    #if canImport(Darwin)
      var noSigPipe: Int32 = 1
      setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &noSigPipe, socklen_t(MemoryLayout<Int32>.size))
    #endif
    var sockAddress = sockaddr_in()
    sockAddress.sin_family = sa_family_t(AF_INET)
    sockAddress.sin_port = port.bigEndian
    inet_pton(AF_INET, address, &sockAddress.sin_addr)
    let result = withUnsafePointer(to: &sockAddress) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard result == 0 else {
      let code = errno
      close(descriptor)
      throw Failure(action: "connect", code: code)
    }
    return descriptor
  }

  deinit { close(descriptor) }

  /// Sends all of `bytes`; stops quietly if the server has closed the connection.
  func send(_ bytes: [UInt8]) throws {
    #if canImport(Darwin)
      let flags: Int32 = 0
    #else
      let flags = Int32(MSG_NOSIGNAL)
    #endif
    var offset = 0
    while offset < bytes.count {
      let count = bytes[offset...].withUnsafeBytes { cSend(descriptor, $0.baseAddress, $0.count, flags) }
      if count < 0 {
        if errno == EINTR { continue }
        if errno == EPIPE || errno == ECONNRESET { return }
        throw Failure(action: "send", code: errno)
      }
      offset += count
    }
  }

  /// Sends `text` as UTF-8.
  func send(_ text: String) throws { try send(Array(text.utf8)) }

  /// Reads what has arrived, up to `limit` bytes; empty once the server has closed.
  func receive(limit: Int = 64 * 1024) throws -> [UInt8] {
    var buffer = [UInt8](repeating: 0, count: limit)
    while true {
      let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
      if count >= 0 { return Array(buffer[..<count]) }
      if errno == EINTR { continue }
      throw Failure(action: "recv", code: errno)
    }
  }

  /// The port this end of the connection is bound to.
  var localPort: UInt16 {
    var address = sockaddr_in()
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
    }
    return UInt16(bigEndian: address.sin_port)
  }

  /// Reads until the server closes the connection.
  func receiveAll() throws -> [UInt8] {
    var all: [UInt8] = []
    while true {
      let chunk = try receive()
      if chunk.isEmpty { return all }
      all += chunk
    }
  }

  /// Whether a TCP connection to `address:port` can be opened.
  static func canConnect(address: String = "127.0.0.1", port: UInt16) -> Bool {
    (try? RawConnection(address: address, port: port, timeout: .seconds(1))) != nil
  }
}

/// Runs blocking `work` on a thread of its own and returns its result.
///
/// Not on `DispatchQueue.global()`: on Linux, Swift concurrency runs its jobs on the same few
/// Dispatch worker threads, and blocking them would starve the server's handlers.
func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
  try await withCheckedThrowingContinuation { continuation in
    Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
  }
}

/// A raw HTTP response, split into status, header block and body.
struct RawResponse: Sendable {
  let bytes: [UInt8]

  var text: String { String(decoding: bytes, as: UTF8.self) }

  /// The status code from the status line, or `nil` when there is none.
  var status: Int? {
    let line = text.prefix { $0 != "\r" }
    let parts = line.split(separator: " ")
    guard parts.count >= 2, parts[0].hasPrefix("HTTP/1.") else { return nil }
    return Int(parts[1])
  }

  /// The head: status line and header fields.
  var head: String { text.components(separatedBy: "\r\n\r\n").first ?? "" }

  /// The body: everything after the first empty line.
  var body: String { text.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n") }
}

/// Connects to the server on `port`, sends `request` and reads the whole response.
func rawExchange(port: UInt16, _ request: [UInt8]) async throws -> RawResponse {
  try await onOwnThread {
    let connection = try RawConnection(port: port)
    try connection.send(request)
    return RawResponse(bytes: try connection.receiveAll())
  }
}

/// Connects to the server on `port`, sends `request` and reads the whole response.
func rawExchange(port: UInt16, _ request: String) async throws -> RawResponse {
  try await rawExchange(port: port, Array(request.utf8))
}

// Inside `RawConnection`, `send` names its own method; this reaches the C function.
private func cSend(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int, _ flags: Int32) -> Int {
  send(descriptor, bytes, count, flags)
}
