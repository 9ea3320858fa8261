import Foundation
import Testing
import Xid
import XidTestSupport
import XidTesting

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

/// A DPoP-bound session (RFC 9449) whose refresh token is sealed (``PresenceOptions/refreshTokenProtection``)
/// but whose DPoP key signs without the user: requests never ask, a refresh asks once.
@Suite(.noSecretLeaks)
struct SealedDPoPRefreshTests {
  static let protection = PresenceOptions(refreshTokenProtection: .biometryCurrentSet)

  static func resource(_ harness: PresenceHarness) -> HTTPRequest {
    HTTPRequest(url: harness.provider.url(for: .resource))
  }

  @Test func aBoundSessionRefreshesWithTheOpenedTokenAndItsKeyAndResealsEachRotation() async throws {
    let harness = try PresenceHarness(usesDPoP: true, options: Self.protection)
    let binding = try #require(try await harness.xid.signIn().dpopBinding)
    var record = try #require(try harness.storedRecord())
    #expect(record["dpop_jkt"]?.stringValue == binding.keyThumbprint)
    #expect(record["refresh_token"] == nil)
    var sealed = try #require(record["sealed_refresh_token"]?.stringValue)
    #expect(harness.user.prompts.isEmpty, "sealing and a key that signs without the user ask nothing")

    for round in 1...2 {
      harness.expireAccessToken()
      #expect(try await harness.xid.send(Self.resource(harness)).status == 200)
      #expect(await harness.provider.counters.refreshes == round)
      #expect(harness.user.prompts.count == round, "one prompt per refresh")
      record = try #require(try harness.storedRecord())
      #expect(record["token_type"] == "DPoP")
      #expect(record["dpop_jkt"]?.stringValue == binding.keyThumbprint, "the rotated token stays bound to the key")
      #expect(record["refresh_token"] == nil)
      let next = try #require(record["sealed_refresh_token"]?.stringValue)
      #expect(next != sealed, "the rotated refresh token is sealed again")
      sealed = next
    }
    let counts = harness.keyStore.counts
    #expect(counts.contexts == 2 && counts.authentications == 2 && counts.decryptions == 2)
    #expect(counts.created == 1, "the same sealing key for every rotation")
    #expect(counts.signingKeys == 0 && counts.signatures == 0, "the DPoP key is not the presence key store's")
    #expect(harness.keyStore.invalidatedContexts == 2)
    #expect(await harness.provider.counters.dpopProofsRefused == 0)
    for proof in await harness.provider.receivedDPoPProofs {
      let jwk = try #require(try CompactJWS(parsing: proof).header.members["jwk"])
      #expect(try JWK(json: jwk).thumbprint == binding.keyThumbprint)
    }
  }

  @Test func requestsWithAValidAccessTokenNeverAsk() async throws {
    let harness = try PresenceHarness(usesDPoP: true, options: Self.protection)
    try await harness.xid.signIn()
    for _ in 0..<3 { #expect(try await harness.xid.send(Self.resource(harness)).status == 200) }
    _ = try await harness.xid.authorizationHeaders(method: "GET", url: harness.provider.url(for: .resource))
    _ = try await harness.xid.userInfo()
    #expect(harness.user.prompts.isEmpty)
    #expect(harness.keyStore.counts.contexts == 0)
  }

  @Test func aRefusedPromptSendsNoBoundRefreshAndKeepsTheSession() async throws {
    let harness = try PresenceHarness(usesDPoP: true, options: Self.protection)
    try await harness.xid.signIn()
    let record = try harness.storedRecord()
    harness.expireAccessToken()
    harness.user.cancel()
    await expectXidError(.authenticationCancelled) { try await harness.xid.send(Self.resource(harness)) }
    harness.xid.setScenePhase(.background)
    harness.user.approve()
    await expectXidError(.userPresenceRequired) { try await harness.xid.getAccessToken() }
    #expect(await harness.provider.counters.tokenRequests == 1, "the code exchange only")
    #expect(try harness.storedRecord() == record)

    harness.xid.setScenePhase(.active)
    #expect(try await harness.xid.send(Self.resource(harness)).status == 200)
    #expect(await harness.provider.counters.refreshes == 1)
    #expect(await harness.provider.counters.dpopProofsRefused == 0)
  }

  @Test func aReusedConfirmationCoversTheNextBoundRefreshes() async throws {
    var options = Self.protection
    options.authenticationReuse = .seconds(600)
    let harness = try PresenceHarness(usesDPoP: true, options: options)
    try await harness.xid.signIn()
    for _ in 0..<3 { _ = try await harness.xid.getAccessToken(forceRefresh: true) }
    #expect(harness.user.prompts.count == 1)
    #expect(await harness.provider.counters.refreshes == 3)
    #expect(await harness.provider.counters.dpopProofsRefused == 0)

    try await harness.xid.signOut()
    #expect(await harness.provider.counters.revocations == 1, "revoked with a proof of the bound key")
    #expect(harness.user.prompts.count == 1)
  }
}
