extension JWK {
  /// The RFC 7638 SHA-256 thumbprint of the key, base64url encoded.
  ///
  /// It is computed over the key type's required members only, in lexicographic order, with no
  /// whitespace, so it identifies the key whatever optional members (`kid`, `use`, `alg`) it carries.
  public var thumbprint: String {
    let required: [String]
    switch keyType {
    case .ec: required = ["crv", "kty", "x", "y"]
    case .rsa: required = ["e", "kty", "n"]
    case .okp: required = ["crv", "kty", "x"]
    }
    var canonical: [String: JSONValue] = [:]
    for name in required { canonical[name] = members[name] }
    return Base64URL.encode(XidCrypto.sha256(JSONValue.object(canonical).serializedBytes(sortedKeys: true)))
  }
}
