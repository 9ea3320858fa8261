import Foundation
import XidCore
import XidLoopback

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Runs `body` against a loopback server answering with `handler`, and stops the server afterwards.
public func withServer<T>(
  limits: LoopbackHTTPServer.Limits = .init(),
  handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse = { _ in HTTPResponse(status: 200) },
  _ body: (LoopbackHTTPServer) async throws -> T
) async throws -> T {
  let server = try LoopbackHTTPServer(limits: limits, handler: handler)
  defer { server.stop() }
  return try await body(server)
}

/// A request as raw HTTP/1.1 text, with `Host: 127.0.0.1:port` first and `extraHeaders` after it.
public func rawRequest(
  port: UInt16, method: String = "GET", target: String = "/", headers extraHeaders: [String] = [], body: String = ""
) -> String {
  var text = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
  for header in extraHeaders { text += header + "\r\n" }
  if !body.isEmpty { text += "Content-Length: \(body.utf8.count)\r\n" }
  return text + "\r\n" + body
}

/// A one-connection HTTP server on `127.0.0.1` that streams a large body and reports how much of it
/// it could write before the client closed the connection: for tests that a client stops reading
/// at its limit, which a server that builds its whole response first cannot show.
///
/// It accepts one connection, reads the request head, then writes the status line, the head fields
/// (`Content-Length` when `declaresLength`, else none: the body ends when the connection does) and
/// `bodySize` bytes of `a` in 64 KiB writes, on a thread of its own with blocking sockets (its send
/// buffer kept small, so that what it wrote is close to what the client took). A write that fails
/// because the client closed the connection ends it.
public final class StreamingServer: Sendable {
  /// How the one connection ended.
  public struct Outcome: Sendable, Hashable {
    /// The body bytes written before the connection ended.
    public let bodyBytesWritten: Int
    /// Whether the client closed the connection before the whole body was written (`false` also when
    /// it stopped reading but left the connection open until a write timed out).
    public let closedByClient: Bool
  }

  /// The port, on `127.0.0.1`.
  public let port: UInt16
  /// `http://127.0.0.1:PORT`.
  public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }
  private let listener: Int32
  private let outcome: LockedValue<Result<Outcome, POSIXError>?>
  private let waiters: LockedValue<[CheckedContinuation<Result<Outcome, POSIXError>, Never>]>

  /// Starts listening and serving the one connection.
  ///
  /// - Parameters:
  ///   - bodySize: the size of the body, in bytes.
  ///   - declaresLength: whether the head has `Content-Length`.
  ///   - writeTimeout: how long one write may wait for the client to read, a bound for a client that
  ///     neither reads nor closes.
  public init(bodySize: Int, declaresLength: Bool, writeTimeout: Duration = .seconds(60)) throws {
    let (descriptor, port) = try RefusingPort.boundLoopbackSocket()
    guard listen(descriptor, 1) == 0 else {
      let code = errno
      close(descriptor)
      throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
    }
    listener = descriptor
    self.port = port
    let outcome = LockedValue<Result<Outcome, POSIXError>?>(nil)
    let waiters = LockedValue<[CheckedContinuation<Result<Outcome, POSIXError>, Never>]>([])
    self.outcome = outcome
    self.waiters = waiters
    Thread.detachNewThread {
      let result = Self.serve(
        listener: descriptor, bodySize: bodySize, declaresLength: declaresLength, writeTimeout: writeTimeout)
      let pending = waiters.update { waiting -> [CheckedContinuation<Result<Outcome, POSIXError>, Never>] in
        outcome.set(result)
        defer { waiting = [] }
        return waiting
      }
      for waiter in pending { waiter.resume(returning: result) }
    }
  }

  deinit { close(listener) }

  /// How the connection ended, once it has.
  public func finished() async throws -> Outcome {
    let result = await withCheckedContinuation { continuation in
      let done = waiters.update { waiting -> Result<Outcome, POSIXError>? in
        if let result = outcome.get() { return result }
        waiting.append(continuation)
        return nil
      }
      if let done { continuation.resume(returning: done) }
    }
    return try result.get()
  }

  private static func serve(listener: Int32, bodySize: Int, declaresLength: Bool, writeTimeout: Duration)
    -> Result<Outcome, POSIXError>
  {
    let connection = accept(listener, nil, nil)
    guard connection >= 0 else { return .failure(POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)) }
    defer { close(connection) }
    var time = timeval(tv_sec: .init(writeTimeout.components.seconds), tv_usec: 0)
    setsockopt(connection, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
    var bufferSize: Int32 = 64 * 1024
    setsockopt(connection, SOL_SOCKET, SO_SNDBUF, &bufferSize, socklen_t(MemoryLayout<Int32>.size))
    #if canImport(Darwin)
      var noSigPipe: Int32 = 1
      setsockopt(connection, SOL_SOCKET, SO_NOSIGPIPE, &noSigPipe, socklen_t(MemoryLayout<Int32>.size))
      let flags: Int32 = 0
    #else
      let flags = Int32(MSG_NOSIGNAL)
    #endif
    // The request head.
    var head: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while !head.suffix(4).elementsEqual([13, 10, 13, 10]) {
      let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { return .failure(POSIXError(POSIXErrorCode(rawValue: errno) ?? .ECONNRESET)) }
      head += buffer[..<count]
    }
    /// `nil` once all of `bytes` is written; else whether the client closed the connection (rather
    /// than leaving it open without reading, until the write timed out).
    func writeAll(_ bytes: ArraySlice<UInt8>) -> Bool? {
      var offset = bytes.startIndex
      while offset < bytes.endIndex {
        let count = bytes[offset...].withUnsafeBytes { send(connection, $0.baseAddress, $0.count, flags) }
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else { return errno == EPIPE || errno == ECONNRESET }
        offset += count
      }
      return nil
    }
    var responseHead = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n"
    if declaresLength { responseHead += "Content-Length: \(bodySize)\r\n" }
    if let closed = writeAll(Array((responseHead + "\r\n").utf8)[...]) {
      return .success(Outcome(bodyBytesWritten: 0, closedByClient: closed))
    }
    let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 64 * 1024)
    var written = 0
    while written < bodySize {
      let piece = min(chunk.count, bodySize - written)
      if let closed = writeAll(chunk[..<piece]) {
        return .success(Outcome(bodyBytesWritten: written, closedByClient: closed))
      }
      written += piece
    }
    return .success(Outcome(bodyBytesWritten: written, closedByClient: false))
  }
}
