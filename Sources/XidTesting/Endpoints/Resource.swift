import Foundation
import XidCore

extension TestProvider {
  /// The protected resource: JSON about the token's grant for a valid Bearer access token, and
  /// `401` with `WWW-Authenticate: Bearer error="invalid_token"` for an unknown, expired or revoked one.
  func serveResource(_ request: HTTPRequest, now: Date) throws -> HTTPResponse {
    let (record, grant) = try store.validate(accessToken: try bearerToken(request), now: now).get()
    return .json([
      "sub": .string(grant.authorization.user.subject),
      "client_id": .string(grant.authorization.clientId),
      "scope": .string(record.scopes.joined(separator: " ")),
      "message": "hello from the protected resource",
    ])
  }
}
