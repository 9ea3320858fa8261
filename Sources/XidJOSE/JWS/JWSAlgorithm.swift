/// The JWS signature algorithms Xid verifies (RFC 7518 §3, RFC 8037).
///
/// `none` and every HMAC algorithm are deliberately absent: Xid never accepts them against a public
/// key, whatever a token's header says.
public enum JWSAlgorithm: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
  /// ECDSA with P-256 and SHA-256; the signature is r ‖ s, exactly 64 bytes.
  case es256 = "ES256"
  /// RSASSA-PKCS1-v1_5 with SHA-256.
  case rs256 = "RS256"
  /// RSASSA-PSS with SHA-256, MGF1 with SHA-256 and a 32-byte salt.
  case ps256 = "PS256"
  /// EdDSA; Xid supports the Ed25519 curve.
  case edDSA = "EdDSA"

  /// The algorithm registered as `rawValue` (compared byte for byte: `"es256"` is not ES256).
  public init?(rawValue: String) {
    // Matched as the bytes of a name key: a switch over the names compared the string with each
    // name in turn, on every token verified.
    var name = rawValue
    guard let algorithm = name.withUTF8({ Self.names.match(NameKey($0)) }) else { return nil }
    self = algorithm
  }

  /// The registered name, as it appears in a JWS header's `alg`.
  public var description: String { rawValue }

  /// The JWK key type this algorithm needs.
  public var keyType: JWK.KeyType {
    switch self {
    case .es256: .ec
    case .rs256, .ps256: .rsa
    case .edDSA: .okp
    }
  }
}

extension JWSAlgorithm: NameMatchable {
  static let names = NameTable(Self.self)
}
