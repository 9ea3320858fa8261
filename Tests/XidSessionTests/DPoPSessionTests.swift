import Foundation
import Testing
import Xid
import XidTestSupport
import XidTesting

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Whole DPoP-bound sessions (RFC 9449) against the strict test provider.
@Suite(.noSecretLeaks)
struct DPoPSessionTests {
  static func resource(_ harness: SessionHarness) -> HTTPRequest {
    HTTPRequest(url: harness.provider.url(for: .resource))
  }

  @Test func aDPoPSessionIsBoundFromSignInToSignOut() async throws {
    let harness = try SessionHarness.dpop { $0.identity.scopes = ["openid", "profile", "offline_access"] }
    let session = try await harness.xid.signIn()
    let binding = try #require(session.dpopBinding)
    #expect(!binding.isHardwareBacked)
    let record = try #require(try harness.storedRecord())
    #expect(record["token_type"] == "DPoP")
    #expect(record["dpop_jkt"]?.stringValue == binding.keyThumbprint)
    #expect(try harness.storedKey(binding.keyThumbprint)?["kind"] == "software")
    #expect(try harness.storedKeyNames() == [DPoPKeyStore.storageKey(thumbprint: binding.keyThumbprint)])
    let material = try #require(try harness.storedKeyMaterial(binding.keyThumbprint))

    let response = try await harness.xid.send(Self.resource(harness))
    #expect(response.status == 200)
    let body = try JSONValue(parsing: Array(response.body))
    #expect(body["token_type"] == "DPoP")
    #expect(body["cnf"]?["jkt"]?.stringValue == binding.keyThumbprint)

    harness.provider.clock.advance(by: .seconds(301))
    #expect(try await harness.xid.send(Self.resource(harness)).status == 200)
    #expect(await harness.provider.counters.refreshes == 1)
    #expect(try harness.storedRecord()?["dpop_jkt"]?.stringValue == binding.keyThumbprint)
    #expect(try await harness.xid.userInfo().subject == "alice")

    try await harness.xid.signOut()
    #expect(try harness.storedKeyNames().isEmpty)
    #expect(await harness.provider.counters.revocations == 1)
    #expect(await harness.provider.counters.dpopProofsRefused == 0)
    // Every proof was the session's key's, and neither key nor proof reached a log or a description.
    for proof in await harness.provider.receivedDPoPProofs {
      let jwk = try #require(try CompactJWS(parsing: proof).header.members["jwk"])
      #expect(try JWK(json: jwk).thumbprint == binding.keyThumbprint)
    }
    harness.expectNoSecrets([material], in: [session.description, "\(binding)"])
  }

  @Test func aSessionMadeWithAHardwareFactoryIsHardwareBackedAndOneWithoutFallsBackToSoftware() async throws {
    let hardware = try SessionHarness.dpop { $0.parts.dpopKeyFactory = FakeHardwareKeyFactory(isAvailable: true) }
    let bound = try #require(try await hardware.xid.signIn().dpopBinding)
    #expect(bound.isHardwareBacked)
    #expect(try hardware.storedKey(bound.keyThumbprint)?["kind"] == "fakeEnclave")
    #expect(try await hardware.xid.getSession()?.dpopBinding?.isHardwareBacked == true)
    #expect(try await hardware.xid.send(Self.resource(hardware)).status == 200)

    let none = try SessionHarness.dpop { $0.parts.dpopKeyFactory = FakeHardwareKeyFactory(isAvailable: false) }
    let software = try #require(try await none.xid.signIn().dpopBinding)
    #expect(!software.isHardwareBacked)
    #expect(try none.storedKey(software.keyThumbprint)?["kind"] == "software")
    #expect(try await none.xid.send(Self.resource(none)).status == 200)
  }

