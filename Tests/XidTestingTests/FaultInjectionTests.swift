import Foundation
import Testing
import XidCore
import XidTestSupport
import XidTesting

struct FaultInjectionTests {
  @Test func anInjectedStatusAnswersTheNextRequestsThenTheProviderRecovers() async throws {
    let harness = try Harness()
    await harness.provider.injectFault(.respond(status: 503, body: Data("busy".utf8)), at: .discovery, times: 2)
    for _ in 0..<2 {
      let response = try await harness.get(.discovery)
      #expect(response.status == 503)
      #expect(response.body == Data("busy".utf8))
    }
    #expect(try await harness.get(.discovery).status == 200)
    #expect(await harness.provider.counters.discoveryFetches == 3)
  }

  @Test func anInjectedOAuthErrorLeavesTheRefreshTokenUntouched() async throws {
    let harness = try Harness()
    let refreshToken = try #require(try await harness.signIn().refreshToken)
    await harness.provider.injectFault(.oauthError("temporarily_unavailable", status: 503), at: .token)
    let failed = try await harness.refresh(refreshToken)
    #expect(failed.status == 503)
    #expect(Harness.oauthError(failed) == "temporarily_unavailable")
    _ = try Harness.Tokens(await harness.refresh(refreshToken))
    #expect(await harness.provider.counters.refreshes == 2)
  }

  @Test func aDroppedResponseCommitsTheRotationButTheClientNeverSeesIt() async throws {
    let harness = try Harness()
    let tokens = try await harness.signIn()
    let refreshToken = try #require(tokens.refreshToken)
    await harness.provider.injectFault(.dropResponse, at: .token)
    let error = await #expect(throws: XidError.self) { try await harness.refresh(refreshToken) }
    #expect(error?.code == .networkFailure)
    #expect(await harness.provider.counters.refreshes == 1)
    // The provider did rotate: retrying with the old token is a replay, and the grant is revoked.
    #expect(Harness.oauthError(try await harness.refresh(refreshToken)) == "invalid_grant")
    #expect(try await harness.get(.resource, bearer: tokens.accessToken).status == 401)
  }

  @Test func handleAnswersADroppedResponseWith504() async throws {
    let harness = try Harness()
    await harness.provider.injectFault(.dropResponse, at: .jwks, times: 2)
    let request = HTTPRequest(url: harness.provider.url(for: .jwks))
    #expect(await harness.provider.respond(to: request) == .dropped)
    #expect(await harness.provider.handle(request).status == 504)
    #expect(await harness.provider.handle(request).status == 200)
  }

  @Test func aFailedConnectionNeverReachesTheProvider() async throws {
    let harness = try Harness()
    let refreshToken = try #require(try await harness.signIn().refreshToken)
    await harness.provider.injectFault(.failConnection, at: .token)
    let error = await #expect(throws: XidError.self) { try await harness.refresh(refreshToken) }
    #expect(error?.code == .networkFailure)
    #expect(await harness.provider.counters.refreshes == 0)
    _ = try Harness.Tokens(await harness.refresh(refreshToken))
  }

  @Test func aDelayHoldsTheResponse() async throws {
    let harness = try Harness()
    await harness.provider.injectFault(.delay(.milliseconds(50)), at: .jwks)
    let start = ContinuousClock.now
    #expect(try await harness.get(.jwks).status == 200)
    #expect(ContinuousClock.now - start >= .milliseconds(50))
  }

  @Test func cancellingDuringADelayLeavesTheRequestUnhandled() async throws {
    let harness = try Harness()
    let refreshToken = try #require(try await harness.signIn().refreshToken)
    await harness.provider.injectFault(.delay(.seconds(30)), at: .token)
    let task = Task { try await harness.refresh(refreshToken) }
    // The request is counted on arrival, before the delay.
    while await harness.provider.counters.refreshes == 0 { await Task.yield() }
    task.cancel()
    await #expect(throws: CancellationError.self) { try await task.value }
    _ = try Harness.Tokens(await harness.refresh(refreshToken))
  }

