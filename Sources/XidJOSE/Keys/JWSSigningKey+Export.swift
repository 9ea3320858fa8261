extension JWSSigningKey {
  /// The key as a private JWK (`kty`, `crv`, `x`, `y` and `d`), for storing a DPoP key that must
  /// outlive the process. Only P-256 keys can be exported; the result is secret: store it where
  /// tokens go, and never log it.
  ///
  /// - Throws: ``XidError`` with ``XidError/Code/unsupportedKey`` for a key that is not P-256, and
  ///   ``XidError/Code/cryptoFailure`` when the platform cannot export it.
  package func exportPrivateJWK() throws -> JSONValue {
    guard algorithm == .es256 else {
      throw XidError(.unsupportedKey, "only P-256 (ES256) signing keys can be exported")
    }
    guard let d = platformKey.privateScalar(), d.count == 32 else {
      throw XidError(.cryptoFailure, "the platform could not export the P-256 private key")
    }
    var members: [String: JSONValue] = [:]
    for name in ["kty", "crv", "x", "y"] { members[name] = publicJWK.members[name] }
    members["d"] = .string(Base64URL.encode(d))
    return .object(members)
  }
}
