import Foundation
import Testing
import Xid
import XidTestSupport
import XidTesting

@testable import XidSession

/// `send` turns a resource server's step-up challenge (RFC 9470) into `stepUpRequired`: the token is
/// valid, so nothing is refreshed or retried, and the session stays as it was.
@Suite(.noSecretLeaks)
struct StepUpSendTests {
  static let challenge = #"error="insufficient_user_authentication", acr_values="gold", max_age="60""#

  @Test func aStepUpChallengeToABearerCallIsThrownWithItsValuesAndKeepsTheSession() async throws {
    let harness = try SessionHarness()
    try await harness.xid.signIn()
    let token = try await harness.xid.getAccessToken()
    let record = try harness.storedRecord()
    await harness.provider.injectFault(
      .respond(status: 401, headers: ["WWW-Authenticate": "Bearer " + Self.challenge]), at: .resource, times: 1)
    await harness.provider.resetCounters()

    let error = await expectXidError(.stepUpRequired) {
      try await harness.xid.send(HTTPRequest(url: harness.provider.url(for: .resource)))
    }
    #expect(error?.stepUp == StepUpRequirement(acrValues: ["gold"], maxAge: .seconds(60)))
    #expect(await harness.provider.counters.resourceRequests == 1)
    #expect(await harness.provider.counters.refreshes == 0)
    #expect(try harness.storedRecord() == record)
    #expect(try await harness.xid.getAccessToken() == token)
  }

  @Test func aStepUpChallengeToADPoPCallIsThrownWithoutARefresh() async throws {
    let harness = try SessionHarness.dpop()
    try await harness.xid.signIn()
    await harness.provider.injectFault(
      .respond(status: 401, headers: ["WWW-Authenticate": #"DPoP algs="ES256", "# + Self.challenge]),
      at: .resource, times: 1)
    await harness.provider.resetCounters()

    let error = await expectXidError(.stepUpRequired) {
      try await harness.xid.send(HTTPRequest(url: harness.provider.url(for: .resource)))
    }
    #expect(error?.stepUp?.acrValues == ["gold"])
    #expect(await harness.provider.counters.refreshes == 0)
    #expect(try await harness.xid.getSession() != nil)
  }

  @Test func aStepUpChallengeAfterANonceRetryIsThrownToo() async throws {
    let harness = try SessionHarness.dpop()
    try await harness.xid.signIn()
    let nonce: TestProvider.Fault = .respond(
      status: 401, headers: ["WWW-Authenticate": "DPoP error=\"use_dpop_nonce\"", "DPoP-Nonce": "n-1"])
    await harness.provider.injectFault(nonce, at: .resource)
    await harness.provider.injectFault(
      .respond(status: 401, headers: ["WWW-Authenticate": "DPoP " + Self.challenge]), at: .resource)
    await harness.provider.resetCounters()

    await expectXidError(.stepUpRequired) {
      try await harness.xid.send(HTTPRequest(url: harness.provider.url(for: .resource)))
    }
    #expect(await harness.provider.counters.resourceRequests == 2)
  }

  /// Widgets and App Intents cannot show the provider's page: a step-up tells them to send the user
  /// to the app (`XidAppIntents` says so in its dialog).
  @Test func aStepUpTellsAnIntentToOpenTheAppAndSignInAgain() {
    #expect(XidError(.stepUpRequired, "", stepUp: StepUpRequirement(maxAge: .zero)).userAction == .stepUp)
  }
}
