import Foundation

/// An OpenID provider's metadata (OpenID Connect Discovery 1.0 §3, RFC 8414 §2), as its
/// `/.well-known/openid-configuration` document states it.
///
/// Creating metadata checks it: `issuer` must equal the configured issuer exactly, the required
/// endpoints must be present, and every endpoint URL must be https (or loopback http). Members Xid
/// does not model are in ``document``.
public struct ProviderMetadata: Sendable, Hashable {
  /// `issuer`: the provider's issuer identifier, equal to the configured one.
  public let issuer: String
  /// `authorization_endpoint`.
  public let authorizationEndpoint: URL
  /// `token_endpoint`.
  public let tokenEndpoint: URL
  /// `jwks_uri`: where the provider publishes the keys that sign its ID tokens.
  public let jwksURI: URL
  /// `userinfo_endpoint`.
  public let userInfoEndpoint: URL?
  /// `revocation_endpoint` (RFC 7009).
  public let revocationEndpoint: URL?
  /// `end_session_endpoint` (OpenID Connect RP-Initiated Logout 1.0).
  public let endSessionEndpoint: URL?
  /// `device_authorization_endpoint` (RFC 8628).
  public let deviceAuthorizationEndpoint: URL?
  /// `pushed_authorization_request_endpoint` (RFC 9126).
  public let pushedAuthorizationRequestEndpoint: URL?
  /// `require_pushed_authorization_requests` (RFC 9126): whether every authorization request must be
  /// pushed. `false` when absent.
  public let requirePushedAuthorizationRequests: Bool
  /// `authorization_response_iss_parameter_supported` (RFC 9207): whether authorization responses
  /// carry `iss`. `false` when absent.
  public let authorizationResponseIssParameterSupported: Bool
  /// `id_token_signing_alg_values_supported`, as listed (including algorithms Xid does not support).
  public let idTokenSigningAlgValuesSupported: [String]
  /// `code_challenge_methods_supported`, or `nil` when the provider does not say.
  public let codeChallengeMethodsSupported: [String]?
  /// `authorization_details_types_supported` (RFC 9396 §10), or `nil` when the provider does not say.
  public let authorizationDetailsTypesSupported: [String]?
  /// `scopes_supported`, or `nil` when the provider does not say.
  public let scopesSupported: [String]?
  /// `response_types_supported`.
  public let responseTypesSupported: [String]
  /// `grant_types_supported`; `["authorization_code", "implicit"]` when absent, as the specs default.
  public let grantTypesSupported: [String]
  /// `token_endpoint_auth_methods_supported`; `["client_secret_basic"]` when absent.
  public let tokenEndpointAuthMethodsSupported: [String]
  /// `claims_supported`, or `nil` when the provider does not say.
  public let claimsSupported: [String]?
  /// `prompt_values_supported`, or `nil` when the provider does not say.
  public let promptValuesSupported: [String]?
  /// The whole document.
  public let document: JSONValue

  /// `native_sso_supported` (OpenID Connect Native SSO for Mobile Apps 1.0, draft 07 §5): whether the
  /// provider says it serves Native SSO. `false` when absent, as the draft tells clients to assume.
  public var nativeSSOSupported: Bool { document["native_sso_supported"]?.boolValue == true }

  /// Whether `grant_types_supported` lists the token exchange grant (RFC 8693).
  public var supportsTokenExchange: Bool { grantTypesSupported.contains(TokenExchangeRequest.grantType) }

