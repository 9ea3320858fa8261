/// The outcome of a sign-in: the tokens and the validated ID token.
public struct AuthenticationResult: Sendable, Hashable, CustomStringConvertible {
  /// The token endpoint's response.
  public let tokens: TokenResponse
  /// The ID token, validated (OpenID Connect Core 1.0 §3.1.3.7); its claims identify the user.
  public let idToken: IDToken
  /// The pending authorization that was used. Remove it from storage: it is single-use.
  public let pending: PendingAuthorization

  /// Creates a result from its parts.
  public init(tokens: TokenResponse, idToken: IDToken, pending: PendingAuthorization) {
    self.tokens = tokens
    self.idToken = idToken
    self.pending = pending
  }

  /// The tokens' and ID token's descriptions; never a token.
  public var description: String { "AuthenticationResult(\(tokens), \(idToken))" }
}

/// The outcome of a refresh or of the device grant: the tokens and, when the provider sent one, the
/// validated new ID token.
public struct TokenResult: Sendable, Hashable, CustomStringConvertible {
  /// The token endpoint's response. Without a `refresh_token`, keep using the previous one.
  public let tokens: TokenResponse
  /// The new ID token, validated, when the response had one; otherwise keep the previous one.
  public let idToken: IDToken?

  /// Creates a result from its parts.
  public init(tokens: TokenResponse, idToken: IDToken?) {
    self.tokens = tokens
    self.idToken = idToken
  }

  /// The tokens' and ID token's descriptions; never a token.
  public var description: String { "TokenResult(\(tokens), \(idToken.map { "\($0)" } ?? "no ID token"))" }
}

/// The outcome of a token exchange (RFC 8693): the answer and, when it carried one, the validated
/// ID token.
public struct TokenExchangeResult: Sendable, Hashable, CustomStringConvertible {
  /// The token endpoint's answer.
  public let tokens: TokenExchangeResponse
  /// The ID token of the answer, validated for this client (OpenID Connect Core 1.0 §3.1.3.7 without
  /// a nonce): its `id_token` member, or the issued token itself when ``TokenExchangeResponse/issuedTokenType``
  /// is ``TokenTypeIdentifier/idToken``. `nil` when the answer has none.
  public let idToken: IDToken?

  /// Creates a result from its parts.
  public init(tokens: TokenExchangeResponse, idToken: IDToken?) {
    self.tokens = tokens
    self.idToken = idToken
  }

  /// The answer's and ID token's descriptions; never a token.
  public var description: String {
    "TokenExchangeResult(\(tokens), \(idToken.map { "\($0)" } ?? "no ID token"))"
  }
}
