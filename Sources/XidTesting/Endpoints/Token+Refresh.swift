import Foundation
import XidCore

extension TestProvider {
  /// The refresh token grant (RFC 6749 §6) with rotation and reuse detection (RFC 9700 §4.14.2):
  /// each refresh retires the presented token; presenting a retired one revokes the whole grant.
  func refresh(_ parameters: FormParameters, client: TestClient, now: Date) throws -> JSONValue {
    let token = try parameters.required("refresh_token")
    guard var record = store.refreshTokens[token], let grant = store.grants[record.grantID] else {
      throw OAuthFailure.invalidGrant("the refresh token is unknown")
    }
    guard grant.authorization.clientId == client.id else {
      throw OAuthFailure.invalidGrant("the refresh token was issued to another client")
    }
    guard !grant.revoked else { throw OAuthFailure.invalidGrant("the refresh token was revoked") }
    if record.rotated {
      store.revokeGrant(grant.id)
      throw OAuthFailure.invalidGrant(
        "the refresh token was already used; every token of its grant is revoked as a precaution")
    }
    if let expiresAt = record.expiresAt, now >= expiresAt {
      throw OAuthFailure.invalidGrant("the refresh token expired")
    }
    var scopes = record.scopes
    if parameters["scope"] != nil {
      scopes = parameters.scopes
      guard Set(scopes).isSubset(of: record.scopes) else {
        throw OAuthFailure("invalid_scope", "the requested scope exceeds the scope originally granted")
      }
    }
    if configuration.rotatesRefreshTokens {
      record.rotated = true
      store.refreshTokens[token] = record
    }
    return try issueTokens(grantID: grant.id, scopes: scopes, now: now, refreshing: true)
  }
}
