import Foundation
import XidCore

extension TestProvider {
  /// The authorization code grant (RFC 6749 §4.1.3) with PKCE (RFC 7636 §4.6).
  ///
  /// A code bound to a key (`dpop_jkt`) is redeemed only with a proof of that key (RFC 9449 §10).
  func exchangeCode(_ parameters: FormParameters, client: TestClient, jkt: String?, now: Date) throws -> JSONValue {
    let code = try parameters.required("code")
    guard var record = store.codes[code] else { throw OAuthFailure.invalidGrant("the authorization code is unknown") }
    if let grantID = record.redeemedGrant {
      store.revokeGrant(grantID)
      throw OAuthFailure.invalidGrant("the authorization code was already used; the tokens issued for it are revoked")
    }
    guard record.authorization.clientId == client.id else {
      throw OAuthFailure.invalidGrant("the authorization code was issued to another client")
    }
    guard now < record.expiresAt else { throw OAuthFailure.invalidGrant("the authorization code expired") }
    if let bound = record.dpopJKT, bound != jkt {
      throw dpopBindingFailure(
        jkt == nil
          ? "the code is bound to a DPoP key (dpop_jkt): send a proof of it"
          : "the proof's key is not the code's dpop_jkt",
        audience: .authorizationServer)
    }
    guard parameters["redirect_uri"] == record.redirectUri else {
      throw OAuthFailure.invalidGrant("the redirect_uri differs from the authorization request's")
    }
    guard let verifier = parameters["code_verifier"] else {
      throw OAuthFailure.invalidRequest("the code_verifier parameter is missing (PKCE is required)")
    }
    store.receivedVerifiers.insert(verifier)
    let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
    guard (43...128).contains(verifier.utf8.count), verifier.unicodeScalars.allSatisfy(unreserved.contains) else {
      throw OAuthFailure.invalidRequest("the code_verifier must be 43 to 128 unreserved characters (RFC 7636 §4.1)")
    }
    guard Base64URL.encode(XidCrypto.sha256(Array(verifier.utf8))) == record.codeChallenge else {
      throw OAuthFailure.invalidGrant("the code_verifier does not match the code_challenge")
    }
    let grantID = store.newGrant(record.authorization)
    record.redeemedGrant = grantID
    store.codes[code] = record
    let deviceSecret = try deviceSecret(
      for: record.authorization, scopes: record.authorization.scopes, refreshing: false,
      presented: parameters["device_secret"], now: now)
    return try issueTokens(
      grantID: grantID, scopes: record.authorization.scopes, now: now, code: code, jkt: jkt,
      refreshTokenJKT: bindsRefreshTokens(of: client) ? jkt : nil, deviceSecret: deviceSecret)
  }

  /// Whether refresh tokens issued to `client` with a DPoP proof are bound to its key: those of
  /// public clients (RFC 9449 §5), as configured.
  func bindsRefreshTokens(of client: TestClient) -> Bool {
    client.secret == nil && configuration.dpop.bindsRefreshTokensOfPublicClients
  }
}
