import Foundation
import XidCore

extension TestProvider {
  /// The authorization code grant (RFC 6749 §4.1.3) with PKCE (RFC 7636 §4.6).
  func exchangeCode(_ parameters: FormParameters, client: TestClient, now: Date) throws -> JSONValue {
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
    return try issueTokens(grantID: grantID, scopes: record.authorization.scopes, now: now, code: code)
  }
}
