import Foundation
import Testing
import Xid
import XidTestSupport
import XidTesting

/// What `signOut()` reports about the refresh token at the provider: revoked, not revocable (and
/// why), or failed (and how). The local session is gone in every case.
@Suite(.noSecretLeaks)
struct SignOutRevocationTests {
  static func harness(_ configure: (inout TestProvider.Configuration) -> Void = { _ in }) throws -> SessionHarness {
    var configuration = TestProvider.Configuration()
    configure(&configuration)
    return try SessionHarness(provider: try TestProvider(configuration: configuration))
  }

  @Test func signOutSaysTheRefreshTokenWasRevoked() async throws {
    let harness = try Self.harness()
    try await harness.xid.signIn()
    let refreshToken = try #require(try harness.storedRecord()?["refresh_token"]?.stringValue)
    let result = try await harness.xid.signOut()
    #expect(result.revocation == .revoked)
    #expect(result.signedSomeoneOut)
    #expect(await harness.provider.revokedTokens == [refreshToken])
    #expect(try await harness.xid.getSession() == nil)
  }

  @Test func signOutSaysTheRefreshTokenIsNotRevocableWhereTheProviderHasNoRevocationEndpoint() async throws {
    let harness = try Self.harness { $0.supportsRevocation = false }
    try await harness.xid.signIn()
    let result = try await harness.xid.signOut()
    #expect(result.revocation == .notRevocable(.noRevocationEndpoint))
    #expect(result.revocation?.isRevoked == false)
    #expect("\(result)".contains("not revocable: the provider advertises no revocation_endpoint"), "\(result)")
    #expect(await harness.provider.counters.revocations == 0)
    #expect(try await harness.xid.getSession() == nil)
    #expect(
      harness.logger.messages.contains {
        $0.contains("the refresh token was not revoked: the provider advertises no revocation_endpoint")
      })
  }

  @Test func signOutSaysWhenRevokingTheRefreshTokenFailed() async throws {
    let harness = try Self.harness()
    try await harness.xid.signIn()
    await harness.provider.injectFault(.oauthError("invalid_client", status: 401), at: .revocation)
    let result = try await harness.xid.signOut()
    guard case .failed(let error) = result.revocation else {
      Issue.record("expected a failed revocation, got \(result)")
      return
    }
    #expect(error.code == .revocationFailed)
    #expect(error.httpStatus == 401 && error.oauthError == "invalid_client")
    #expect(await harness.provider.revokedTokens.isEmpty)
    #expect(try await harness.xid.getSession() == nil)
  }

  @Test func signOutSaysWhenTheProviderCouldNotBeReachedToRevoke() async throws {
    let harness = try Self.harness()
    try await harness.xid.signIn()
    await harness.provider.injectFault(.failConnection, at: .revocation)
    let result = try await harness.xid.signOut()
    guard case .failed(let error) = result.revocation else {
      Issue.record("expected a failed revocation, got \(result)")
      return
    }
    #expect(error.code == .networkFailure)
  }

  @Test func signOutOfASessionWithoutARefreshTokenSaysThereWasNoneToRevoke() async throws {
    let harness = try Self.harness { $0.issuesRefreshTokens = false }
    try await harness.xid.signIn()
    let result = try await harness.xid.signOut()
    #expect(result.revocation == .notRevocable(.noRefreshToken))
    #expect(await harness.provider.counters.revocations == 0)
  }

  @Test func signOutWithNobodySignedInHasNothingToRevoke() async throws {
    let harness = try Self.harness()
    let result = try await harness.xid.signOut()
    #expect(result.revocation == nil)
    #expect(!result.signedSomeoneOut)
    #expect(await harness.provider.counters.revocations == 0)
  }
}
