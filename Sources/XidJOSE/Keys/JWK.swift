/// A public JSON Web Key (RFC 7517) of a type Xid can verify with: EC P-256, RSA (at least 2048
/// bits) or OKP Ed25519.
///
/// Creating a `JWK` validates its structure: the members its type requires are present, base64url
/// encoded and of the right length, and no private member (`d`, `p`, `q`, `dp`, `dq`, `qi`, `oth`,
/// `k`) is present, since a key fetched to verify tokens must never carry secrets. To verify with a
/// key, prepare it once with ``JWSVerificationKey/init(jwk:)``.
public struct JWK: Sendable, Hashable, CustomStringConvertible {
  /// A JWK `kty` value that Xid supports.
  public enum KeyType: String, Sendable, Hashable {
    /// Elliptic curve (Xid supports P-256).
    case ec = "EC"
    /// RSA.
    case rsa = "RSA"
    /// Octet key pair (Xid supports Ed25519).
    case okp = "OKP"
  }

  /// The key type (`kty`).
  public let keyType: KeyType
  /// The key ID (`kid`), used to pick the key a token names.
  public let keyID: String?
  /// The intended use (`use`): `"sig"` or `"enc"`.
  public let use: String?
  /// The one algorithm the key is meant for (`alg`), when it names one.
  public let algorithm: String?
  /// The operations the key is meant for (`key_ops`), when it lists them.
  public let keyOperations: [String]?
  /// Every member of the key, as it was given (public members only).
  public let members: [String: JSONValue]

  /// The key's public parameters, decoded.
  let material: Material

  enum Material: Hashable {
    case p256(x: [UInt8], y: [UInt8])
    case rsa(modulus: [UInt8], exponent: [UInt8])
    case ed25519(x: [UInt8])
  }

  static let privateMembers: Set<String> = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"]

  /// Reads a public key from a JSON object.
  ///
  /// - Throws: ``XidError`` with code ``XidError/Code/unsupportedKey`` for a key type or curve Xid
  ///   does not support, and ``XidError/Code/invalidKey`` for a malformed key or one that carries
  ///   private members.
  public init(json: JSONValue) throws {
    guard let members = json.objectValue else { throw XidError(.invalidKey, "a JWK must be a JSON object") }
    if let secret = members.keys.first(where: Self.privateMembers.contains) {
      throw XidError(
        .invalidKey,
        "the JWK carries the private member \"\(secret)\" where a public key is expected; publish public keys only")
    }
    try self.init(members: members, material: try Self.publicMaterial(of: members))
  }

  /// Reads a public key from JSON text. See ``init(json:)``.
  public init(parsing bytes: some Collection<UInt8>) throws {
    try self.init(json: try JSONValue(parsing: bytes))
  }

  init(members: [String: JSONValue], material: Material) throws {
    self.members = members
    self.material = material
    switch material {
    case .p256: keyType = .ec
    case .rsa: keyType = .rsa
    case .ed25519: keyType = .okp
    }
    keyID = try Self.optionalString("kid", in: members)
    use = try Self.optionalString("use", in: members)
    algorithm = try Self.optionalString("alg", in: members)
    if let ops = members["key_ops"] {
      guard let array = ops.arrayValue else { throw XidError(.invalidKey, "JWK key_ops must be an array of strings") }
      let strings = array.compactMap(\.stringValue)
      guard strings.count == array.count, Set(strings).count == strings.count else {
        throw XidError(.invalidKey, "JWK key_ops must be an array of unique strings")
      }
      keyOperations = strings
    } else {
      keyOperations = nil
    }
  }

  /// The algorithms this key can verify, before `alg`, `use` and `key_ops` narrow them.
  var compatibleAlgorithms: [JWSAlgorithm] {
    switch keyType {
    case .ec: [.es256]
    case .rsa: [.rs256, .ps256]
    case .okp: [.edDSA]
    }
  }

  /// Whether the key's own `use`, `key_ops` and `alg` allow verifying signatures of `algorithm`.
  public func permitsVerification(with algorithm: JWSAlgorithm) -> Bool {
    guard algorithm.keyType == keyType else { return false }
    if let use, use != "sig" { return false }
    if let keyOperations, !keyOperations.contains("verify") { return false }
    if let own = self.algorithm, own != algorithm.rawValue { return false }
    return true
  }

  /// `JWK(kty: …, kid: …)`; never the key material.
  public var description: String {
    "JWK(kty: \(keyType.rawValue), kid: \(keyID.map { "\"\($0)\"" } ?? "none"), alg: \(algorithm ?? "none"))"
  }

  // MARK: - Parsing

  private static func optionalString(_ name: String, in members: [String: JSONValue]) throws -> String? {
    guard let value = members[name] else { return nil }
    guard let string = value.stringValue else { throw XidError(.invalidKey, "JWK member \"\(name)\" must be a string") }
    return string
  }

  static func bytes(_ name: String, in members: [String: JSONValue], kty: String) throws -> [UInt8] {
    guard let text = members[name]?.stringValue else {
      throw XidError(.invalidKey, "\(kty) JWK lacks the base64url string member \"\(name)\"")
    }
    do {
      return try Base64URL.decode(text)
    } catch {
      throw XidError(.invalidKey, "\(kty) JWK member \"\(name)\" is not valid base64url")
    }
  }

  private static func publicMaterial(of members: [String: JSONValue]) throws -> Material {
    guard let kty = members["kty"]?.stringValue else {
      throw XidError(.invalidKey, "a JWK needs a string \"kty\" member")
    }
    switch kty {
    case "EC":
      let curve = members["crv"]?.stringValue
      guard curve == "P-256" else {
        throw XidError(.unsupportedKey, "EC JWK on curve \(curve ?? "(none)") is not supported; Xid supports P-256")
      }
      let x = try bytes("x", in: members, kty: kty), y = try bytes("y", in: members, kty: kty)
      guard x.count == 32, y.count == 32 else {
        throw XidError(.invalidKey, "P-256 JWK coordinates must be 32 bytes each (got \(x.count) and \(y.count))")
      }
      return .p256(x: x, y: y)
    case "RSA":
      var n = try bytes("n", in: members, kty: kty)[...], e = try bytes("e", in: members, kty: kty)[...]
      while n.first == 0 { n = n.dropFirst() }
      while e.first == 0 { e = e.dropFirst() }
      try RSAKeyCheck.validate(modulus: n, exponent: e)
      return .rsa(modulus: Array(n), exponent: Array(e))
    case "OKP":
      let curve = members["crv"]?.stringValue
      guard curve == "Ed25519" else {
        throw XidError(.unsupportedKey, "OKP JWK on curve \(curve ?? "(none)") is not supported; Xid supports Ed25519")
      }
      let x = try bytes("x", in: members, kty: kty)
      guard x.count == 32 else { throw XidError(.invalidKey, "Ed25519 JWK x must be 32 bytes (got \(x.count))") }
      return .ed25519(x: x)
    default:
      throw XidError(.unsupportedKey, "JWK key type \"\(kty)\" is not supported; Xid supports EC, RSA and OKP")
    }
  }
}
