import Foundation

/// The claims of a JSON Web Token (RFC 7519), with typed access to the registered claims and the
/// OpenID Connect ones, and the whole JSON object for the rest.
///
/// Creating claims checks the types of the claims it knows (`exp` must be a number, `aud` a string or
/// an array of strings, and so on); whether their values are acceptable is decided by validation.
public struct JWTClaims: Sendable, Hashable {
  /// The claims, read once and kept in one object: a copy of the claims (`let claims = jwt.claims`,
  /// an `IDToken` or a session keeping them) is then one reference, where a struct of sixteen
  /// claims retained and released every string. The accessors are inlinable, so that a caller reads
  /// a claim where it stands, as it read a stored property, without a call or a retain.
  @usableFromInline let storage: Storage

  /// The claims set's JSON, as received (or as serialized from ``init(raw:)``).
  private var payload: [UInt8] { storage.payload }

  /// Every claim, as JSON. Built from the payload on each access: verification reads only the typed
  /// claims, so tokens are not turned into dictionaries they never need.
  public var raw: [String: JSONValue] { (try? JSONValue(parsing: payload).objectValue) ?? [:] }

  /// `iss`: who issued the token.
  @inlinable public var issuer: String? { storage.issuer }
  /// `sub`: whom the token is about.
  @inlinable public var subject: String? { storage.subject }
  /// `aud`: for whom the token is meant; a single string is read as a one-element array.
  @inlinable public var audience: [String] { storage.audience }
  /// `exp`: when the token expires.
  @inlinable public var expiresAt: Date? { storage.expiresAt }
  /// `nbf`: before when the token must not be accepted.
  @inlinable public var notBefore: Date? { storage.notBefore }
  /// `iat`: when the token was issued.
  @inlinable public var issuedAt: Date? { storage.issuedAt }
  /// `jti`: the token's unique identifier.
  @inlinable public var jwtID: String? { storage.jwtID }
  /// `nonce` (OpenID Connect): the value from the authorization request.
  @inlinable public var nonce: String? { storage.nonce }
  /// `azp` (OpenID Connect): the client the token was issued to.
  @inlinable public var authorizedParty: String? { storage.authorizedParty }
  /// `at_hash` (OpenID Connect): the access token's hash.
  @inlinable public var accessTokenHash: String? { storage.accessTokenHash }
  /// `c_hash` (OpenID Connect): the authorization code's hash.
  @inlinable public var codeHash: String? { storage.codeHash }
  /// `auth_time` (OpenID Connect): when the user authenticated.
  @inlinable public var authTime: Date? { storage.authTime }
  /// `sid` (OpenID Connect): the session at the provider.
  @inlinable public var sessionID: String? { storage.sessionID }
  /// `acr` (OpenID Connect): the authentication context class the user's authentication satisfied.
  @inlinable public var authenticationContextClass: String? { storage.authenticationContextClass }
  /// `ds_hash` (OpenID Connect Native SSO for Mobile Apps 1.0): the binding of an ID token to the
  /// device secret issued with it.
  @inlinable public var deviceSecretHash: String? { storage.deviceSecretHash }

  /// Reads claims from a JWT payload.
  ///
  /// - Throws: ``XidError`` with ``XidError/Code/invalidJSON`` when the payload is not a JSON object,
  ///   and ``XidError/Code/invalidClaims`` when a known claim has the wrong type.
  public init(payload: some Collection<UInt8>) throws {
    guard payload.count <= JSONValue.maximumDocumentSize else {
      throw XidError(
        .inputTooLarge, "JSON document of \(payload.count) bytes exceeds \(JSONValue.maximumDocumentSize)")
    }
    let payload = payload as? [UInt8] ?? Array(payload)
    var issuer: String?, subject: String?, jwtID: String?, nonce: String?, authorizedParty: String?
    var accessTokenHash: String?, codeHash: String?, sessionID: String?, deviceSecretHash: String?
    var authenticationContextClass: String?
    var expiresAt: Date?, notBefore: Date?, issuedAt: Date?, authTime: Date?
    var audience: [String] = []
    try payload.withUnsafeBufferPointer { bytes in
      // One pass over the members, matching names and building only the registered claims' values:
      // this is on the path of every token verification.
      try JSONParser.visitObject(bytes) { member, parser in
        // Every registered claim's name has at most 9 bytes, so it is a small (inline) string.
        // Names are matched as bytes: no string is made for a member that is not read.
        guard let claim = Registered.match(member) else { return try parser.skipValue() }
        let name = claim.rawValue
        switch claim {
        case .iss: issuer = try Self.string(name, parser.parseValue())
        case .sub: subject = try Self.string(name, parser.parseValue())
        case .aud: audience = try Self.audience(parser.parseValue())
        case .exp: expiresAt = try Self.date(name, parser.parseValue())
        case .nbf: notBefore = try Self.date(name, parser.parseValue())
        case .iat: issuedAt = try Self.date(name, parser.parseValue())
        case .jti: jwtID = try Self.string(name, parser.parseValue())
        case .nonce: nonce = try Self.string(name, parser.parseValue())
        case .azp: authorizedParty = try Self.string(name, parser.parseValue())
        case .at_hash: accessTokenHash = try Self.string(name, parser.parseValue())
        case .c_hash: codeHash = try Self.string(name, parser.parseValue())
        case .auth_time: authTime = try Self.date(name, parser.parseValue())
        case .sid: sessionID = try Self.string(name, parser.parseValue())
        case .ds_hash: deviceSecretHash = try Self.string(name, parser.parseValue())
        case .acr: authenticationContextClass = try Self.string(name, parser.parseValue())
        }
      }
    }
    // Built in one step once every claim is read: assigning stored properties after the throwing
    // parse made the compiler copy every claim out again (a retain and a release per claim).
    storage = Storage(
      payload: payload, issuer: issuer, subject: subject, audience: audience, expiresAt: expiresAt,
      notBefore: notBefore, issuedAt: issuedAt, jwtID: jwtID, nonce: nonce, authorizedParty: authorizedParty,
      accessTokenHash: accessTokenHash, codeHash: codeHash, authTime: authTime, sessionID: sessionID,
      authenticationContextClass: authenticationContextClass, deviceSecretHash: deviceSecretHash)
  }

