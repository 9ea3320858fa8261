/// The protected header of a JWS (RFC 7515 §4).
public struct JWSHeader: Sendable, Hashable {
  /// The `alg` member exactly as written. Whether it is acceptable is decided at verification, by the
  /// caller's allowed algorithms and the key, never by the header alone.
  public let algorithm: String
  /// The `kid` member: which key signed.
  public let keyID: String?
  /// The `typ` member, for example `"JWT"` or `"dpop+jwt"`.
  public let type: String?
  /// The header's JSON, as received.
  private let json: [UInt8]

  /// Every member of the header, built from its JSON on each access (verification needs only the
  /// members above).
  public var members: [String: JSONValue] { (try? JSONValue(parsing: json).objectValue) ?? [:] }

  /// Header members that Xid understands when a JWS lists them in `crit`. Xid implements no JWS
  /// extension, so none are.
  static let understoodCriticalMembers: Set<String> = []

  /// Reads a header from its JSON (which must be an object) and applies RFC 7515's rules for `crit`
  /// and RFC 7797's `b64`.
  init(json: [UInt8]) throws {
    var algorithm: String?, keyID: String?, type: String?
    var b64: JSONValue?, crit: JSONValue?
    do {
      try json.withUnsafeBufferPointer { bytes in
        try JSONParser.visitObject(bytes) { name, parser in
          guard let member = Member.match(name) else { return try parser.skipValue() }
          switch member {
          case .alg: algorithm = try Self.string("alg", parser.parseValue())
          case .kid: keyID = try Self.string("kid", parser.parseValue())
          case .typ: type = try Self.string("typ", parser.parseValue())
          case .b64: b64 = try parser.parseValue()
          case .crit: crit = try parser.parseValue()
          }
        }
      }
    } catch let error as XidError where error.code == .invalidJSON {
      throw XidError(.malformedJWS, "the JWS header is not a valid JSON object (\(error.reason))")
    }
    guard let algorithm else { throw XidError(.malformedJWS, "the JWS header has no string \"alg\" member") }
    if let b64, b64 != .bool(true) {
      throw XidError(
        .unsupportedJWSFeature, "the JWS uses an unencoded payload (\"b64\": false, RFC 7797), which Xid refuses")
    }
    if let crit {
      guard let names = crit.arrayValue?.compactMap(\.stringValue), !names.isEmpty,
        names.count == crit.arrayValue?.count
      else { throw XidError(.malformedJWS, "the JWS header's \"crit\" must be a non-empty array of strings") }
      if let unknown = names.first(where: { !Self.understoodCriticalMembers.contains($0) }) {
        throw XidError(
          .unsupportedJWSFeature,
          "the JWS header marks \"\(unknown)\" as critical (crit), and Xid does not understand it")
      }
    }
    (self.algorithm, self.keyID, self.type, self.json) = (algorithm, keyID, type, json)
  }

  /// The members ``init(json:)`` reads.
  private enum Member: String, CaseIterable, NameMatchable {
    case alg, kid, typ, b64, crit
    static let names = NameTable(Self.self)
  }

  private static func string(_ name: String, _ value: JSONValue) throws -> String {
    guard case .string(let string) = value else {
      throw XidError(.malformedJWS, "the JWS header's \"\(name)\" is not a string")
    }
    return string
  }

  /// The header's `alg` as one of `allowed`.
  ///
  /// - Throws: ``XidError/Code/algorithmNotAllowed`` for `none`, HMAC, an unknown name, or a
  ///   supported algorithm the caller did not allow.
  public func algorithm(allowedBy allowed: Set<JWSAlgorithm>) throws -> JWSAlgorithm {
    guard let known = JWSAlgorithm(rawValue: algorithm) else {
      if algorithm == "none" {
        throw XidError(.algorithmNotAllowed, "the JWS is unsigned (alg \"none\"); Xid never accepts unsigned tokens")
      }
      if algorithm.hasPrefix("HS") {
        throw XidError(
          .algorithmNotAllowed,
          "the JWS uses the HMAC algorithm \(algorithm.prefix(8)), never accepted with a public key")
      }
      throw XidError(.algorithmNotAllowed, "the JWS algorithm \"\(algorithm.prefix(16))\" is not supported")
    }
    // At most four algorithms: looking through them costs less than hashing one.
    guard allowed.contains(where: { $0 == known }) else {
      let list = allowed.map(\.rawValue).sorted().joined(separator: ", ")
      throw XidError(.algorithmNotAllowed, "the JWS algorithm \(known) is not among the allowed ones (\(list))")
    }
    return known
  }
}
