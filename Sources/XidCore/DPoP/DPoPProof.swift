import Foundation

/// DPoP proofs (RFC 9449 §4): the JWT a client sends in the `DPoP` header of each request, signed
/// with the session's key, that proves it holds the key its tokens are bound to.
///
/// Xid makes them itself for every request it sends. Use ``make(key:method:url:accessToken:nonce:issuedAt:)``
/// directly only to test a server; for requests an app sends with its own networking, ask
/// `Xid.authorizationHeaders(method:url:)` for both headers.
///
/// A proof has:
/// - the header `typ: "dpop+jwt"`, `alg: "ES256"` and `jwk`, the public key only (`kty`, `crv`, `x`,
///   `y`);
/// - the claims `jti` (128 random bits, base64url), `htm` (the method), `htu` (the URL without query
///   and fragment, otherwise exactly as sent, since servers compare bytes), `iat` (whole seconds,
///   rounded down so it is never ahead of the clock), `ath` (the base64url SHA-256 of the access
///   token, toward resource servers) and `nonce` (when the server gave one).
public enum DPoPProof {
  /// The `typ` of a proof's header.
  public static let type = "dpop+jwt"

  /// Makes a proof for one request.
  ///
  /// - Parameters:
  ///   - key: the key the tokens are bound to.
  ///   - method: the request's method (`htm`), for example `"GET"`.
  ///   - url: the request's URL; its query and fragment are left out of `htu`.
  ///   - accessToken: the access token the request carries, for a resource server (`ath`); `nil` at the
  ///     token endpoint.
  ///   - nonce: the server's latest `DPoP-Nonce`, when it gave one.
  ///   - issuedAt: the time of `iat`, rounded down to the second.
  /// - Throws: ``XidError`` with ``XidError/Code/cryptoFailure`` when no random bytes or signature can
  ///   be made.
  public static func make(
    key: any DPoPKey, method: String, url: URL, accessToken: String? = nil, nonce: String? = nil,
    issuedAt: Date = Date()
  ) throws -> String {
    try make(
      encodedHeader: encodedHeader(for: key.publicJWK), sign: key.sign, method: method, url: url,
      accessToken: accessToken, nonce: nonce, issuedAt: issuedAt)
  }

  /// The `htu` of a request to `url`: the URL as sent, without its query and fragment.
  public static func targetURI(of url: URL) -> String {
    let text = url.absoluteString
    guard let end = text.firstIndex(where: { $0 == "?" || $0 == "#" }) else { return text }
    return String(text[..<end])
  }

  /// The `ath` for `accessToken`: the base64url SHA-256 of its ASCII bytes.
  public static func accessTokenHash(_ accessToken: String) -> String {
    Base64URL.encode(XidCrypto.sha256(accessToken.utf8))
  }

  // MARK: - Assembly

  /// The public members of a P-256 JWK, and nothing else: `kty`, `crv`, `x` and `y`.
  ///
  /// - Throws: ``XidError`` with ``XidError/Code/unsupportedKey`` for a key that is not P-256.
  static func publicJWK(of jwk: JWK) throws -> JWK {
    guard jwk.keyType == .ec, jwk.members["crv"]?.stringValue == "P-256" else {
      throw XidError(.unsupportedKey, "a DPoP key must be an EC P-256 key (ES256)")
    }
    var members: [String: JSONValue] = [:]
    for name in ["kty", "crv", "x", "y"] { members[name] = jwk.members[name] }
    return try JWK(json: .object(members))
  }

  /// The base64url of a proof's header for the key `jwk`: the same for every proof of a key, so
  /// callers that send many proofs compute it once.
  static func encodedHeader(for jwk: JWK) -> String {
    let header: JSONValue = [
      "typ": .string(type), "alg": "ES256",
      "jwk": [
        "kty": "EC", "crv": "P-256", "x": jwk.members["x"] ?? .null, "y": jwk.members["y"] ?? .null,
      ],
    ]
    return Base64URL.encode(header.serializedBytes(sortedKeys: true))
  }

  /// A proof with a header already encoded (see ``encodedHeader(for:)``).
  static func make(
    encodedHeader: String, sign: ([UInt8]) throws -> [UInt8], method: String, url: URL, accessToken: String?,
    nonce: String?, issuedAt: Date
  ) throws -> String {
    var claims: [String: JSONValue] = [
      "jti": .string(Base64URL.encode(try XidCrypto.randomBytes(count: 16))),
      "htm": .string(method),
      "htu": .string(targetURI(of: url)),
      "iat": .int(Int64(issuedAt.timeIntervalSince1970.rounded(.down))),
    ]
    if let accessToken { claims["ath"] = .string(accessTokenHash(accessToken)) }
    if let nonce { claims["nonce"] = .string(nonce) }
    let signingInput = encodedHeader + "." + Base64URL.encode(JSONValue.object(claims).serializedBytes())
    let signature = try sign(Array(signingInput.utf8))
    return signingInput + "." + Base64URL.encode(signature)
  }
}