  @Test func noncesAreLearntFromEveryAnswerAndAskedForAtMostOnceEach() async throws {
    var configuration = TestProvider.Configuration()
    configuration.dpop.requiresNonce = true
    configuration.dpop.nonceUses = 3
    let harness = try SessionHarness.dpop(provider: try TestProvider(configuration: configuration))
    try await harness.xid.signIn()
    #expect(await harness.provider.counters.dpopNonceChallenges == 1)
    // Rotations announced on successful answers are learnt: no more challenges.
    for _ in 0..<7 { #expect(try await harness.xid.send(Self.resource(harness)).status == 200) }
    #expect(await harness.provider.counters.dpopNonceChallenges == 1)
    // A silent rotation costs one retry.
    try await harness.provider.rotateDPoPNonce()
    await harness.provider.resetCounters()
    #expect(try await harness.xid.send(Self.resource(harness)).status == 200)
    #expect(await harness.provider.counters.resourceRequests == 2)
    #expect(await harness.provider.counters.dpopNonceChallenges == 1)
    // The refresh too.
    harness.provider.clock.advance(by: .seconds(301))
    try await harness.provider.rotateDPoPNonce()
    #expect(try await harness.xid.send(Self.resource(harness)).status == 200)
    #expect(await harness.provider.counters.refreshes == 2)
  }

  @Test func aNonceDoesNotChangeTheTokenRecord() async throws {
    let harness = try SessionHarness.dpop()
    try await harness.xid.signIn()
    let before = try #require(try harness.storedRecord())
    try await harness.provider.misbehave(.demandDPoPNonce, .once)
    #expect(try await harness.xid.send(Self.resource(harness)).status == 200)
    #expect(try harness.storedRecord() == before)
    let cache = try #require(try harness.storage.load(key: harness.nonceCacheKey))
    #expect(cache.contains(try #require(await harness.provider.dpopNonce)))
  }

  @Test func aCallIsSentAtMostThreeTimes() async throws {
    let harness = try SessionHarness.dpop()
    try await harness.xid.signIn()
    let nonce: TestProvider.Fault = .respond(
      status: 401,
      headers: ["WWW-Authenticate": "DPoP error=\"use_dpop_nonce\"", "DPoP-Nonce": "n-1"])
    let invalid: TestProvider.Fault = .respond(
      status: 401, headers: ["WWW-Authenticate": "DPoP error=\"invalid_token\""])

    // A nonce retry and a refresh retry, then the answer.
    await harness.provider.injectFault(nonce, at: .resource)
    await harness.provider.injectFault(invalid, at: .resource)
    #expect(try await harness.xid.send(Self.resource(harness)).status == 200)
    #expect(await harness.provider.counters.resourceRequests == 3)
    #expect(await harness.provider.counters.refreshes == 1)

    // Never a fourth time, and each kind of retry once.
    await harness.provider.resetCounters()
    await harness.provider.injectFault(invalid, at: .resource)
    await harness.provider.injectFault(nonce, at: .resource)
    await harness.provider.injectFault(nonce, at: .resource)
    #expect(try await harness.xid.send(Self.resource(harness)).status == 401)
    #expect(await harness.provider.counters.resourceRequests == 3)
    await harness.provider.clearFaults()

    await harness.provider.resetCounters()
    await harness.provider.injectFault(invalid, at: .resource, times: 2)
    #expect(try await harness.xid.send(Self.resource(harness)).status == 401)
    #expect(await harness.provider.counters.resourceRequests == 2)
    #expect(await harness.provider.counters.refreshes == 1)
  }

  @Test func aBearerAnswerToADPoPSignInStoresNothingAndRevokesTheTokens() async throws {
    let harness = try SessionHarness.dpop()
    try await harness.provider.misbehave(.bearerTokenForDPoPRequest, .once)
    let error = await expectXidError(.dpopTokenUnbound) { try await harness.xid.signIn() }
    #expect(error?.reason.contains(TestClient.example.id) == true)
    #expect(try await harness.xid.getSession() == nil)
    #expect(try harness.storedRecord() == nil)
    #expect(try harness.storedKeyNames().isEmpty)
    #expect(try harness.pendingCount() == 0)
    #expect(await harness.provider.counters.revocations == 2)
    #expect(error?.reason.contains("the tokens were revoked") == true, "\(error?.reason ?? "")")
  }

  @Test func aBearerAnswerToADPoPSignInSaysTheTokensWereNotRevokedWhereTheProviderCannotRevoke() async throws {
    var configuration = TestProvider.Configuration()
    configuration.supportsRevocation = false
    let harness = try SessionHarness.dpop(provider: try TestProvider(configuration: configuration))
    try await harness.provider.misbehave(.bearerTokenForDPoPRequest, .once)
    let error = await expectXidError(.dpopTokenUnbound) { try await harness.xid.signIn() }
    let reason = error?.reason ?? ""
    #expect(!reason.contains("were revoked"), "\(reason)")
    #expect(reason.contains("not revoked") && reason.contains("no revocation_endpoint"), "\(reason)")
    #expect(reason.contains("valid until they expire"), "\(reason)")
    #expect(try harness.storedRecord() == nil)
    #expect(await harness.provider.counters.revocations == 0)
  }

  @Test func aBearerAnswerToADPoPSignInSaysWhenRevokingTheTokensFailed() async throws {
    let harness = try SessionHarness.dpop()
    try await harness.provider.misbehave(.bearerTokenForDPoPRequest, .once)
    await harness.provider.injectFault(.respond(status: 503), at: .revocation, times: 2)
    let error = await expectXidError(.dpopTokenUnbound) { try await harness.xid.signIn() }
    let reason = error?.reason ?? ""
    #expect(!reason.contains("were revoked"), "\(reason)")
    #expect(reason.contains("revoking them failed") && reason.contains("HTTP 503"), "\(reason)")
    #expect(try harness.storedRecord() == nil)
  }

  @Test func aBearerAnswerToABoundRefreshKeepsTheSession() async throws {
    let harness = try SessionHarness.dpop()
    try await harness.xid.signIn()
    let before = try #require(try harness.storedRecord())
    harness.provider.clock.advance(by: .seconds(301))
    try await harness.provider.misbehave(.bearerTokenForDPoPRequest, .once)
    await expectXidError(.dpopTokenUnbound) { try await harness.xid.getAccessToken() }
    #expect(try harness.storedRecord() == before)
  }

  @Test func aRefusedProofAtRefreshKeepsTheSession() async throws {
    let harness = try SessionHarness.dpop()
    try await harness.xid.signIn()
    let before = try #require(try harness.storedRecord())
    harness.provider.clock.advance(by: .seconds(301))
    try await harness.provider.misbehave(.replayedDPoPProof, .once)
    let error = await expectXidError(.tokenRequestFailed) { try await harness.xid.getAccessToken() }
    #expect(error?.oauthError == "invalid_dpop_proof")
    #expect(try harness.storedRecord() == before)
    #expect(try await harness.xid.send(Self.resource(harness)).status == 200)
  }

  @Test func aMissingKeyMakesTheSessionUnusableAndNothingIsSentWithoutIt() async throws {
    let storage = InMemoryTokenStorage()
    let provider = try TestProvider()
    let app = try SessionHarness.dpop(provider: provider, storage: storage)
    let thumbprint = try #require(try await app.xid.signIn().dpopBinding?.keyThumbprint)
    try storage.delete(key: DPoPKeyStore.storageKey(thumbprint: thumbprint))

    // Another process (the key is not in its memory) finds the session but cannot use it.
    let other = try SessionHarness.dpop(provider: provider, storage: storage)
    await provider.resetCounters()
    let error = await expectXidError(.dpopKeyUnavailable) { try await other.xid.send(Self.resource(other)) }
    #expect(error?.reason.lowercased().contains("sign the user in again") == true)
    await expectXidError(.dpopKeyUnavailable) { try await other.xid.userInfo() }
    provider.clock.advance(by: .seconds(301))
    await expectXidError(.dpopKeyUnavailable) { try await other.xid.getAccessToken() }
    #expect(await provider.counters.resourceRequests == 0)
    #expect(await provider.counters.userInfoRequests == 0)
    #expect(await provider.counters.refreshes == 0)
    #expect(try other.storedRecord() != nil)
  }

  @Test func anotherKeyUnderTheSessionsNameIsRefused() async throws {
    let storage = InMemoryTokenStorage()
    let provider = try TestProvider()
    let app = try SessionHarness.dpop(provider: provider, storage: storage)
    let thumbprint = try #require(try await app.xid.signIn().dpopBinding?.keyThumbprint)
    let (_, stored) = try SoftwareDPoPKeyFactory().makeKey()
    let entry: JSONValue = ["format": 1, "kind": "software", "key": .string(stored), "jkt": .string(thumbprint)]
    try storage.save(key: DPoPKeyStore.storageKey(thumbprint: thumbprint), value: entry.serialized())
    let other = try SessionHarness.dpop(provider: provider, storage: storage)
    await expectXidError(.dpopKeyUnavailable) { try await other.xid.send(Self.resource(other)) }
    #expect(await provider.counters.resourceRequests == 0)
  }

  @Test func aBearerSessionIsNeverUsedOnceDPoPIsOn() async throws {
    let storage = InMemoryTokenStorage()
    let provider = try TestProvider()
    let bearer = try SessionHarness(provider: provider, storage: storage)
    try await bearer.xid.signIn()
    let dpop = try SessionHarness.dpop(provider: provider, storage: storage)
    await provider.resetCounters()
    await expectXidError(.dpopKeyUnavailable) { try await dpop.xid.send(Self.resource(dpop)) }
    await expectXidError(.dpopKeyUnavailable) { try await dpop.xid.getAccessToken() }
    await expectXidError(.dpopKeyUnavailable) {
      try await dpop.xid.authorizationHeaders(method: "GET", url: provider.url(for: .resource))
    }
    #expect(await provider.counters.resourceRequests == 0)
  }

  @Test func theKeyOfASignInThatDidNotFinishGoesWithIt() async throws {
    let harness = try SessionHarness.dpop()
    // Abandoned: the URL was made, no redirect ever came; the next sign-in purges it once expired.
    _ = try await harness.xid.authorizationURL()
    #expect(try harness.storedKeyNames().count == 1)
    harness.provider.clock.advance(by: .seconds(16 * 60))
    _ = try await harness.xid.authorizationURL()
    #expect(try harness.storedKeyNames().count == 1)
    #expect(try harness.pendingCount() == 1)

    // Refused: the user denies.
    let denied = try SessionHarness.dpop()
    await denied.provider.setUserBehavior(.deny)
    await expectXidError(.authorizationFailed) { try await denied.xid.signIn() }
    #expect(try denied.storedKeyNames().isEmpty)
  }

  @Test func aNewSignInMakesANewKeyAndTheOldOneGoes() async throws {
    let harness = try SessionHarness.dpop()
    let first = try #require(try await harness.xid.signIn().dpopBinding?.keyThumbprint)
    let second = try #require(
      try await harness.xid.signIn(options: SignInOptions(prompt: ["login"])).dpopBinding?.keyThumbprint)
    #expect(first != second)
    #expect(try harness.storedKeyNames() == [DPoPKeyStore.storageKey(thumbprint: second)])
    #expect(try await harness.xid.send(Self.resource(harness)).status == 200)
  }

