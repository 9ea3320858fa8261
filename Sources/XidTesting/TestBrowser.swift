import Foundation
import XidCore

/// Plays the user agent for tests that do not run a browser: it opens a URL on the provider, as the
/// system browser would after the app hands it an authorization URL, and reports where the provider
/// sends it.
///
/// What the user does on the provider's pages is the ``TestUser``'s behavior; the browser only
/// carries out the request.
///
/// ```swift
/// let callback = try await provider.browser.redirect(from: authorizationURL)
/// let code = callback.queryParameters.first { $0.0 == "code" }?.1
/// ```
public struct TestBrowser: Sendable {
  /// The transport the browser loads pages with.
  public let transport: any HTTPTransport

  /// Creates a browser that loads pages through `transport`; ``TestProvider/browser`` uses the
  /// provider's ``InMemoryTransport``.
  public init(transport: any HTTPTransport) { self.transport = transport }

  /// Loads `url` with a `GET` and returns the response, whatever its status.
  ///
  /// - Throws: what the transport throws.
  public func load(_ url: URL) async throws -> HTTPResponse {
    try await transport.send(HTTPRequest(method: "GET", url: url, headers: ["Accept": "text/html"]))
  }

  /// Loads `url` and returns the URL the provider redirects the browser to: for an authorization
  /// URL, the client's redirect URI with `code` (or `error`), `state` and `iss`.
  ///
  /// - Throws: ``/Xid/XidError`` with ``/Xid/XidError/Code/unexpectedResponse``, the status and the OAuth error
  ///   when the provider does not redirect (for example for an unregistered `redirect_uri`, which must
  ///   never be redirected to); otherwise what the transport throws.
  public func redirect(from url: URL) async throws -> URL {
    let response = try await load(url)
    if (300..<400).contains(response.status), let location = response.headers["Location"],
      let target = URL(string: location, relativeTo: url)?.absoluteURL
    {
      return target
    }
    let body = try? JSONValue(parsing: Array(response.body))
    let explanation = body?["error_description"]?.stringValue.map { ": \($0.prefix(200))" } ?? ""
    throw XidError(
      .unexpectedResponse, "the provider answered \(response.status) instead of redirecting the browser\(explanation)",
      httpStatus: response.status, oauthError: body?["error"]?.stringValue)
  }
}