  /// The payload and the claims read from it. Immutable, so shared by every copy of the claims.
  @usableFromInline final class Storage: Sendable {
    let payload: [UInt8]
    @usableFromInline let issuer: String?, subject: String?, audience: [String]
    @usableFromInline let expiresAt: Date?, notBefore: Date?, issuedAt: Date?, authTime: Date?
    @usableFromInline let jwtID: String?, nonce: String?, authorizedParty: String?
    @usableFromInline let accessTokenHash: String?, codeHash: String?, sessionID: String?
    @usableFromInline let authenticationContextClass: String?, deviceSecretHash: String?

    init(
      payload: consuming [UInt8], issuer: consuming String?, subject: consuming String?,
      audience: consuming [String], expiresAt: Date?, notBefore: Date?, issuedAt: Date?, jwtID: consuming String?,
      nonce: consuming String?, authorizedParty: consuming String?, accessTokenHash: consuming String?,
      codeHash: consuming String?, authTime: Date?, sessionID: consuming String?,
      authenticationContextClass: consuming String?, deviceSecretHash: consuming String?
    ) {
      self.payload = payload
      self.issuer = issuer
      self.subject = subject
      self.audience = audience
      self.expiresAt = expiresAt
      self.notBefore = notBefore
      self.issuedAt = issuedAt
      self.jwtID = jwtID
      self.nonce = nonce
      self.authorizedParty = authorizedParty
      self.accessTokenHash = accessTokenHash
      self.codeHash = codeHash
      self.authTime = authTime
      self.sessionID = sessionID
      self.authenticationContextClass = authenticationContextClass
      self.deviceSecretHash = deviceSecretHash
    }
  }

  /// Reads claims from a JSON object. See ``init(payload:)``.
  public init(raw: [String: JSONValue]) throws {
    try self.init(payload: JSONValue.object(raw).serializedBytes(sortedKeys: true))
  }

  /// Claims are equal when their JSON is, whatever the order or spacing of the payloads.
  public static func == (lhs: JWTClaims, rhs: JWTClaims) -> Bool {
    lhs.storage === rhs.storage || lhs.payload == rhs.payload || lhs.raw == rhs.raw
  }

  public func hash(into hasher: inout Hasher) { hasher.combine(raw) }

  /// The claims ``init(payload:)`` reads into typed properties.
  private enum Registered: String, CaseIterable, NameMatchable {
    case iss, sub, aud, exp, nbf, iat, jti, nonce, azp, at_hash, c_hash, auth_time, sid, ds_hash, acr
    static let names = NameTable(Self.self)
  }

  /// The claim named `name`, as JSON.
  public subscript(name: String) -> JSONValue? { raw[name] }

  private static func string(_ name: String, _ value: JSONValue) throws -> String {
    guard case .string(let string) = value else {
      throw XidError(.invalidClaims, "the JWT claim \"\(name)\" must be a string")
    }
    return string
  }

  private static func audience(_ value: JSONValue) throws -> [String] {
    switch value {
    case .string(let single): return [single]
    case .array(let many):
      let audience = many.compactMap(\.stringValue)
      if audience.count == many.count { return audience }
    default: break
    }
    throw XidError(.invalidClaims, "the JWT claim \"aud\" must be a string or an array of strings")
  }

  private static func date(_ name: String, _ value: JSONValue) throws -> Date {
    guard let seconds = value.doubleValue, seconds.isFinite else {
      throw XidError(.invalidClaims, "the JWT claim \"\(name)\" must be a number of seconds since 1970 (NumericDate)")
    }
    return Date(timeIntervalSince1970: seconds)
  }
}
