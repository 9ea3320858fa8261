/// A token type identifier (RFC 8693 §3): the URI that says what kind of token a token exchange
/// sends (`subject_token_type`, `actor_token_type`), asks for (`requested_token_type`) or got back
/// (`issued_token_type`).
///
/// The registered identifiers are constants; any other URI a provider defines can be written as
/// `TokenTypeIdentifier("urn:example:token-type")` or as a string literal. Identifiers compare as
/// their exact text, as URIs do.
///
/// ```swift
/// let request = TokenExchangeRequest(subjectToken: accessToken, subjectTokenType: .accessToken)
/// ```
public struct TokenTypeIdentifier: RawRepresentable, Sendable, Hashable, Codable, ExpressibleByStringLiteral,
  CustomStringConvertible
{
  /// The identifier's URI, for example `urn:ietf:params:oauth:token-type:access_token`.
  public let rawValue: String

  /// An identifier from its URI.
  public init(rawValue: String) { self.rawValue = rawValue }

  /// An identifier from its URI.
  public init(_ rawValue: String) { self.rawValue = rawValue }

  /// An identifier from a string literal.
  public init(stringLiteral value: String) { self.rawValue = value }

  /// The URI.
  public var description: String { rawValue }

  /// `urn:ietf:params:oauth:token-type:access_token`: an OAuth 2.0 access token (RFC 8693 §3).
  public static let accessToken = Self("urn:ietf:params:oauth:token-type:access_token")
  /// `urn:ietf:params:oauth:token-type:refresh_token`: an OAuth 2.0 refresh token (RFC 8693 §3).
  public static let refreshToken = Self("urn:ietf:params:oauth:token-type:refresh_token")
  /// `urn:ietf:params:oauth:token-type:id_token`: an OpenID Connect ID token (RFC 8693 §3). The
  /// subject token type of Native SSO (the draft's example writes `id-token`; the registered URN,
  /// which Xid sends, is this one).
  public static let idToken = Self("urn:ietf:params:oauth:token-type:id_token")
  /// `urn:ietf:params:oauth:token-type:jwt`: a JWT of any kind (RFC 7519, RFC 8693 §3).
  public static let jwt = Self("urn:ietf:params:oauth:token-type:jwt")
  /// `urn:ietf:params:oauth:token-type:saml1`: a base64url-encoded SAML 1.1 assertion (RFC 8693 §3).
  public static let saml1 = Self("urn:ietf:params:oauth:token-type:saml1")
  /// `urn:ietf:params:oauth:token-type:saml2`: a base64url-encoded SAML 2.0 assertion (RFC 8693 §3).
  public static let saml2 = Self("urn:ietf:params:oauth:token-type:saml2")
  /// `urn:openid:params:token-type:device-secret`: the device secret of OpenID Connect Native SSO for
  /// Mobile Apps 1.0 (draft 07 §4.1), sent as the actor token of a sibling app's exchange.
  public static let deviceSecret = Self("urn:openid:params:token-type:device-secret")
  /// `urn:x-oath:params:oauth:token-type:device-secret`: the device secret's identifier in the
  /// drafts before 07, which Okta still expects.
  public static let legacyDeviceSecret = Self("urn:x-oath:params:oauth:token-type:device-secret")
}
