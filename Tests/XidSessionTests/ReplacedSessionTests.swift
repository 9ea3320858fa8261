import Foundation
import Testing
import Xid
import XidTesting

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

/// A sign-in over a stored session ends that session: its refresh token, which nobody will send
/// again, is revoked at the provider.
@Suite(.noSecretLeaks)
struct ReplacedSessionTests {
  @Test func aNewSignInRevokesTheRefreshTokenOfTheSessionItReplaces() async throws {
    let harness = try SessionHarness()
    try await harness.xid.signIn()
    let first = try #require(try harness.storedRecord()?["refresh_token"]?.stringValue)
    await harness.provider.endUserSession()
    await harness.provider.setUser(TestUser(subject: "bob"))
    let second = try await harness.xid.signIn()
    #expect(second.subject == "bob")
    #expect(await harness.provider.revokedTokens == [first])
    let kept = try #require(try harness.storedRecord()?["refresh_token"]?.stringValue)
    #expect(kept != first)
    #expect(try await harness.xid.getAccessToken(forceRefresh: true).isEmpty == false)
  }

  @Test func aDPoPBoundSessionIsRevokedWithAProofAndItsKeyDeleted() async throws {
    let harness = try SessionHarness.dpop()
    let old = try #require(try await harness.xid.signIn().dpopBinding)
    let first = try #require(try harness.storedRecord()?["refresh_token"]?.stringValue)
    let new = try #require(try await harness.xid.signIn().dpopBinding)
    #expect(await harness.provider.revokedTokens == [first])
    #expect(await harness.provider.counters.dpopProofsRefused == 0)
    #expect(try harness.storedKeyNames() == [DPoPKeyStore.storageKey(thumbprint: new.keyThumbprint)])
    #expect(old.keyThumbprint != new.keyThumbprint)
  }
}
