import Foundation
import Testing
import XidCore
import XidTesting

/// DPoP (RFC 9449) between the real client and the strict test provider, in memory and over
/// `URLSession` to the provider on loopback (where `htu` is compared with the URL a real request
/// carries).
@Suite(.timeLimit(.minutes(1)))
struct DPoPConformanceTests {
  /// The stage's client, with DPoP on, and a fresh key.
  static func dpopClient(_ stage: Stage) throws -> (client: OpenIDClient, key: any DPoPKey) {
    var configuration = stage.client.configuration
    configuration.usesDPoP = true
    configuration.identity.scopes += ["offline_access"]
    let client = try OpenIDClient(configuration: configuration.using(transport: stage.transport, clock: stage.clock))
    return (client, try SoftwareDPoPKeyFactory().makeKey().key)
  }

  static func signIn(_ stage: Stage, _ client: OpenIDClient, key: any DPoPKey) async throws -> AuthenticationResult {
    let request = try await client.makeAuthorizationRequest(dpopKey: key)
    let callback = try await stage.browser.redirect(from: request.url)
    return try await client.handleRedirect(url: callback, pending: [request.pending], dpopKey: key)
  }

  @Test("dpop-bound code flow, refresh and UserInfo", arguments: Wire.allCases)
  func aBoundSessionWorksEndToEnd(over wire: Wire) async throws {
    try await withStage(wire) { stage in
      let (client, key) = try Self.dpopClient(stage)
      let signedIn = try await Self.signIn(stage, client, key: key)
      #expect(signedIn.tokens.tokenType == .dpop)
      let info = try await client.userInfo(
        accessToken: signedIn.tokens.accessToken, expectedSubject: signedIn.idToken.subject, dpopKey: key)
      #expect(info.subject == TestUser.alice.subject)
      let refreshed = try await client.refresh(
        refreshToken: try #require(signedIn.tokens.refreshToken), originalIDToken: signedIn.idToken, dpopKey: key)
      #expect(refreshed.tokens.tokenType == .dpop)
      #expect(await stage.counters.dpopProofsAccepted == 3)
      #expect(await stage.counters.dpopProofsRefused == 0)
    }
  }

  @Test("dpop nonces demanded by the provider", arguments: Wire.allCases)
  func nonceDemandsAreAnsweredOnce(over wire: Wire) async throws {
    try await withStage(wire, configure: { $0.dpop.requiresNonce = true }) { stage in
      let (client, key) = try Self.dpopClient(stage)
      let signedIn = try await Self.signIn(stage, client, key: key)
      _ = try await client.userInfo(
        accessToken: signedIn.tokens.accessToken, expectedSubject: signedIn.idToken.subject, dpopKey: key)
      #expect(await stage.counters.dpopNonceChallenges == 1)
      #expect(await stage.counters.codeExchanges == 2)
    }
  }

  @Test("dpop token answered as Bearer", arguments: Wire.allCases)
  func aBearerAnswerIsRefused(over wire: Wire) async throws {
    try await withStage(wire) { stage in
      let (client, key) = try Self.dpopClient(stage)
      try await stage.provider.misbehave(.bearerTokenForDPoPRequest, .once)
      await expectRejection(.dpopTokenUnbound, on: stage) { try await Self.signIn(stage, client, key: key) }
      #expect(await stage.counters.revocations == 2)
      let honest = try await Self.signIn(stage, client, key: key)
      #expect(honest.tokens.tokenType == .dpop)
    }
  }

  @Test("dpop proof refused as a replay", arguments: Wire.allCases)
  func aRefusedProofIsATypedError(over wire: Wire) async throws {
    try await withStage(wire) { stage in
      let (client, key) = try Self.dpopClient(stage)
      try await stage.provider.misbehave(.replayedDPoPProof, .once)
      let error = await expectRejection(.tokenRequestFailed, on: stage) {
        try await Self.signIn(stage, client, key: key)
      }
      #expect(error?.oauthError == "invalid_dpop_proof")
    }
  }
}
