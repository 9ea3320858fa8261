import Foundation
import Testing
import Xid
import XidTestSupport
import XidTesting

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

/// After the token response of a refresh, the provider has spent the old refresh token. When the
/// check of the answer fails for a reason that may pass later, the new tokens are kept (the old claims
/// too) and checked again at the next refresh; when it proves the answer foreign, the session ends and
/// the new refresh token is revoked. A spent refresh token is never kept.
@Suite(.noSecretLeaks)
struct RefreshAnswerCheckTests {
  /// Signs in with a provider that rotates refresh tokens, and lets the access token expire.
  static func signedIn() async throws -> (SessionHarness, before: [String: JSONValue]) {
    let harness = try SessionHarness()
    try await harness.xid.signIn()
    let before = try #require(try harness.storedRecord())
    harness.provider.clock.advance(by: .seconds(301))
    return (harness, before)
  }

  /// The new tokens were kept, with the old ID token, and the session goes on refreshing.
  static func expectKeptAndRechecked(
    _ harness: SessionHarness, before: [String: JSONValue], sourceLocation: SourceLocation = #_sourceLocation
  ) async throws {
    let after = try #require(try harness.storedRecord(), sourceLocation: sourceLocation)
    #expect(
      after["refresh_token"] != before["refresh_token"], "the rotated refresh token", sourceLocation: sourceLocation)
    #expect(after["access_token"] != before["access_token"], sourceLocation: sourceLocation)
    #expect(after["id_token"] == before["id_token"], "the old claims", sourceLocation: sourceLocation)
    // The next refresh checks the answer again, and the session goes on.
    await harness.provider.behave()
    await harness.provider.clearFaults()
    harness.provider.clock.advance(by: .seconds(301))
    _ = try await harness.xid.getAccessToken()
    let next = try #require(try harness.storedRecord(), sourceLocation: sourceLocation)
    #expect(next["id_token"] != before["id_token"], "claims checked again and taken", sourceLocation: sourceLocation)
    #expect(try await harness.xid.getSession()?.subject == TestUser.alice.subject, sourceLocation: sourceLocation)
  }

  // MARK: - Checks that may pass later

  @Test func aKeySetThatCannotBeFetchedKeepsTheRotatedRefreshToken() async throws {
    let (harness, before) = try await Self.signedIn()
    try await harness.provider.misbehave(.rotateKeyBeforeSigning, .once)
    await harness.provider.injectFault(.respond(status: 503), at: .jwks, times: 5)
    _ = try await harness.xid.getAccessToken()
    harness.provider.clock.advance(by: .seconds(61))  // the next key-set fetch is allowed
    try await Self.expectKeptAndRechecked(harness, before: before)
  }

  @Test func anUnknownKeyIDWhileTheProviderRotatesKeepsTheRotatedRefreshToken() async throws {
    let (harness, first) = try await Self.signedIn()
    // A rotation the key-set fetch catches up with, then another one within the minute: unknown kid.
    try await harness.provider.misbehave(.rotateKeyBeforeSigning, .once)
    _ = try await harness.xid.getAccessToken(forceRefresh: true)
    let before = try #require(try harness.storedRecord())
    #expect(before["id_token"] != first["id_token"])
    try await harness.provider.misbehave(.rotateKeyBeforeSigning, .once)
    _ = try await harness.xid.getAccessToken(forceRefresh: true)
    harness.provider.clock.advance(by: .seconds(61))
    try await Self.expectKeptAndRechecked(harness, before: before)
  }

  @Test(arguments: [TestProvider.Misbehavior.issuedInFuture, .expiredIDToken])
  func aClockSkewKeepsTheRotatedRefreshToken(misbehavior: TestProvider.Misbehavior) async throws {
    let (harness, before) = try await Self.signedIn()
    try await harness.provider.misbehave(misbehavior, .once)
    _ = try await harness.xid.getAccessToken()
    try await Self.expectKeptAndRechecked(harness, before: before)
  }

  // MARK: - Answers proven foreign

  @Test(arguments: [
    TestProvider.Misbehavior.otherSubjectOnRefresh, .wrongIssuer, .wrongAudience, .invalidSignature,
  ])
  func aForeignAnswerEndsTheSessionAndRevokesTheNewRefreshToken(misbehavior: TestProvider.Misbehavior) async throws {
    let (harness, _) = try await Self.signedIn()
    try await harness.provider.misbehave(misbehavior, .once)
    let revocationsBefore = await harness.provider.counters.revocations
    let error = await expectXidError(.foreignTokenResponse) { try await harness.xid.getAccessToken() }
    #expect(error?.reason.contains("sign the user in again") == true)
    #expect(try harness.storedRecord() == nil)
    #expect(try await harness.xid.getSession() == nil)
    #expect(await harness.provider.counters.revocations == revocationsBefore + 1)
    await expectXidError(.signInRequired) { try await harness.xid.getAccessToken() }
  }
}
