import XidCore

extension TestProvider {
  /// Discovery and the JWKS may be cached for a while, as real providers allow.
  static let cacheableHeaders: HTTPHeaders = ["Cache-Control": "public, max-age=300"]

  /// The discovery document (OpenID Connect Discovery §3, RFC 8414).
  func serveDiscovery() -> HTTPResponse {
    let issuer = misbehaviors.use(.otherIssuerInDiscovery) ? Misbehavior.foreignIssuer : issuerIdentifier
    let authenticationMethods: JSONValue = ["none", "client_secret_basic", "client_secret_post", "private_key_jwt"]
    var document: [String: JSONValue] = [
      "issuer": .string(issuer),
      "authorization_endpoint": link(.authorization),
      "token_endpoint": link(.token),
      "userinfo_endpoint": link(.userInfo),
      "jwks_uri": link(.jwks),
      "end_session_endpoint": link(.endSession),
      "device_authorization_endpoint": link(.deviceAuthorization),
      "response_types_supported": ["code"],
      "response_modes_supported": ["query"],
      "grant_types_supported": [
        .string(GrantType.authorizationCode), .string(GrantType.refreshToken), .string(GrantType.deviceCode),
        .string(GrantType.tokenExchange),
      ],
      "subject_types_supported": ["public"],
      "id_token_signing_alg_values_supported": .array(keys.algorithms.map { .string($0.rawValue) }),
      "code_challenge_methods_supported": ["S256"],
      "token_endpoint_auth_methods_supported": authenticationMethods,
      "token_endpoint_auth_signing_alg_values_supported": ["ES256", "RS256", "PS256", "EdDSA"],
      "scopes_supported": .array(
        (["openid", "profile", "email", "address", "phone", "offline_access"]
          + (configuration.nativeSSO.isSupported ? ["device_sso"] : [])).map { .string($0) }),
      "claims_supported": .array(
        (["sub", "iss", "aud", "exp", "iat", "auth_time", "nonce", "azp", "at_hash", "sid"]
          + (configuration.nativeSSO.isSupported ? ["ds_hash"] : [])
          + (configuration.acrValuesSupported.isEmpty ? [] : ["acr"]) + ScopeClaims.all).map { .string($0) }),
      "native_sso_supported": .bool(configuration.nativeSSO.isSupported),
      "prompt_values_supported": ["none", "login", "consent"],
      "authorization_response_iss_parameter_supported": true,
      "claims_parameter_supported": .bool(!configuration.acrValuesSupported.isEmpty),
      "request_parameter_supported": false,
      "request_uri_parameter_supported": false,
    ]
    if !configuration.authorizationDetailTypes.isEmpty {
      document["authorization_details_types_supported"] = .array(
        configuration.authorizationDetailTypes.map { .string($0) })
    }
    if !configuration.acrValuesSupported.isEmpty {
      document["acr_values_supported"] = .array(configuration.acrValuesSupported.map { .string($0) })
    }
    if configuration.supportsRevocation {
      document["revocation_endpoint"] = link(.revocation)
      document["revocation_endpoint_auth_methods_supported"] = authenticationMethods
    }
    if let algorithms = configuration.dpop.signingAlgorithms {
      document["dpop_signing_alg_values_supported"] = .array(algorithms.map(JSONValue.string))
    }
    if configuration.pushedAuthorization != .unsupported {
      document["pushed_authorization_request_endpoint"] = link(.pushedAuthorization)
      document["require_pushed_authorization_requests"] = .bool(configuration.pushedAuthorization == .required)
    }
    return .json(.object(document), headers: Self.cacheableHeaders)
  }

  /// The JWK Set of the published keys (RFC 7517 §5).
  func serveJWKS() -> HTTPResponse {
    .json(keys.jwks, headers: Self.cacheableHeaders)
  }

  private func link(_ endpoint: Endpoint) -> JSONValue { .string(url(for: endpoint).absoluteString) }
}
