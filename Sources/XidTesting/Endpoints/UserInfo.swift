import Foundation
import XidCore

extension TestProvider {
  /// The UserInfo endpoint (OpenID Connect Core §5.3): `sub` and the claims the token's scopes
  /// release.
  func serveUserInfo(_ request: HTTPRequest, now: Date) throws -> HTTPResponse {
    let (record, grant) = try authorizeResourceRequest(request, endpoint: .userInfo, now: now)
    guard record.scopes.contains("openid") else {
      throw OAuthFailure(
        "insufficient_scope", "UserInfo requires the openid scope", status: 403,
        headers: ["WWW-Authenticate": "Bearer error=\"insufficient_scope\", scope=\"openid\""])
    }
    let user = grant.authorization.user
    var claims = ScopeClaims.released(from: user, for: record.scopes)
    claims["sub"] = .string(misbehaviors.use(.otherSubjectInUserInfo) ? Misbehavior.foreignSubject : user.subject)
    return .json(.object(claims))
  }
}
