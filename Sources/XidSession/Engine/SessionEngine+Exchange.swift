import Foundation

/// RFC 8693 token exchange as public API: a downscoped or audience-restricted token for a backend,
/// from the session's access token or any token the app holds.
extension SessionEngine {
  /// Exchanges the session's access token (refreshed first when it is about to expire) for another
  /// token at the token endpoint (RFC 8693): one for another service (`audiences`, `resources`),
  /// with fewer scopes, or of another type (`requestedTokenType`, for example an ID token, which
  /// comes with `token_type` `N_A`). With DPoP on, the request carries a proof of the session's key,
  /// and a new access token must come back bound to it.
  ///
  /// The session is never touched: the new token is the caller's, and a failure leaves the session as
  /// it was.
  ///
  /// ```swift
  /// let payments = try await engine.exchangeAccessToken(
  ///   resources: [URL(string: "https://payments.example.com")!], scopes: ["payments:read"])
  /// ```
  ///
  /// - Throws: what ``accessToken(forceRefresh:)`` throws (``XidError/Code/signInRequired``, …), and
  ///   what ``exchange(_:)`` throws.
  public nonisolated func exchangeAccessToken(
    audiences: [String] = [], resources: [URL] = [], scopes: [String]? = nil,
    requestedTokenType: TokenTypeIdentifier? = nil
  ) async throws -> TokenExchangeResult {
    try await PresenceScope.run {
      let record = try await usableRecord(forceRefresh: false)
      let request = TokenExchangeRequest(
        subjectToken: record.accessToken, subjectTokenType: .accessToken, requestedTokenType: requestedTokenType,
        audiences: audiences, resources: resources, scopes: scopes)
      return try await exchange(request, proofFor: record)
    }
  }

  /// Sends `request` (RFC 8693) at the token endpoint, for a token the app holds. With DPoP on, it
  /// carries a proof of the session's key (the user must be signed in then).
  ///
  /// The session is never touched, whatever the answer.
  ///
  /// - Throws: ``XidError`` with ``XidError/Code/invalidConfiguration`` for a request that
  ///   ``TokenExchangeRequest/validate()`` refuses; ``XidError/Code/tokenRequestFailed`` when the
  ///   provider refuses (``XidError/oauthError``: `invalid_target`, `invalid_scope`,
  ///   `unauthorized_client`, …); ``XidError/Code/invalidTokenResponse``,
  ///   ``XidError/Code/dpopTokenUnbound``, ID token and transport errors. No reason contains a token.
  public nonisolated func exchange(_ request: TokenExchangeRequest) async throws -> TokenExchangeResult {
    try await PresenceScope.run {
      guard signer.requiresDPoP else { return try await client.exchange(request) }
      return try await exchange(request, proofFor: try await usableRecord(forceRefresh: false))
    }
  }

  /// `request` with a proof of `record`'s DPoP key, when it is bound to one.
  private nonisolated func exchange(_ request: TokenExchangeRequest, proofFor record: TokenRecord) async throws
    -> TokenExchangeResult
  {
    let key = try signer.key(for: record)
    try await signer.ready(key)
    return try await client.exchange(request, dpopKey: key?.key)
  }
}
