import Foundation

/// Requests to the token endpoint (RFC 6749 §3.2): form-encoded grants with client authentication,
/// and the mapping of every response shape to a ``TokenResponse`` or a typed error.
enum TokenEndpoint {
  /// The endpoint's name in error reasons.
  static let name = "token endpoint"

  /// The grant parameters of a code exchange (RFC 6749 §4.1.3 with RFC 7636 §4.5).
  static func authorizationCodeGrant(code: String, pending: PendingAuthorization) -> [(String, String)] {
    [
      ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", pending.redirectUri.absoluteString),
      ("code_verifier", pending.codeVerifier),
    ]
  }

  /// The grant parameters of a refresh (RFC 6749 §6), with the app family's `device_secret` for
  /// the family's own app (Native SSO draft 07 §3.3), so that the provider keeps or rotates it.
  /// With `resource` (RFC 8707 §2.2), the access token is for that resource alone.
  static func refreshGrant(
    refreshToken: String, scopes: [String]?, deviceSecret: String? = nil, resource: String? = nil
  ) -> [(String, String)] {
    var parameters = [("grant_type", "refresh_token"), ("refresh_token", refreshToken)]
    if let scopes, !scopes.isEmpty { parameters.append(("scope", scopes.joined(separator: " "))) }
    if let resource { parameters.append(("resource", resource)) }
    if let deviceSecret, !deviceSecret.isEmpty { parameters.append(("device_secret", deviceSecret)) }
    return parameters
  }

  /// The grant parameters of a device access token request (RFC 8628 §3.4).
  static func deviceCodeGrant(deviceCode: String) -> [(String, String)] {
    [("grant_type", "urn:ietf:params:oauth:grant-type:device_code"), ("device_code", deviceCode)]
  }

  /// Sends a grant to the token endpoint and reads the response.
  ///
  /// - Parameter secrets: values to keep out of error reasons even if the provider echoes them (the
  ///   code, verifier or refresh token of this request).
  /// - Throws: ``XidError/Code/tokenRequestFailed`` for a refusal, whatever its shape (RFC 6749 §5.2
  ///   JSON, an empty body, HTML, a non-standard error, or a 2xx carrying `error`), with the HTTP
  ///   status and the OAuth error when there was one; ``XidError/Code/unexpectedResponse`` for a 2xx
  ///   body that is not JSON; ``XidError/Code/invalidTokenResponse``, also for a DPoP-bound token
  ///   the request did not prove a key for; ``XidError/Code/dpopTokenUnbound`` for a Bearer token
  ///   the request did (see ``TokenBinding``); and as ``ProtocolHTTP/send(_:endpoint:)``.
  ///   With `dpop`, the request carries a proof.
  ///
  /// On a refresh (`grant` has `grant_type=refresh_token`), an empty HTTP 400 is
  /// ``XidError/Code/refreshRefused`` when ``SessionPolicy/providerQuirks`` contains
  /// ``ProviderQuirks/emptyBadRequestIsInvalidGrant``; otherwise its reason names that option.
  static func request(
    _ grant: [(String, String)], configuration: XidConfiguration, metadata: ProviderMetadata, http: ProtocolHTTP,
    clock: any XidClock, secrets: [String], dpop: DPoPSigner? = nil
  ) async throws -> TokenResponse {
    let object = try await send(
      grant, configuration: configuration, metadata: metadata, http: http, secrets: secrets, dpop: dpop)
    let tokens = try TokenResponse(json: object, receivedAt: clock.now)
    try await TokenBinding.check(
      tokenType: tokens.tokenType, accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, dpop: dpop,
      configuration: configuration, metadata: metadata, http: http)
    return tokens
  }

  /// Sends a grant to the token endpoint and returns the JSON object of its successful answer, for
  /// the caller to read as the grant's response type.
  ///
  /// - Throws: as ``request(_:configuration:metadata:http:clock:secrets:dpop:)``, but nothing about the
  ///   answer's members.
  static func send(
    _ grant: [(String, String)], configuration: XidConfiguration, metadata: ProviderMetadata, http: ProtocolHTTP,
    secrets: [String], dpop: DPoPSigner?
  ) async throws -> [String: JSONValue] {
    let isRefresh = grant.contains { $0 == ("grant_type", "refresh_token") }
    let response = try await http.postClientForm(
      grant, to: metadata.tokenEndpoint, endpoint: name, configuration: configuration, refusal: .tokenRequestFailed,
      secrets: secrets, dpop: dpop
    ) { response, error in
      guard isRefresh, response.status == 400, response.body.isEmpty else { return error }
      return emptyRefreshRefusal(error, quirks: configuration.policy.providerQuirks)
    }
    let secrets = ProtocolHTTP.secrets(secrets, of: configuration)
    let object = try ProtocolHTTP.jsonObject(response, endpoint: name)
    if object["access_token"] == nil, object["error"]?.stringValue != nil {
      // Some providers answer 200 with an error object.
      throw ProtocolHTTP.failure(response, code: .tokenRequestFailed, endpoint: name, secrets: secrets)
    }
    return object
  }

  /// An empty HTTP 400 to a refresh: a dead grant for a provider with the quirk, a provider failure
  /// (naming the option) for every other one.
  static func emptyRefreshRefusal(_ error: XidError, quirks: ProviderQuirks) -> XidError {
    guard quirks.contains(.emptyBadRequestIsInvalidGrant) else {
      return XidError(
        error.code,
        error.reason
          + "; if this provider answers a dead refresh token this way (glewlwyd does), set XidConfiguration.policy.providerQuirks to [.emptyBadRequestIsInvalidGrant]",
        httpStatus: error.httpStatus, oauthError: error.oauthError)
    }
    return XidError(
      .refreshRefused,
      error.reason
        + ", which XidConfiguration.policy.providerQuirks (.emptyBadRequestIsInvalidGrant) reads as a dead refresh token",
      httpStatus: error.httpStatus)
  }
}
