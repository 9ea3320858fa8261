import Foundation

/// A successful token endpoint response (RFC 6749 §5.1), from a code exchange, a refresh or the
/// device grant.
///
/// Its `description` shows no token; every member, known or not, is in ``raw``.
public struct TokenResponse: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
  /// `access_token`.
  public let accessToken: String
  /// `token_type`, read case-insensitively.
  public let tokenType: TokenType
  /// `expires_in`, when the provider sent it.
  public let expiresIn: Duration?
  /// When the access token expires: ``receivedAt`` plus ``expiresIn``, when the latter is known.
  public var expiresAt: Date? { expiresIn.map { receivedAt.addingTimeInterval($0.timeInterval) } }
  /// `refresh_token`, when one was issued. A refresh response without one means the previous refresh
  /// token stays in use.
  public let refreshToken: String?
  /// `id_token`, as received (compact JWS). Validated separately; see ``IDTokenValidator``.
  public let idToken: String?
  /// `scope`, split at spaces, when the provider sent it (RFC 6749 §5.1: then the granted scopes may
  /// differ from the requested ones).
  public let scope: [String]?
  /// `device_secret`, when the provider issued one (OpenID Connect Native SSO for Mobile Apps 1.0:
  /// a sign-in or refresh with the `device_sso` scope). Keep it with the ID token of the same
  /// answer, as a pair: ``IDToken/checkDeviceSecret(_:rule:)`` checks that the two belong together.
  /// Secret: never in a `description` or mirror.
  public let deviceSecret: String?
  /// `authorization_details`: what the provider granted (RFC 9396 §7), when it said; `nil` when the
  /// response has none. Shows only the types in a `description`.
  public let authorizationDetails: [AuthorizationDetail]?
  /// When the response arrived.
  public let receivedAt: Date
  /// Every member of the response, known or not.
  public let raw: [String: JSONValue]

  /// The longest lifetime a response's `expires_in` gives a token: 2³¹ − 1 seconds (68 years). A
  /// longer one counts as this: no `Duration` holds some values a server may send (`1e300`), and
  /// none of them means anything but "does not expire soon".
  public static let maximumLifetime: Duration = .seconds(Int64(Int32.max))

  /// Reads a token response object.
  ///
  /// `expires_in` may be a number or a numeric string (some providers send `"3600"`); one over
  /// ``maximumLifetime`` counts as ``maximumLifetime``.
  ///
  /// - Throws: ``XidError/Code/invalidTokenResponse`` when `access_token` is missing or empty, a known
  ///   member has the wrong type, or `token_type` is missing or neither Bearer nor DPoP.
  public init(json raw: [String: JSONValue], receivedAt: Date) throws {
    guard let accessToken = raw["access_token"]?.stringValue, !accessToken.isEmpty else {
      throw XidError(.invalidTokenResponse, "the token response has no string \"access_token\"")
    }
    guard let typeValue = raw["token_type"]?.stringValue else {
      throw XidError(.invalidTokenResponse, "the token response has no string \"token_type\"")
    }
    guard let tokenType = TokenType(parsing: typeValue) else {
      throw XidError(
        .invalidTokenResponse,
        "the token response's token_type \"\(SafeText.short(typeValue, limit: 32))\" is neither Bearer nor DPoP")
    }
    func string(_ name: String) throws -> String? { try Self.string(name, in: raw, of: "token response") }
    expiresIn = try Self.lifetime(raw["expires_in"], of: "token response")
    self.accessToken = accessToken
    self.tokenType = tokenType
    self.refreshToken = try string("refresh_token")
    self.idToken = try string("id_token")
    self.scope = try string("scope").map { $0.split(separator: " ").map(String.init) }
    self.deviceSecret = try string("device_secret")
    self.authorizationDetails = try raw["authorization_details"].flatMap { value in
      value == .null
        ? nil
        : try AuthorizationDetail.array(
          value, of: "token response's authorization_details", code: .invalidTokenResponse)
    }
    self.receivedAt = receivedAt
    self.raw = raw
  }

  /// The string member `name` of a token endpoint's answer; `nil` when it is absent, `null` or empty.
  ///
  /// - Throws: ``XidError/Code/invalidTokenResponse`` when it is not a string.
  static func string(_ name: String, in raw: [String: JSONValue], of answer: String) throws -> String? {
    guard let value = raw[name], value != .null else { return nil }
    guard let string = value.stringValue else {
      throw XidError(.invalidTokenResponse, "the \(answer)'s \"\(name)\" is not a string")
    }
    return string.isEmpty ? nil : string
  }

  /// An `expires_in` value: a number or a numeric string of seconds, at most ``maximumLifetime``;
  /// `nil` when it is absent or `null`.
  ///
  /// - Throws: ``XidError/Code/invalidTokenResponse`` for anything else.
  static func lifetime(_ value: JSONValue?, of answer: String) throws -> Duration? {
    switch value {
    case nil, .null?: return nil
    case .string(let text)?:
      guard let seconds = Int64(text), seconds >= 0 else {
        throw XidError(.invalidTokenResponse, "the \(answer)'s \"expires_in\" is not a number of seconds")
      }
      return min(.seconds(seconds), maximumLifetime)
    case let value?:
      guard let seconds = value.doubleValue, seconds.isFinite, seconds >= 0 else {
        throw XidError(.invalidTokenResponse, "the \(answer)'s \"expires_in\" is not a number of seconds")
      }
      return seconds < maximumLifetime.timeInterval ? .seconds(seconds) : maximumLifetime
    }
  }

  /// `TokenResponse(tokenType: …, expiresIn: …, refreshToken: yes/no, idToken: yes/no, deviceSecret: yes/no,
  /// scope: …)`;
  /// never a token.
  public var description: String {
    "TokenResponse(tokenType: \(tokenType), expiresIn: \(expiresIn.map { String($0.components.seconds) } ?? "unknown"), refreshToken: \(refreshToken == nil ? "no" : "yes"), idToken: \(idToken == nil ? "no" : "yes"), deviceSecret: \(deviceSecret == nil ? "no" : "yes"), scope: \(scope?.joined(separator: " ") ?? "as requested"), authorizationDetails: \(authorizationDetails.map { AuthorizationDetail.types(of: $0).joined(separator: " ") } ?? "none"))"
  }

  /// The fields that are not secret, so that `dump` does not show the tokens.
  public var customMirror: Mirror {
    Mirror(
      self,
      children: [
        "tokenType": tokenType, "expiresIn": expiresIn as Any, "hasRefreshToken": refreshToken != nil,
        "hasIDToken": idToken != nil, "hasDeviceSecret": deviceSecret != nil, "scope": scope as Any,
        "authorizationDetailTypes": authorizationDetails.map(AuthorizationDetail.types(of:)) as Any,
        "receivedAt": receivedAt,
      ])
  }
}
