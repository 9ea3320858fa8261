/// The rule that a token endpoint's answer is bound exactly as the request asked: a request with a
/// DPoP proof gets `token_type: DPoP`, a request without one gets a Bearer token. Xid never falls back
/// to Bearer tokens in silence, and never takes a bound token it cannot prove.
enum TokenBinding {
  /// Checks `tokens` against the request: `dpop` is the signer whose proof it carried, if any.
  ///
  /// A mismatch stores nothing: the tokens are revoked (best effort) and the request fails with an
  /// error that says whether they were revoked, could not be (the provider has no revocation
  /// endpoint), or revoking them failed.
  ///
  /// - Throws: ``XidError/Code/dpopTokenUnbound`` for a Bearer answer to a DPoP request, and
  ///   ``XidError/Code/invalidTokenResponse`` for a DPoP answer to a request without a proof.
  static func check(
    _ tokens: TokenResponse, dpop: DPoPSigner?, configuration: XidConfiguration, metadata: ProviderMetadata,
    http: ProtocolHTTP
  ) async throws {
    switch (tokens.tokenType, dpop) {
    case (.dpop, _?), (.bearer, nil): return
    case (.bearer, let dpop?):
      let outcome = await revoke(tokens, dpop: dpop, configuration: configuration, metadata: metadata, http: http)
      throw XidError(
        .dpopTokenUnbound,
        "the provider answered a DPoP token request with a \(tokens.tokenType) token, not bound to the key; nothing was stored, and \(outcome.clause(about: "the tokens")). Enable DPoP for client \(configuration.identity.clientId) at the provider, or turn usesDPoP off"
      )
    case (.dpop, nil):
      let outcome = await revoke(tokens, dpop: nil, configuration: configuration, metadata: metadata, http: http)
      throw XidError(
        .invalidTokenResponse,
        "the token endpoint issued a DPoP-bound access token (token_type \"DPoP\") to a request without a DPoP proof, but DPoP is not enabled for this client, so the token cannot be used; nothing was stored, and \(outcome.clause(about: "the tokens")). Turn on XidConfiguration.usesDPoP, or register the client at the provider for Bearer tokens"
      )
    }
  }

  /// Revokes the refresh token, then the access token, and tells what became of them.
  private static func revoke(
    _ tokens: TokenResponse, dpop: DPoPSigner?, configuration: XidConfiguration, metadata: ProviderMetadata,
    http: ProtocolHTTP
  ) async -> RevocationOutcome {
    let candidates: [(String?, TokenTypeHint)] = [
      (tokens.refreshToken, .refreshToken), (tokens.accessToken, .accessToken),
    ]
    return await TokenRevocation.revokeAll(
      candidates.compactMap { token, hint in token.map { ($0, hint) } }, configuration: configuration,
      metadata: metadata, http: http, dpop: dpop)
  }
}