  @Test func aRefreshKeepsItsKeyWhileANewSignInMakesAnother() async throws {
    let harness = try SessionHarness.dpop()
    let first = try #require(try await harness.xid.signIn().dpopBinding?.keyThumbprint)
    await harness.provider.injectFault(.delay(.milliseconds(300)), at: .token)
    let refresh = Task { try await harness.xid.getAccessToken(forceRefresh: true) }
    try await Task.sleep(for: .milliseconds(50))
    let second = try #require(try await harness.xid.signIn().dpopBinding?.keyThumbprint)
    _ = try await refresh.value
    #expect(first != second)
    #expect(await harness.provider.counters.dpopProofsRefused == 0)
    #expect(await harness.provider.counters.refreshes == 1)
  }

  @Test func theAppsOwnRequestsGetTheHeadersAndFeedBackTheNonce() async throws {
    var configuration = TestProvider.Configuration()
    configuration.dpop.requiresNonce = true
    let harness = try SessionHarness.dpop(provider: try TestProvider(configuration: configuration))
    try await harness.xid.signIn()
    let url = harness.provider.url(for: .resource)
    func send() async throws -> HTTPResponse {
      var request = HTTPRequest(url: url)
      for field in try await harness.xid.authorizationHeaders(method: "GET", url: url) {
        request.headers[field.name] = field.value
      }
      let response = try await harness.provider.transport.send(request)
      #expect(request.headers["Authorization"]?.hasPrefix("DPoP ") == true)
      return response
    }
    #expect(try await send().status == 200)
    try await harness.provider.rotateDPoPNonce()
    let challenged = try await send()
    #expect(challenged.status == 401)
    #expect(harness.xid.recordResponse(challenged, for: url))
    #expect(try await send().status == 200)
  }

