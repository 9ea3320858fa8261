/// The rule that a token endpoint's answer is bound exactly as the request asked: a request with a
/// DPoP proof gets `token_type: DPoP`, a request without one gets a Bearer token. Xid never falls back
/// to Bearer tokens in silence, and never takes a bound token it cannot prove.
enum TokenBinding {
  /// Checks the access token of an answer against the request: `tokenType` is the answer's
  /// `token_type`, `dpop` the signer whose proof the request carried, if any.
  ///
  /// A mismatch stores nothing: the tokens are revoked (best effort) and the request fails.
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
      await revoke(
        accessToken: accessToken, refreshToken: refreshToken, dpop: dpop, configuration: configuration,
        metadata: metadata, http: http)
      throw XidError(
        .dpopTokenUnbound,
        "the provider answered a DPoP token request with a \(tokenType) token, not bound to the key; nothing was stored and the tokens were revoked. Enable DPoP for client \(configuration.identity.clientId) at the provider, or turn usesDPoP off"
      )
    case (.dpop, nil):
      await revoke(
        accessToken: accessToken, refreshToken: refreshToken, dpop: nil, configuration: configuration,
        metadata: metadata, http: http)
      throw XidError(
        .invalidTokenResponse,
        "the token endpoint issued a DPoP-bound access token (token_type \"DPoP\") to a request without a DPoP proof, but DPoP is not enabled for this client, so the token cannot be used; nothing was stored. Turn on XidConfiguration.usesDPoP, or register the client at the provider for Bearer tokens"
      )
    }
  }

  /// Revokes the refresh token, then the access token (when there is one), ignoring failures.
  static func revoke(
    accessToken: String?, refreshToken: String?, dpop: DPoPSigner?, configuration: XidConfiguration,
    metadata: ProviderMetadata, http: ProtocolHTTP
  ) async {
    guard metadata.revocationEndpoint != nil else { return }
    let candidates: [(String?, TokenTypeHint)] = [(refreshToken, .refreshToken), (accessToken, .accessToken)]
    for case let (token?, hint) in candidates {
      try? await TokenRevocation.revoke(
        token, hint: hint, configuration: configuration, metadata: metadata, http: http, dpop: dpop)
    }
  }
}
