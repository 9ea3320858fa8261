import Foundation

/// The claims of a JSON Web Token (RFC 7519), with typed access to the registered claims and the
/// OpenID Connect ones, and the whole JSON object for the rest.
///
/// Creating claims checks the types of the claims it knows (`exp` must be a number, `aud` a string or
/// an array of strings, and so on); whether their values are acceptable is decided by validation.
public struct JWTClaims: Sendable, Hashable {
  /// Every claim, as JSON.
  public let raw: [String: JSONValue]

  /// `iss`: who issued the token.
  public let issuer: String?
  /// `sub`: whom the token is about.
  public let subject: String?
  /// `aud`: for whom the token is meant; a single string is read as a one-element array.
  public let audience: [String]
  /// `exp`: when the token expires.
  public let expiresAt: Date?
  /// `nbf`: before when the token must not be accepted.
  public let notBefore: Date?
  /// `iat`: when the token was issued.
  public let issuedAt: Date?
  /// `jti`: the token's unique identifier.
  public let jwtID: String?
  /// `nonce` (OpenID Connect): the value from the authorization request.
  public let nonce: String?
  /// `azp` (OpenID Connect): the client the token was issued to.
  public let authorizedParty: String?
  /// `at_hash` (OpenID Connect): the access token's hash.
  public let accessTokenHash: String?
  /// `c_hash` (OpenID Connect): the authorization code's hash.
  public let codeHash: String?
  /// `auth_time` (OpenID Connect): when the user authenticated.
  public let authTime: Date?
  /// `sid` (OpenID Connect): the session at the provider.
  public let sessionID: String?

  /// Reads claims from a JWT payload.
  ///
  /// - Throws: ``XidError`` with ``XidError/Code/invalidJSON`` when the payload is not a JSON object,
  ///   and ``XidError/Code/invalidClaims`` when a known claim has the wrong type.
  public init(payload: some Collection<UInt8>) throws {
    guard let raw = try JSONValue(parsing: payload).objectValue else {
      throw XidError(.invalidJSON, "the JWT payload is not a JSON object")
    }
    try self.init(raw: raw)
  }

  /// Reads claims from a JSON object. See ``init(payload:)``.
  public init(raw: [String: JSONValue]) throws {
    self.raw = raw
    issuer = try Self.string("iss", raw)
    subject = try Self.string("sub", raw)
    switch raw["aud"] {
    case nil: audience = []
    case .string(let single)?: audience = [single]
    case .array(let many)?:
      audience = many.compactMap(\.stringValue)
      guard audience.count == many.count else {
        throw XidError(.invalidClaims, "the JWT claim \"aud\" must be a string or an array of strings")
      }
    default: throw XidError(.invalidClaims, "the JWT claim \"aud\" must be a string or an array of strings")
    }
    expiresAt = try Self.date("exp", raw)
    notBefore = try Self.date("nbf", raw)
    issuedAt = try Self.date("iat", raw)
    jwtID = try Self.string("jti", raw)
    nonce = try Self.string("nonce", raw)
    authorizedParty = try Self.string("azp", raw)
    accessTokenHash = try Self.string("at_hash", raw)
    codeHash = try Self.string("c_hash", raw)
    authTime = try Self.date("auth_time", raw)
    sessionID = try Self.string("sid", raw)
  }

  /// The claim named `name`, as JSON.
  public subscript(name: String) -> JSONValue? { raw[name] }

  private static func string(_ name: String, _ raw: [String: JSONValue]) throws -> String? {
    guard let value = raw[name] else { return nil }
    guard let string = value.stringValue else {
      throw XidError(.invalidClaims, "the JWT claim \"\(name)\" must be a string")
    }
    return string
  }

  private static func date(_ name: String, _ raw: [String: JSONValue]) throws -> Date? {
    guard let value = raw[name] else { return nil }
    guard let seconds = value.doubleValue, seconds.isFinite else {
      throw XidError(.invalidClaims, "the JWT claim \"\(name)\" must be a number of seconds since 1970 (NumericDate)")
    }
    return Date(timeIntervalSince1970: seconds)
  }
}
