/// What refreshes an account's tokens at the provider. ``AccountSession`` calls it under the
/// account's lock and hands it back any refresh token it drops; ``TokenRefresher`` is the one that
/// talks to the provider.
protocol TokenRefreshing: Sendable {
  /// New tokens for `record`, whose refresh token is open (not sealed), already checked: a new ID
  /// token is validated or classified (``RefreshedTokens``).
  ///
  /// - Throws: ``XidError/Code/refreshRefused`` when the provider proved the grant dead, and the
  ///   network's, the provider's and the DPoP key's errors otherwise (they keep the session).
  func refresh(_ record: TokenRecord) async throws -> RefreshedTokens
  /// Revokes a refresh token that a refresh dropped (the session was signed out or replaced while it
  /// ran), best effort: no one will ever send it.
  func revokeDropped(_ refreshToken: String) async
}
