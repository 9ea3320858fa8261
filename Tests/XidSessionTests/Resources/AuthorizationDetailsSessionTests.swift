import Foundation
import Testing
import Xid
import XidTestSupport
import XidTesting

/// Rich authorization requests (RFC 9396): the details go out with the sign-in (pushed when the
/// provider offers it), the granted ones stay with the session across refreshes and go with the
/// requests they authorize, and details of a type nobody asked for are refused with the session
/// left as it was.
@Suite(.noSecretLeaks)
struct AuthorizationDetailsSessionTests {
  static func payment(amount: String = "123.50") throws -> AuthorizationDetail {
    try AuthorizationDetail(
      type: "payment_initiation", locations: [URL(string: "https://bank.example/payments")!], actions: ["initiate"],
      fields: ["instructedAmount": ["currency": "EUR", "amount": .string(amount)], "creditorName": "Merchant A"])
  }

  static func harness(pushed: TestProvider.Configuration.PushedAuthorization = .supported) throws -> (
    SessionHarness, RequestLog
  ) {
    var configuration = TestProvider.Configuration()
    configuration.pushedAuthorization = pushed
    let provider = try TestProvider(configuration: configuration)
    let log = RequestLog(provider.transport)
    return (try SessionHarness(provider: provider, transport: log), log)
  }

  @Test func detailsArePushedAndTheGrantedOnesStayWithTheSession() async throws {
    let (harness, log) = try Self.harness()
    var options = SignInOptions()
    options.authorizationDetails = [try Self.payment()]
    let session = try await harness.xid.signIn(options: options)

    let sent = try #require(log.values("authorization_details", at: "/par").first?.first)
    #expect(try AuthorizationDetail.array(parsing: sent) == [try Self.payment()])
    #expect(session.authorizationDetails == [try Self.payment()])
    #expect(session.authorizationDetails?.first?.fields["creditorName"] == "Merchant A")
    #expect(String(describing: session).contains("authorizationDetails: payment_initiation"))
    #expect(!String(describing: session).contains("Merchant"), "a description shows the types only")
    #expect(try harness.storedRecord()?["format"] == .int(2))

    // Kept across a refresh, and reported with the request they authorize.
    _ = try await harness.xid.getAccessToken(forceRefresh: true)
    #expect(try await harness.xid.getSession()?.authorizationDetails == [try Self.payment()])
    let answer = try await harness.xid.sendReportingGrant(HTTPRequest(url: harness.provider.url(for: .resource)))
    #expect(answer.response.status == 200)
    #expect(answer.resource == nil)
    #expect(answer.authorizationDetails?.map(\.type) == ["payment_initiation"])
    let body = try JSONValue(parsing: answer.response.body)
    #expect(body["authorization_details_types"] == ["payment_initiation"])
  }

  @Test func withoutPushedRequestsTheDetailsGoInTheURL() async throws {
    let (harness, _) = try Self.harness(pushed: .unsupported)
    var options = SignInOptions()
    options.authorizationDetails = [try Self.payment()]
    let url = try await harness.xid.authorizationURL(options: options)
    let sent = try #require(url.queryParameters.first { $0.0 == "authorization_details" }?.1)
    #expect(try AuthorizationDetail.array(parsing: sent) == [try Self.payment()])
  }

  @Test func anAppThatAsksForTheURLGetsItForShortDetailsButLongOnesArePushed() async throws {
    let (harness, log) = try Self.harness()
    var options = SignInOptions(usePushedAuthorization: false)
    options.authorizationDetails = [try Self.payment()]
    let short = try await harness.xid.authorizationURL(options: options)
    #expect(short.queryParameters.contains { $0.0 == "authorization_details" })
    #expect(log.values("authorization_details", at: "/par").isEmpty)

    options.authorizationDetails = try (0..<20).map { try Self.payment(amount: "\($0).00") }
    let long = try await harness.xid.authorizationURL(options: options)
    #expect(long.queryParameters.contains { $0.0 == "request_uri" })
    #expect(!long.queryParameters.contains { $0.0 == "authorization_details" })
    #expect(log.values("authorization_details", at: "/par").count == 1)
  }

  @Test func detailsOfATypeNotAskedForAreRefusedAndTheSessionStaysAsItWas() async throws {
    let (harness, _) = try Self.harness()
    let first = try await harness.xid.signIn()
    let token = try await harness.xid.getAccessToken()
    try await harness.provider.misbehave(.unrequestedAuthorizationDetails, .once)
    await harness.provider.resetCounters()

    var options = SignInOptions()
    options.authorizationDetails = [try Self.payment()]
    let error = await expectXidError(.invalidTokenResponse) { try await harness.xid.signIn(options: options) }
    #expect(error?.reason.contains("\"\(TestProvider.Misbehavior.foreignAuthorizationDetailType)\"") == true)
    #expect(error?.reason.contains("did not ask for") == true)
    #expect(try await harness.xid.getSession() == first)
    #expect(try await harness.xid.getAccessToken() == token)
    // Both tokens of the refused answer are revoked.
    #expect(await harness.provider.counters.revocations == 2)
  }

  @Test func aTypeTheProviderDoesNotListIsRefusedBeforeAnythingIsSent() async throws {
    let (harness, _) = try Self.harness()
    var options = SignInOptions()
    options.authorizationDetails = [try AuthorizationDetail(type: "urn:example:unknown")]
    let error = await expectXidError(.unsupportedByProvider) { try await harness.xid.signIn(options: options) }
    #expect(error?.reason.contains("authorization_details_types_supported") == true)
    #expect(await harness.provider.counters.pushedAuthorizationRequests == 0)
    #expect(await harness.provider.counters.authorizationRequests == 0)
  }

  @Test func aSignInThatAskedForNoDetailsRefusesAnyThatComeBack() async throws {
    let (harness, _) = try Self.harness()
    try await harness.provider.misbehave(.unrequestedAuthorizationDetails, .once)
    await expectXidError(.invalidTokenResponse) { try await harness.xid.signIn() }
    #expect(try await harness.xid.getSession() == nil)
    #expect(try harness.storedRecord() == nil)
  }

  @Test func aDeviceSignInRefusesDetailsItNeverAskedFor() async throws {
    let (harness, _) = try Self.harness()
    try await harness.provider.misbehave(.unrequestedAuthorizationDetails, .once)
    let provider = harness.provider
    let error = await expectXidError(.invalidTokenResponse) {
      try await harness.xid.signInWithDeviceCode { await provider.completeDeviceAuthorization(userCode: $0.userCode) }
    }
    #expect(error?.reason.contains("did not ask for") == true)
    #expect(try harness.storedRecord() == nil)
    #expect(await provider.counters.revocations == 2)
  }

  @Test func aRefreshCannotWidenTheGrantedDetails() async throws {
    let (harness, _) = try Self.harness()
    var options = SignInOptions()
    options.authorizationDetails = [try Self.payment()]
    try await harness.xid.signIn(options: options)
    try await harness.provider.misbehave(.unrequestedAuthorizationDetails, .once)
    _ = try await harness.xid.getAccessToken(forceRefresh: true)
    #expect(try await harness.xid.getSession()?.authorizationDetails == [try Self.payment()])
    #expect(harness.logger.messages.contains { $0.contains("the previous ones are kept") })
  }
}