  /// Reads and checks a metadata document. A member whose value is `null` counts as absent.
  ///
  /// - Parameters:
  ///   - document: the parsed `openid-configuration` JSON.
  ///   - expectedIssuer: the configured issuer identifier; the document's `issuer` must equal it exactly.
  /// - Throws: ``XidError/Code/issuerMismatch`` when `issuer` differs, ``XidError/Code/insecureURL``
  ///   for an endpoint that is not https, and ``XidError/Code/discoveryFailed`` when the document is
  ///   not an object, lacks a required member or has one of the wrong type.
  public init(document: JSONValue, expectedIssuer: String) throws {
    guard let members = document.objectValue else {
      throw XidError(.discoveryFailed, "the provider metadata is not a JSON object")
    }
    guard let issuer = members["issuer"]?.stringValue else {
      throw XidError(.discoveryFailed, "the provider metadata has no string \"issuer\"")
    }
    guard issuer == expectedIssuer else {
      throw XidError(
        .issuerMismatch,
        "the provider metadata states issuer \"\(SafeText.short(issuer))\", not the configured \"\(SafeText.short(expectedIssuer))\"; they must be equal exactly"
      )
    }
    self.issuer = issuer
    self.document = document

    let typed = MetadataMembers(members: members, code: .discoveryFailed, document: "provider metadata")
    func url(_ name: String) throws -> URL? {
      guard let value = typed[name] else { return nil }
      guard let text = value.stringValue, let url = URL(string: text), url.scheme != nil else {
        throw XidError(.discoveryFailed, "the provider metadata's \"\(name)\" is not an absolute URL")
      }
      try url.requireSecure(for: "provider metadata's \(name)")
      return url
    }
    func required(_ name: String) throws -> URL {
      guard let value = try url(name) else {
        throw XidError(.discoveryFailed, "the provider metadata lacks the required \"\(name)\"")
      }
      return value
    }

    authorizationEndpoint = try required("authorization_endpoint")
    tokenEndpoint = try required("token_endpoint")
    jwksURI = try required("jwks_uri")
    userInfoEndpoint = try url("userinfo_endpoint")
    revocationEndpoint = try url("revocation_endpoint")
    endSessionEndpoint = try url("end_session_endpoint")
    deviceAuthorizationEndpoint = try url("device_authorization_endpoint")
    pushedAuthorizationRequestEndpoint = try url("pushed_authorization_request_endpoint")
    requirePushedAuthorizationRequests = try typed.flag("require_pushed_authorization_requests")
    authorizationResponseIssParameterSupported = try typed.flag("authorization_response_iss_parameter_supported")
    idTokenSigningAlgValuesSupported = try typed.strings("id_token_signing_alg_values_supported") ?? []
    codeChallengeMethodsSupported = try typed.strings("code_challenge_methods_supported")
    scopesSupported = try typed.strings("scopes_supported")
    authorizationDetailsTypesSupported = try typed.strings("authorization_details_types_supported")
    responseTypesSupported = try typed.strings("response_types_supported") ?? []
    grantTypesSupported = try typed.strings("grant_types_supported") ?? ["authorization_code", "implicit"]
    tokenEndpointAuthMethodsSupported =
      try typed.strings("token_endpoint_auth_methods_supported") ?? ["client_secret_basic"]
    claimsSupported = try typed.strings("claims_supported")
    promptValuesSupported = try typed.strings("prompt_values_supported")
  }

  /// The algorithms Xid accepts for this provider's ID tokens: those it lists in
  /// `id_token_signing_alg_values_supported` that Xid verifies (ES256, RS256, PS256, EdDSA), or RS256
  /// when it lists none. A token's header never widens this set.
  ///
  /// - Throws: ``XidError/Code/unsupportedByProvider`` when the provider lists algorithms but none Xid
  ///   verifies (for example only HS256, or only `none`).
  public func idTokenSigningAlgorithms() throws -> Set<JWSAlgorithm> {
    guard !idTokenSigningAlgValuesSupported.isEmpty else { return [.rs256] }
    let supported = Set(idTokenSigningAlgValuesSupported.compactMap(JWSAlgorithm.init(rawValue:)))
    guard !supported.isEmpty else {
      let listed = idTokenSigningAlgValuesSupported.prefix(8).map { SafeText.short($0, limit: 16) }.joined(
        separator: ", ")
      throw XidError(
        .unsupportedByProvider,
        "the provider signs ID tokens only with algorithms Xid does not accept (\(listed)); Xid verifies ES256, RS256, PS256 and EdDSA"
      )
    }
    return supported
  }

  /// The URL of the metadata document for `issuer`: `/.well-known/openid-configuration` appended to
  /// the issuer's path (OpenID Connect Discovery 1.0 §4.1), so `https://op.example/tenant` gives
  /// `https://op.example/tenant/.well-known/openid-configuration`.
  public static func discoveryURL(for issuer: URL) -> URL {
    var text = issuer.absoluteString
    while text.hasSuffix("/") { text.removeLast() }
    return URL(string: text + "/.well-known/openid-configuration") ?? issuer
  }
}
