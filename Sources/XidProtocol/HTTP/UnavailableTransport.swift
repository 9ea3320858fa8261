/// The transport of a configuration that has none: every request fails with what to do.
///
/// Package-wide so that the session layer sends authorized requests through the same refusal.
package struct UnavailableTransport: HTTPTransport {
  package init() {}

  package func send(_ request: HTTPRequest) async throws -> HTTPResponse {
    throw XidError(
      .invalidConfiguration,
      "no HTTP transport is configured: set XidConfiguration.parts.transport, or use the Xid module, which supplies URLSessionTransport"
    )
  }
}
