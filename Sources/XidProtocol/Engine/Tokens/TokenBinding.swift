/// The rule that a token endpoint's answer is bound exactly as the request asked: a request with a
/// DPoP proof gets `token_type: DPoP`, a request without one gets a Bearer token. Xid never falls back
/// to Bearer tokens in silence, and never takes a bound token it cannot prove.
enum TokenBinding {
  /// Checks the access token of an answer against the request: `tokenType` is the answer's
  /// `token_type`, `dpop` the signer whose proof the request carried, if any.
  ///
  /// A mismatch stores nothing: the tokens are revoked (best effort) and the request fails with an
  /// error that says whether they were revoked, could not be (the provider has no revocation
  /// endpoint), or revoking them failed.
  ///
  /// - Throws: ``XidError/Code/dpopTokenUnbound`` for a Bearer answer to a DPoP request, and
  ///   ``XidError/Code/invalidTokenResponse`` for a DPoP answer to a request without a proof.
  static func check(
    tokenType: TokenType, accessToken: String, refreshToken: String?, dpop: DPoPSigner?,
    configuration: XidConfiguration, metadata: ProviderMetadata, http: ProtocolHTTP
  ) async throws {
    switch (tokenType, dpop) {
    case (.dpop, _?), (.bearer, nil): return
    case (.bearer, let dpop?):
      let outcome = await revoke(
        accessToken: accessToken, refreshToken: refreshToken, dpop: dpop, configuration: configuration,
        metadata: metadata, http: http)
      throw XidError(
        .dpopTokenUnbound,
        "the provider answered a DPoP token request with a \(tokenType) token, not bound to the key; nothing was stored, and \(outcome.clause(about: "the tokens")). Enable DPoP for client \(configuration.identity.clientId) at the provider, or turn usesDPoP off"
      )
    case (.dpop, nil):
      let outcome = await revoke(
        accessToken: accessToken, refreshToken: refreshToken, dpop: nil, configuration: configuration,
        metadata: metadata, http: http)
      throw XidError(
        .invalidTokenResponse,
        "the token endpoint issued a DPoP-bound access token (token_type \"DPoP\") to a request without a DPoP proof, but DPoP is not enabled for this client, so the token cannot be used; nothing was stored, and \(outcome.clause(about: "the tokens")). Turn on XidConfiguration.usesDPoP, or register the client at the provider for Bearer tokens"
      )
    }
  }

  /// Revokes the refresh token, then the access token (when there is one), and tells what became of
  /// them.
  @discardableResult
  static func revoke(
    accessToken: String?, refreshToken: String?, dpop: DPoPSigner?, configuration: XidConfiguration,
    metadata: ProviderMetadata, http: ProtocolHTTP
  ) async -> RevocationOutcome {
    let candidates: [(String?, TokenTypeHint)] = [(refreshToken, .refreshToken), (accessToken, .accessToken)]
    return await TokenRevocation.revokeAll(
      candidates.compactMap { token, hint in token.map { ($0, hint) } }, configuration: configuration,
      metadata: metadata, http: http, dpop: dpop)
  }
}