  @Test func faultsQueuePerEndpointAndCanBeCleared() async throws {
    let harness = try Harness()
    await harness.provider.injectFault(.respond(status: 500), at: .jwks)
    await harness.provider.injectFault(.respond(status: 502), at: .jwks)
    #expect(try await harness.get(.discovery).status == 200)
    #expect(try await harness.get(.jwks).status == 500)
    await harness.provider.clearFaults()
    #expect(try await harness.get(.jwks).status == 200)
  }

  @Test func aTimeoutIsNeverHandledAndHoldsTheRequestUntilTheClientGivesUp() async throws {
    let harness = try Harness()
    let refreshToken = try #require(try await harness.signIn().refreshToken)
    let before = harness.provider.clock.now
    await harness.provider.injectFault(.timeout(after: .seconds(30)), at: .token)
    let sending = Task { try await harness.refresh(refreshToken) }
    // The provider moved its clock, and holds the request: no answer comes by itself.
    try await eventually { await harness.provider.counters.faultsApplied == 1 }
    #expect(harness.provider.clock.now.timeIntervalSince(before) == 30)
    try await Task.sleep(for: .milliseconds(50))
    #expect(await harness.provider.counters.refreshes == 1)
    // The client gives up: the request ends unanswered.
    sending.cancel()
    await #expect(throws: (any Error).self) { try await sending.value }
    // Not handled: the refresh token was not rotated.
    _ = try Harness.Tokens(await harness.refresh(refreshToken))
    #expect(await harness.provider.counters.faultsApplied == 1)
  }

  @Test func aClientWhoseTimeoutRunsOnTheProvidersClockGivesUpAtOnce() async throws {
    let provider = try TestProvider()
    let client = try OpenIDClient(
      configuration: XidConfiguration(
        identity: ClientIdentity(
          issuer: provider.issuer, clientId: TestClient.example.id, redirectUri: TestClient.example.redirectURIs[0]),
        policy: SessionPolicy(requestTimeout: .seconds(20))
      ).using(transport: provider.transport, clock: provider.clock))
    await provider.injectFault(.timeout(after: .seconds(21)), at: .discovery)
    let error = await #expect(throws: XidError.self) { try await client.metadata() }
    #expect(error?.code == .networkFailure)
    #expect(error?.reason.contains("requestTimeout") == true)
    // The next request is answered.
    _ = try await client.metadata()
  }

  /// Waits (generously, counted in polls: see ``pollUntil(every:atMost:_:)``) until `condition` holds.
  private func eventually(_ condition: @Sendable () async -> Bool) async throws {
    guard try await pollUntil(every: .milliseconds(5), atMost: 4_000, condition) else { throw CancellationError() }
  }

  @Test func aTruncatedOrOversizedBodyComesAfterTheProviderCommitted() async throws {
    let harness = try Harness()
    let refreshToken = try #require(try await harness.signIn().refreshToken)
    await harness.provider.injectFault(.truncateBody, at: .token)
    let truncated = try await harness.refresh(refreshToken)
    #expect(truncated.status == 200)
    #expect((try? JSONValue(parsing: truncated.body)) == nil)
    // The rotation was committed: the old token is now a replay.
    #expect(Harness.oauthError(try await harness.refresh(refreshToken)) == "invalid_grant")

    let second = try #require(try await harness.signIn().refreshToken)
    await harness.provider.injectFault(.oversizeBody, at: .token)
    let oversized = try await harness.refresh(second)
    #expect(oversized.body.count > 1 << 20)
  }

  @Test func anHTMLPageAnswersInsteadOfTheProvider() async throws {
    let harness = try Harness()
    await harness.provider.injectFault(.htmlPage(status: 502), at: .discovery)
    let response = try await harness.get(.discovery)
    #expect(response.status == 502)
    #expect(response.headers["Content-Type"]?.hasPrefix("text/html") == true)
  }
}
