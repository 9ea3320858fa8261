import Foundation

/// The `token_type` of a token exchange's answer (RFC 8693 §2.2.1): how the issued token is used,
/// compared case-insensitively. Besides the access token types of ``TokenType``, an exchange may
/// issue a token that is not an access token at all (an ID token, a SAML assertion): its type is
/// `N_A`.
public enum ExchangedTokenType: String, Sendable, Hashable, Codable, CustomStringConvertible {
  /// A bearer access token (RFC 6750).
  case bearer = "Bearer"
  /// A DPoP-bound access token (RFC 9449).
  case dpop = "DPoP"
  /// `N_A`: the issued token is not an access token and cannot be used as one.
  case notApplicable = "N_A"

  /// Reads a `token_type` value case-insensitively; `nil` for any other type.
  public init?(parsing value: String) {
    switch value.lowercased() {
    case "bearer": self = .bearer
    case "dpop": self = .dpop
    case "n_a": self = .notApplicable
    default: return nil
    }
  }

  /// How the issued token is sent as an access token, or `nil` for ``notApplicable``.
  public var accessTokenType: TokenType? {
    switch self {
    case .bearer: .bearer
    case .dpop: .dpop
    case .notApplicable: nil
    }
  }

  /// The canonical name: `Bearer`, `DPoP` or `N_A`.
  public var description: String { rawValue }
}

/// A successful token exchange response (RFC 8693 §2.2.1), with the members OpenID Connect Native SSO
/// adds (draft 07 §4.4): the sibling's ID token and, possibly, a new device secret.
///
/// Its `description` and mirror show no token; every member, known or not, is in ``raw``.
public struct TokenExchangeResponse: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
  /// `access_token`: the issued token, whatever its type (``issuedTokenType``); RFC 8693 uses this
  /// member for an ID token or a SAML assertion as well. Secret.
  public let accessToken: String
  /// `issued_token_type`: what ``accessToken`` is.
  public let issuedTokenType: TokenTypeIdentifier
  /// `token_type`: how ``accessToken`` is used; ``ExchangedTokenType/notApplicable`` for a token
  /// that is not an access token.
  public let tokenType: ExchangedTokenType
  /// `expires_in`, when the provider sent it: the issued token's lifetime.
  public let expiresIn: Duration?
  /// When the issued token expires: ``receivedAt`` plus ``expiresIn``, when the latter is known.
  public var expiresAt: Date? { expiresIn.map { receivedAt.addingTimeInterval($0.timeInterval) } }
  /// `scope`, split at spaces, when the provider sent it (RFC 8693 requires it when the scope differs
  /// from the one requested).
  public let scope: [String]?
  /// `refresh_token`, when one was issued. Secret.
  public let refreshToken: String?
  /// `id_token`, as received (compact JWS): the sibling's own ID token in Native SSO. Validated by
  /// ``OpenIDClient/exchange(_:dpopKey:)``. Secret.
  public let idToken: String?
  /// `device_secret`, when the provider sent a new one (Native SSO, draft 07 §4.4): it replaces the
  /// family's, together with ``idToken``. Secret.
  public let deviceSecret: String?
  /// When the response arrived.
  public let receivedAt: Date
  /// Every member of the response, known or not.
  public let raw: [String: JSONValue]

  /// Reads a token exchange response object.
  ///
  /// `expires_in` is read as in ``TokenResponse``.
  ///
  /// - Throws: ``XidError/Code/invalidTokenResponse`` when `access_token` or `issued_token_type` is
  ///   missing or empty, `token_type` is missing or not Bearer, DPoP or `N_A`, an issued access token
  ///   claims `N_A`, or a known member has the wrong type.
  public init(json raw: [String: JSONValue], receivedAt: Date) throws {
    func invalid(_ reason: String) -> XidError {
      XidError(.invalidTokenResponse, "the token exchange response \(reason)")
    }
    guard let accessToken = raw["access_token"]?.stringValue, !accessToken.isEmpty else {
      throw invalid("has no string \"access_token\"")
    }
    guard let issued = raw["issued_token_type"]?.stringValue, !issued.isEmpty else {
      throw invalid("has no string \"issued_token_type\", which RFC 8693 §2.2.1 requires")
    }
    guard let typeValue = raw["token_type"]?.stringValue else { throw invalid("has no string \"token_type\"") }
    guard let tokenType = ExchangedTokenType(parsing: typeValue) else {
      throw invalid("has the token_type \"\(SafeText.short(typeValue, limit: 32))\", which is not Bearer, DPoP or N_A")
    }
    let issuedTokenType = TokenTypeIdentifier(issued)
    if issuedTokenType == .accessToken && tokenType == .notApplicable {
      throw invalid("issued an access token with the token_type N_A, which says it is not one")
    }
    func string(_ name: String) throws -> String? {
      try TokenResponse.string(name, in: raw, of: "token exchange response")
    }
    self.accessToken = accessToken
    self.issuedTokenType = issuedTokenType
    self.tokenType = tokenType
    self.expiresIn = try TokenResponse.lifetime(raw["expires_in"], of: "token exchange response")
    self.scope = try string("scope").map { $0.split(separator: " ").map(String.init) }
    self.refreshToken = try string("refresh_token")
    self.idToken = try string("id_token")
    self.deviceSecret = try string("device_secret")
    self.receivedAt = receivedAt
    self.raw = raw
  }

  /// `TokenExchangeResponse(issuedTokenType: …, tokenType: …, expiresIn: …, refreshToken: yes/no, …)`;
  /// never a token.
  public var description: String {
    let expires = expiresIn.map { String($0.components.seconds) } ?? "unknown"
    return
      "TokenExchangeResponse(issuedTokenType: \(issuedTokenType), tokenType: \(tokenType), expiresIn: \(expires), refreshToken: \(refreshToken == nil ? "no" : "yes"), idToken: \(idToken == nil ? "no" : "yes"), deviceSecret: \(deviceSecret == nil ? "no" : "yes"), scope: \(scope?.joined(separator: " ") ?? "as requested"))"
  }

  /// The fields that are not secret, so that `dump` does not show the tokens.
  public var customMirror: Mirror {
    Mirror(
      self,
      children: [
        "issuedTokenType": issuedTokenType, "tokenType": tokenType, "expiresIn": expiresIn as Any,
        "hasRefreshToken": refreshToken != nil, "hasIDToken": idToken != nil, "hasDeviceSecret": deviceSecret != nil,
        "scope": scope as Any, "receivedAt": receivedAt,
      ])
  }
}
