import Foundation
import XidCore

/// A transport that hands requests to another one and keeps each request's form or query
/// parameters, by path, for tests that check what Xid sent.
final class RequestLog: HTTPTransport, @unchecked Sendable {
  private let next: any HTTPTransport
  private let lock = NSLock()
  private var sent: [(path: String, parameters: [(String, String)])] = []

  init(_ next: any HTTPTransport) { self.next = next }

  func send(_ request: HTTPRequest) async throws -> HTTPResponse {
    let form =
      request.method == "POST"
      ? FormEncoding.decode(String(decoding: request.body, as: UTF8.self)) : request.url.queryParameters
    lock.withLock { sent.append((request.url.path, form)) }
    return try await next.send(request)
  }

  /// The values of `name` in each request to a path ending in `suffix`, in order.
  func values(_ name: String, at suffix: String) -> [[String]] {
    lock.withLock {
      sent.filter { $0.path.hasSuffix(suffix) }.map { $0.parameters.filter { $0.0 == name }.map(\.1) }
    }
  }
}
