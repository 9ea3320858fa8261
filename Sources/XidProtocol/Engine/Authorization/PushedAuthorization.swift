import Foundation

/// Pushed authorization requests (RFC 9126): the parameters are posted to the provider, which
/// answers with a `request_uri` that the browser's URL carries instead.
enum PushedAuthorization {
  /// Posts `parameters` to the provider's pushed authorization request endpoint and returns the URL
  /// to open: the authorization endpoint with `client_id` and `request_uri` only.
  ///
  /// - Throws: ``XidError/Code/pushedAuthorizationFailed`` when the endpoint refuses the request (with
  ///   its HTTP status and OAuth error), ``XidError/Code/unexpectedResponse`` for a success that is
  ///   not JSON with a `request_uri`, and as ``ProtocolHTTP/send(_:endpoint:)``.
  static func push(
    _ parameters: [(String, String)], configuration: XidConfiguration, metadata: ProviderMetadata,
    http: ProtocolHTTP, dpop: DPoPSigner? = nil
  ) async throws -> URL {
    guard let endpoint = metadata.pushedAuthorizationRequestEndpoint else {
      throw XidError(.unsupportedByProvider, "the provider advertises no pushed_authorization_request_endpoint")
    }
    let name = "pushed authorization request endpoint"
    let response = try await http.postClientForm(
      parameters.filter { $0.0 != "client_id" }, to: endpoint, endpoint: name, configuration: configuration,
      refusal: .pushedAuthorizationFailed, dpop: dpop)
    let object = try ProtocolHTTP.jsonObject(response, endpoint: name)
    guard let requestURI = object["request_uri"]?.stringValue, !requestURI.isEmpty else {
      throw XidError(
        .unexpectedResponse, "the \(name) answered without a string \"request_uri\"", httpStatus: response.status)
    }
    return metadata.authorizationEndpoint.appendingQuery([
      ("client_id", configuration.identity.clientId), ("request_uri", requestURI),
    ])
  }
}
