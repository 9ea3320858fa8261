/// A public key, parsed once from its JWK into the platform's key object, ready to verify any number
/// of signatures.
///
/// Preparing a key validates it completely: P-256 points must lie on the curve, RSA moduli must have
/// at least 2048 bits, an odd exponent of at least 3 and no ROCA fingerprint.
public struct JWSVerificationKey: Sendable, CustomStringConvertible {
  /// The JWK and its platform key in one immutable object, so that a copy of the key (a key set's
  /// candidates, every verified token) is one reference rather than one for each of the JWK's members.
  private final class Storage: Sendable {
    let jwk: JWK
    let platformKey: PlatformPublicKey

    init(jwk: JWK, platformKey: PlatformPublicKey) {
      self.jwk = jwk
      self.platformKey = platformKey
    }
  }

  private let storage: Storage

  /// The key as published.
  public var jwk: JWK { storage.jwk }
  /// The platform's key object.
  var platformKey: PlatformPublicKey { storage.platformKey }

  /// Prepares `jwk` for verification.
  ///
  /// - Throws: ``XidError`` with code ``XidError/Code/invalidKey`` when the platform rejects the key.
  public init(jwk: JWK) throws {
    let platformKey: PlatformPublicKey
    switch jwk.material {
    case .p256(let x, let y): platformKey = try .p256(x: x, y: y)
    case .rsa(let n, let e): platformKey = try .rsa(modulus: n, exponent: e)
    case .ed25519(let x): platformKey = try .ed25519(x: x)
    }
    storage = Storage(jwk: jwk, platformKey: platformKey)
  }

  /// Parses and prepares a public JWK from a JSON object. See ``JWK/init(json:)``.
  public init(json: JSONValue) throws {
    try self.init(jwk: JWK(json: json))
  }

  /// The key's `kid`.
  public var keyID: String? { storage.jwk.keyID }

  /// Whether the JWK's own `use`, `key_ops` and `alg` allow verifying `algorithm` (read in place,
  /// without copying the JWK).
  func permitsVerification(with algorithm: JWSAlgorithm) -> Bool {
    storage.jwk.permitsVerification(with: algorithm)
  }

  /// `JWSVerificationKey(JWK(kty: …, kid: …))`; never the key material.
  public var description: String { "JWSVerificationKey(\(jwk))" }
}
