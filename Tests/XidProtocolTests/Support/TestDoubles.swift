import Foundation
import Testing

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

/// A transport that answers every request with a closure and records the requests.
final class ScriptedTransport: HTTPTransport, Sendable {
  private let handler: @Sendable (HTTPRequest) async throws -> HTTPResponse
  private let log = LockedValue<[HTTPRequest]>([])

  init(_ handler: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse) { self.handler = handler }

  func send(_ request: HTTPRequest) async throws -> HTTPResponse {
    log.update { $0.append(request) }
    return try await handler(request)
  }

  /// Every request sent so far.
  var requests: [HTTPRequest] { log.get() }

  /// The requests sent to `path`.
  func requests(to path: String) -> [HTTPRequest] { requests.filter { $0.url.path == path } }
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