  @Test func aURLSessionResponseFeedsTheNonceBackToo() async throws {
    let harness = try SessionHarness.dpop()
    try await harness.xid.signIn()
    let url = URL(string: "https://api.example.com/v1/items")!
    let answer = try #require(
      HTTPURLResponse(
        url: url, statusCode: 401, httpVersion: "HTTP/1.1",
        headerFields: ["WWW-Authenticate": "DPoP error=\"use_dpop_nonce\"", "DPoP-Nonce": "api-nonce-1"]))
    #expect(harness.xid.recordResponse(answer))
    let proof = try #require(try await harness.xid.authorizationHeaders(method: "GET", url: url)["DPoP"])
    #expect(try JSONValue(parsing: CompactJWS(parsing: proof).payload)["nonce"] == "api-nonce-1")
    let fine = try #require(HTTPURLResponse(url: url, statusCode: 200, httpVersion: nil, headerFields: [:]))
    #expect(!harness.xid.recordResponse(fine))
  }

  @Test func theDeviceFlowAndPushedRequestsAreBoundToo() async throws {
    let device = try SessionHarness.dpop()
    let provider = device.provider
    let session = try await device.xid.signInWithDeviceCode { authorization in
      await provider.completeDeviceAuthorization(userCode: authorization.userCode)
    }
    #expect(session.dpopBinding != nil)
    #expect(try device.storedRecord()?["token_type"] == "DPoP")
    #expect(try await device.xid.send(Self.resource(device)).status == 200)

    let pushed = try SessionHarness.dpop { $0.policy.prefersPushedAuthorization = true }
    #expect(try await pushed.xid.signIn().dpopBinding != nil)
    #expect(await pushed.provider.counters.pushedAuthorizationRequests == 1)
    #expect(try await pushed.xid.send(Self.resource(pushed)).status == 200)
  }

  @Test func aProviderWithoutES256ProofsIsNamedBeforeTheUserSignsIn() async throws {
    var configuration = TestProvider.Configuration()
    configuration.dpop.signingAlgorithms = ["RS256"]
    let harness = try SessionHarness.dpop(provider: try TestProvider(configuration: configuration))
    let error = await expectXidError(.unsupportedByProvider) { try await harness.xid.signIn() }
    #expect(error?.reason.contains("ES256") == true)
    #expect(await harness.provider.counters.authorizationRequests == 0)
    #expect(try harness.storedKeyNames().isEmpty)
  }
}
