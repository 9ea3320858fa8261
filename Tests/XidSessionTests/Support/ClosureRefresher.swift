import XidProtocol

@testable import XidSession

/// A ``TokenRefreshing`` made of closures, for tests that script what the provider answers to a
/// refresh and record the refresh tokens the account drops.
struct ClosureRefresher: TokenRefreshing {
  let refreshing: @Sendable (TokenRecord, ProtectedResource?) async throws -> RefreshedTokens
  let revoking: @Sendable (String) async -> Void

  init(
    revoking: @escaping @Sendable (String) async -> Void = { _ in },
    _ refreshing: @escaping @Sendable (TokenRecord) async throws -> RefreshedTokens
  ) {
    self.refreshing = { record, _ in try await refreshing(record) }
    self.revoking = revoking
  }

  /// A refresher told which resource's token each refresh is for (`nil`: the session's own).
  init(
    revoking: @escaping @Sendable (String) async -> Void = { _ in },
    forResources refreshing: @escaping @Sendable (TokenRecord, ProtectedResource?) async throws -> RefreshedTokens
  ) {
    self.refreshing = refreshing
    self.revoking = revoking
  }

  func refresh(_ record: TokenRecord, for resource: ProtectedResource?) async throws -> RefreshedTokens {
    try await refreshing(record, resource)
  }
  func revokeDropped(_ refreshToken: String) async { await revoking(refreshToken) }
}
