/// What became of tokens that Xid let go of and asked the provider to revoke (RFC 7009): at sign-out
/// (`SignOutResult/revocation`), or when a sign-in's tokens were refused and nothing was stored.
///
/// Only ``revoked`` means the provider can no longer be asked for anything with them. After
/// ``notRevocable(_:)`` and ``failed(_:)`` they may stay valid at the provider until they expire:
/// tell the user, who can end the session at the provider (its end-session page, or its account
/// settings) when that matters.
///
/// Its description names what happened and why, never a token.
public enum RevocationOutcome: Sendable, Hashable, CustomStringConvertible {
  /// The provider revoked the tokens: its revocation endpoint answered 200 to each (RFC 7009 §2.2).
  /// For a refresh token, providers revoke the grant's access tokens with it.
  case revoked
  /// The tokens were not sent for revocation, for the reason given.
  case notRevocable(NotRevocableReason)
  /// The provider was asked and did not revoke them (or could not be reached): the error says how,
  /// for example ``XidError/Code/revocationFailed`` with the HTTP status and OAuth error, or
  /// ``XidError/Code/networkFailure``.
  case failed(XidError)

  /// Why tokens were not sent for revocation.
  public enum NotRevocableReason: Sendable, Hashable, CustomStringConvertible {
    /// The provider advertises no `revocation_endpoint` in its metadata: it offers no way to revoke
    /// tokens (RFC 7009 is optional).
    case noRevocationEndpoint
    /// The session had no refresh token to revoke (its access token expires on its own).
    case noRefreshToken
    /// The refresh token is sealed with a key that needs the user's presence, and sign-out never
    /// asks the user. The key is deleted at sign-out, so nobody can open the sealed token again.
    case refreshTokenNeedsTheUser
    /// The tokens are bound to a DPoP key that needs the user's presence for every proof, and
    /// revocation never asks the user. The key is deleted, so nobody can use the tokens: they are
    /// bound to it.
    case dpopKeyNeedsTheUser

    /// What the reason means, in a few words.
    public var description: String {
      switch self {
      case .noRevocationEndpoint: "the provider advertises no revocation_endpoint"
      case .noRefreshToken: "the session had no refresh token"
      case .refreshTokenNeedsTheUser:
        "the refresh token is sealed with a key that needs the user, and sign-out does not ask (the key is deleted, so nobody can open it)"
      case .dpopKeyNeedsTheUser:
        "the tokens are bound to a DPoP key that needs the user, and revocation does not ask (the key is deleted, so nobody can use them)"
      }
    }
  }

  /// Whether the provider revoked the tokens.
  public var isRevoked: Bool { self == .revoked }

  /// `revoked`, `not revocable: <why>` or `failed: <the error>`.
  public var description: String {
    switch self {
    case .revoked: "revoked"
    case .notRevocable(let reason): "not revocable: \(reason)"
    case .failed(let error): "failed: \(error)"
    }
  }

  /// What happened to `tokens` ("the tokens", "the refresh token"), which were not kept, as a
  /// clause for error reasons and log lines; `plural` when `tokens` names several.
  package func clause(about tokens: String, plural: Bool = true) -> String {
    let (were, they, expire) = plural ? ("were", "they", "they expire") : ("was", "it", "it expires")
    switch self {
    case .revoked:
      return "\(tokens) \(were) revoked"
    case .notRevocable(let reason) where reason == .dpopKeyNeedsTheUser || reason == .refreshTokenNeedsTheUser:
      return "\(tokens) \(were) not revoked: \(reason)"
    case .notRevocable(let reason):
      return "\(tokens) \(were) not revoked, since \(reason), so \(they) may stay valid until \(expire)"
    case .failed(let error):
      var how = [error.code.rawValue]
      if let status = error.httpStatus { how.append("HTTP \(status)") }
      if let oauthError = error.oauthError { how.append(SafeText.short(oauthError, limit: 64)) }
      return
        "revoking \(plural ? "them" : "it") failed (\(how.joined(separator: ", "))), so \(tokens) may stay valid until \(expire)"
    }
  }
}
