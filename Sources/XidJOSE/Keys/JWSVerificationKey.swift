/// A public key, parsed once from its JWK into the platform's key object, ready to verify any number
/// of signatures.
///
/// Preparing a key validates it completely: P-256 points must lie on the curve, RSA moduli must have
/// at least 2048 bits, an odd exponent of at least 3 and no ROCA fingerprint.
public struct JWSVerificationKey: Sendable, CustomStringConvertible {
  /// The key as published.
  public let jwk: JWK
  let platformKey: PlatformPublicKey

  /// Prepares `jwk` for verification.
  ///
  /// - Throws: ``XidError`` with code ``XidError/Code/invalidKey`` when the platform rejects the key.
  public init(jwk: JWK) throws {
    self.jwk = jwk
    switch jwk.material {
    case .p256(let x, let y): platformKey = try .p256(x: x, y: y)
    case .rsa(let n, let e): platformKey = try .rsa(modulus: n, exponent: e)
    case .ed25519(let x): platformKey = try .ed25519(x: x)
    }
  }

  /// Parses and prepares a public JWK from a JSON object. See ``JWK/init(json:)``.
  public init(json: JSONValue) throws {
    try self.init(jwk: JWK(json: json))
  }

  /// The key's `kid`.
  public var keyID: String? { jwk.keyID }

  /// `JWSVerificationKey(JWK(kty: …, kid: …))`; never the key material.
  public var description: String { "JWSVerificationKey(\(jwk))" }
}
