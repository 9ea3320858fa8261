/// What refreshes an account's tokens at the provider. ``AccountSession`` calls it under the
/// account's lock and hands it back any refresh token it drops; ``TokenRefresher`` is the one that
/// talks to the provider.
protocol TokenRefreshing: Sendable {
  /// New tokens for `record`, whose refresh token is open (not sealed), already checked: a new ID
  /// token is validated or classified (``RefreshedTokens``). With `resource`, the access token is
  /// for that resource alone (RFC 8707).
  ///
  /// - Throws: ``XidError/Code/refreshRefused`` when the provider proved the grant dead,
  ///   ``XidError/Code/invalidTarget`` when it issues no token for `resource`, and the network's,
  ///   the provider's and the DPoP key's errors otherwise (they keep the session).
  func refresh(_ record: TokenRecord, for resource: ProtectedResource?) async throws -> RefreshedTokens
  /// Revokes a refresh token that a refresh dropped (the session was signed out or replaced while it
  /// ran), best effort: no one will ever send it.
  func revokeDropped(_ refreshToken: String) async
  /// Runs `body`, a refresh of `record` that takes the account's lock, holding what must be taken
  /// before that lock: a ``RefreshCompanion``'s lock.
  func beforeTheAccountLock<T>(
    for record: TokenRecord?, isolation: isolated (any Actor)?, _ body: () async throws -> T
  ) async throws -> T
}

extension TokenRefreshing {
  /// Runs `body` as it is: nothing comes before the account's lock.
  func beforeTheAccountLock<T>(
    for record: TokenRecord?, isolation: isolated (any Actor)?, _ body: () async throws -> T
  ) async throws -> T {
    try await body()
  }
}
