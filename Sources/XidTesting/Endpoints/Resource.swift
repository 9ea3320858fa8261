import Foundation
import XidCore

extension TestProvider {
  /// The protected resource: JSON about the token's grant for a valid access token (a Bearer
  /// token, or a DPoP-bound one with its proof): `sub`, `client_id`, `scope`, `token_type`, `cnf`,
  /// the token's audiences (`aud`, for a resource's token) and its authorization detail types; and `401` with `WWW-Authenticate: Bearer
  /// error="invalid_token"` for an unknown, expired or revoked one.
  func serveResource(_ request: HTTPRequest, now: Date) throws -> HTTPResponse {
    let (record, grant) = try authorizeResourceRequest(request, endpoint: .resource, now: now)
    var body: [String: JSONValue] = [
      "sub": .string(grant.authorization.user.subject),
      "client_id": .string(grant.authorization.clientId),
      "scope": .string(record.scopes.joined(separator: " ")),
      "token_type": record.jkt == nil ? "Bearer" : "DPoP",
      "message": "hello from the protected resource",
    ]
    if let jkt = record.jkt { body["cnf"] = ["jkt": .string(jkt)] }
    if !record.audiences.isEmpty { body["aud"] = .array(record.audiences.map { .string($0) }) }
    if !record.authorizationDetailTypes.isEmpty {
      body["authorization_details_types"] = .array(record.authorizationDetailTypes.map { .string($0) })
    }
    return .json(.object(body))
  }

  /// The resource's metadata (RFC 9728 §2): its identifier, this provider as its one authorization
  /// server, the configured scopes and DPoP requirement.
  func serveResourceMetadata() -> HTTPResponse {
    let resource =
      misbehaviors.use(.otherResourceInMetadata) ? Misbehavior.foreignResource : url(for: .resource).absoluteString
    return .json([
      "resource": .string(resource),
      "authorization_servers": [.string(issuerIdentifier)],
      "scopes_supported": .array(configuration.resourceScopesSupported.map { .string($0) }),
      "bearer_methods_supported": ["header"],
      "dpop_signing_alg_values_supported": .array((configuration.dpop.signingAlgorithms ?? []).map { .string($0) }),
      "dpop_bound_access_tokens_required": .bool(configuration.resourceRequiresDPoP),
    ])
  }
}
