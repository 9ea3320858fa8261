import Foundation
import Testing

@testable import XidCore

/// Mutable state shared between a test and the closures it gives the client.
final class Locked<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var value: Value

  init(_ value: Value) { self.value = value }

  func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }

  var current: Value { withLock { $0 } }
}

/// A transport that answers every request with a closure and records the requests.
final class ScriptedTransport: HTTPTransport, Sendable {
  private let handler: @Sendable (HTTPRequest) async throws -> HTTPResponse
  private let log = Locked<[HTTPRequest]>([])

  init(_ handler: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse) { self.handler = handler }

  func send(_ request: HTTPRequest) async throws -> HTTPResponse {
    log.withLock { $0.append(request) }
    return try await handler(request)
  }

  /// Every request sent so far.
  var requests: [HTTPRequest] { log.current }

  /// The requests sent to `path`.
  func requests(to path: String) -> [HTTPRequest] { requests.filter { $0.url.path == path } }
}

/// A clock that tests move by hand; `sleep` returns at once after moving it forward.
final class TestClock: XidClock, Sendable {
  private let state: Locked<(now: Date, sleeps: [TimeInterval])>

  init(_ now: Date = Date(timeIntervalSince1970: 1_700_000_000)) { state = Locked((now, [])) }

  var now: Date { state.current.now }

  /// The durations `sleep` was called with.
  var sleeps: [TimeInterval] { state.current.sleeps }

  func advance(by seconds: TimeInterval) { state.withLock { $0.now += seconds } }

  func sleep(for seconds: TimeInterval) async throws {
    try Task.checkCancellation()
    state.withLock {
      $0.sleeps.append(seconds)
      $0.now += seconds
    }
  }
}

extension HTTPRequest {
  /// The form parameters of the body, as a dictionary.
  var form: [String: String] {
    Dictionary(FormEncoding.decode(String(decoding: body, as: UTF8.self)), uniquingKeysWith: { first, _ in first })
  }
}

extension URL {
  /// The query parameters as a dictionary.
  var query: [String: String] { Dictionary(queryParameters, uniquingKeysWith: { first, _ in first }) }
}
