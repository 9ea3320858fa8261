import Foundation
import XidCore

extension TestProvider {
  /// The revocation endpoint (RFC 7009): revoking a refresh token revokes its whole grant, revoking
  /// an access token revokes that token, and revoking a device secret (Native SSO) is a family
  /// sign-out: it ends the secret's device session. Unknown tokens are answered `200` like known ones.
  func serveRevocation(_ request: HTTPRequest) throws -> HTTPResponse {
    let parameters = try FormParameters.form(of: request)
    try parameters.requireNoRepeats()
    let client = try authenticateClient(request, parameters)
    // A proof is optional here; one that is sent must be valid.
    _ = try verifyDPoPProof(request, endpoint: .revocation, audience: .authorizationServer, now: clock.now)
    let token = try parameters.required("token")
    func requireOwner(_ grantID: Int) throws {
      guard store.grants[grantID]?.authorization.clientId == client.id else {
        throw OAuthFailure("unauthorized_client", "the token was issued to another client")
      }
    }
    // The hint only says where to look first (RFC 7009 §2.1); both kinds are searched.
    if let record = store.refreshTokens[token] {
      try requireOwner(record.grantID)
      store.revokeGrant(record.grantID)
      store.revokedTokens.append(token)
    } else if let record = store.accessTokens[token] {
      try requireOwner(record.grantID)
      store.accessTokens[token]?.revoked = true
      store.revokedTokens.append(token)
    } else if let record = store.deviceSecrets[token] {
      // Any app of the family may sign the family out.
      guard record.clientId == client.id || client.allowsTokenExchange else {
        throw OAuthFailure("unauthorized_client", "the device secret was issued to another client")
      }
      endDeviceSession(id: record.sessionID)
      store.revokedTokens.append(token)
    }
    return HTTPResponse(status: 200, headers: ["Cache-Control": "no-store"])
  }
}
