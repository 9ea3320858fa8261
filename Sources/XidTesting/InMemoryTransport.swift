import Foundation
import XidCore

/// An `HTTPTransport` that hands each request straight to a ``TestProvider``: no sockets, no
/// network, no waiting beyond what the provider is told to do.
///
/// It serves only URLs on the provider's origin (the scheme, host and port of its issuer); any other
/// host fails as an unresolvable one would. A response dropped by an injected fault surfaces as the
/// network failure a real transport would report.
///
/// ```swift
/// let provider = try TestProvider()
/// let response = try await provider.transport.send(HTTPRequest(url: provider.url(for: .discovery)))
/// ```
public struct InMemoryTransport: HTTPTransport {
  /// The provider that answers.
  public let provider: TestProvider

  /// Creates a transport to `provider`; ``TestProvider/transport`` is the same.
  public init(provider: TestProvider) { self.provider = provider }

  /// Sends `request` to the provider.
  ///
  /// - Throws: `CancellationError` when the task is cancelled before the request is sent or while
  ///   an injected delay holds it; ``/Xid/XidError`` with ``/Xid/XidError/Code/networkFailure`` for a URL off
  ///   the provider's origin or a response dropped by an injected fault.
  public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
    try Task.checkCancellation()
    guard Self.origin(of: request.url) == Self.origin(of: provider.issuer) else {
      throw XidError(
        .networkFailure,
        "the in-memory transport reaches only the test provider at \(Self.origin(of: provider.issuer)); "
          + "\(request.url.host ?? "a URL without a host") cannot be reached")
    }
    switch await provider.respond(to: request) {
    case .response(let response):
      return response
    case .dropped:
      try Task.checkCancellation()
      throw XidError(.networkFailure, "the connection to the test provider was lost before a response arrived")
    }
  }

  /// `scheme://host:port`, lower case, with the scheme's default port made explicit.
  private static func origin(of url: URL) -> String {
    let scheme = url.scheme?.lowercased() ?? ""
    let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
    return "\(scheme)://\(url.host?.lowercased() ?? ""):\(port)"
  }
}
