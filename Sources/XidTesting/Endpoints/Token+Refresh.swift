import Foundation
import XidCore

extension TestProvider {
  /// The refresh token grant (RFC 6749 §6) with rotation and reuse detection (RFC 9700 §4.14.2):
  /// each refresh retires the presented token; presenting a retired one revokes the whole grant.
  ///
  /// A bound refresh token needs a proof of its key, and its successor stays bound to it; an unbound
  /// one of a public client cannot be bound later (glewlwyd refuses it too).
  func refresh(_ parameters: FormParameters, client: TestClient, jkt: String?, now: Date) throws -> JSONValue {
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
    if let bound = record.jkt, bound != jkt {
      throw dpopBindingFailure(
        jkt == nil
          ? "the refresh token is DPoP-bound: send a proof of its key" : "the proof's key is not the refresh token's",
        audience: .authorizationServer)
    }
    if record.jkt == nil, jkt != nil, client.secret == nil {
      throw dpopBindingFailure(
        "the refresh token was issued without DPoP and cannot be bound now", audience: .authorizationServer)
    }
    var scopes = record.scopes
    if parameters["scope"] != nil {
      scopes = parameters.scopes
      guard Set(scopes).isSubset(of: record.scopes) else {
        throw OAuthFailure("invalid_scope", "the requested scope exceeds the scope originally granted")
      }
    }
    let resource = parameters["resource"]
    if let resource, !grant.authorization.resources.contains(resource) {
      throw OAuthFailure("invalid_target", "the resource was not part of the authorization (RFC 8707 §2.2)")
    }
    if configuration.rotatesRefreshTokens {
      record.rotated = true
      store.refreshTokens[token] = record
    }
    let deviceSecret = try deviceSecret(
      for: grant.authorization, scopes: scopes, refreshing: true, presented: parameters["device_secret"], now: now)
    return try issueTokens(
      grantID: grant.id, scopes: scopes, now: now, refreshing: true, jkt: jkt, refreshTokenJKT: record.jkt,
      deviceSecret: deviceSecret, resource: resource)
  }
}
