import Foundation
import XidCore

extension TestProvider {
  /// Signs an ID token (OpenID Connect Core §2, §3.1.3.6, §12.2) for `authorization`, applying the
  /// ID token hostile modes that are on.
  ///
  /// - Parameters:
  ///   - accessToken: the access token issued with it, for `at_hash`; `nil` for an ID token issued
  ///     alone (a token exchange's issued token).
  ///   - deviceSecret: the device secret it is bound to (Native SSO): `ds_hash` is its hash by
  ///     `at_hash`'s rule.
  ///   - exchangedFrom: for a Native SSO exchange, the client of the family's ID token, which
  ///     ``Misbehavior/familyAudienceOnExchange`` names as the audience.
  func mintIDToken(
    for authorization: Authorization, accessToken: String?, code: String?, refreshing: Bool, scopes: [String],
    now: Date, deviceSecret: String? = nil, exchangedFrom: String? = nil
  ) throws -> String {
    if misbehaviors.use(.rotateKeyBeforeSigning) {
      try keys.rotate(to: keys.current.algorithm, keepingPrevious: configuration.keepsPreviousKeysOnRotation)
    }
    let key = keys.current
    let issuedAt = now.timeIntervalSince1970.rounded(.down)
    let lifetime = configuration.idTokenLifetime.timeInterval
    var claims: [String: JSONValue] = [:]
    if configuration.includesScopeClaimsInIDToken {
      claims = ScopeClaims.released(from: authorization.user, for: scopes)
    }
    claims["iss"] = .string(issuerIdentifier)
    claims["sub"] = .string(authorization.user.subject)
    claims["aud"] = .string(authorization.clientId)
    claims["azp"] = .string(authorization.clientId)
    claims["iat"] = Self.numericDate(issuedAt)
    claims["exp"] = Self.numericDate(issuedAt + lifetime)
    let authTime = authorization.session.authTime.timeIntervalSince1970.rounded(.down)
    let signingIn = code != nil && !refreshing
    claims["auth_time"] = Self.numericDate(signingIn && misbehaviors.use(.staleAuthTime) ? authTime - 3600 : authTime)
    if let acr = authorization.session.acr { claims["acr"] = .string(acr) }
    if signingIn && misbehaviors.use(.unrequestedACR) { claims["acr"] = .string(Misbehavior.foreignACR) }
    if signingIn && misbehaviors.use(.otherSubjectOnSignIn) { claims["sub"] = .string(Misbehavior.foreignSubject) }
    claims["sid"] = .string(authorization.session.id)
    if let accessToken { claims["at_hash"] = .string(Self.tokenHash(accessToken, for: key.algorithm)) }
    if let deviceSecret {
      if misbehaviors.use(.wrongDeviceSecretHash) {
        claims["ds_hash"] = .string(Self.tokenHash("another device secret", for: key.algorithm))
      } else if !misbehaviors.use(.missingDeviceSecretHash) {
        claims["ds_hash"] = .string(Self.tokenHash(deviceSecret, for: key.algorithm))
      }
    }
    // A refreshed ID token carries no nonce (OpenID Connect Core §12.2 recommends leaving it out).
    if !refreshing, let nonce = authorization.nonce { claims["nonce"] = .string(nonce) }
    if configuration.includesCodeHash, let code { claims["c_hash"] = .string(Self.tokenHash(code, for: key.algorithm)) }

    if misbehaviors.use(.wrongIssuer) { claims["iss"] = .string(Misbehavior.foreignIssuer) }
    if misbehaviors.use(.missingSubject) { claims["sub"] = nil }
    if refreshing && misbehaviors.use(.otherSubjectOnRefresh) { claims["sub"] = .string(Misbehavior.foreignSubject) }
    if let exchangedFrom {
      if misbehaviors.use(.otherSubjectOnExchange) { claims["sub"] = .string(Misbehavior.foreignSubject) }
      if misbehaviors.use(.familyAudienceOnExchange) {
        claims["aud"] = .string(exchangedFrom)
        claims["azp"] = .string(exchangedFrom)
      }
    }
    if misbehaviors.use(.wrongAudience) {
      claims["aud"] = .string(Misbehavior.foreignAudience)
      claims["azp"] = .string(Misbehavior.foreignAudience)
    }
    if accessToken != nil, misbehaviors.use(.wrongAccessTokenHash) {
      claims["at_hash"] = .string(Self.tokenHash("another access token", for: key.algorithm))
    }
    if misbehaviors.use(.wrongNonce) { claims["nonce"] = .string("not-the-nonce-" + (try Randomness.token(bytes: 8))) }
    if misbehaviors.use(.expiredIDToken) {
      claims["iat"] = Self.numericDate(issuedAt - 3600 - lifetime)
      claims["exp"] = Self.numericDate(issuedAt - 3600)
    }
    if misbehaviors.use(.issuedInFuture) {
      claims["iat"] = Self.numericDate(issuedAt + 3600)
      claims["exp"] = Self.numericDate(issuedAt + 3600 + lifetime)
    }
    if misbehaviors.use(.missingIssuedAt) { claims["iat"] = nil }

    let payload = JSONValue.object(claims).serializedBytes()
    if misbehaviors.use(.unsignedIDToken) {
      return Base64URL.encode(JSONValue.object(["alg": "none", "typ": "JWT"]).serializedBytes()) + "."
        + Base64URL.encode(payload) + "."
    }
    let withoutKeyID = misbehaviors.use(.missingKeyID)
    let withoutKeyIDAmongSeveral = misbehaviors.use(.missingKeyIDWithSeveralKeys)
    let token = try key.sign(payload, header: ["typ": "JWT"], includeKeyID: !(withoutKeyID || withoutKeyIDAmongSeveral))
    return misbehaviors.use(.invalidSignature) ? try Self.corruptingSignature(of: token) : token
  }

  /// `at_hash` or `c_hash`: the left half of the hash of `value`'s ASCII, base64url. The hash is
  /// SHA-256 for ES256, RS256 and PS256, and SHA-512 for EdDSA with Ed25519.
  static func tokenHash(_ value: String, for algorithm: JWSAlgorithm) -> String {
    let digest = algorithm == .edDSA ? XidCrypto.sha512(Array(value.utf8)) : XidCrypto.sha256(Array(value.utf8))
    return Base64URL.encode(digest.prefix(digest.count / 2))
  }

  /// `token` with one bit of its signature flipped.
  private static func corruptingSignature(of token: String) throws -> String {
    var parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    var signature = try Base64URL.decode(parts[2])
    signature[signature.count / 2] ^= 0x01
    parts[2] = Base64URL.encode(signature)
    return parts.joined(separator: ".")
  }

  private static func numericDate(_ seconds: TimeInterval) -> JSONValue { .int(Int64(seconds)) }
}
