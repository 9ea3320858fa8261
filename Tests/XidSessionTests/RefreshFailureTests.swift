import Foundation
import Testing
import Xid
import XidTestSupport
import XidTesting

/// What a refresh that fails does to the session: only a provider that proved the grant dead (an
/// OAuth `invalid_grant`) ends it.
@Suite(.noSecretLeaks)
struct RefreshFailureTests {
  // Computed, not stored: a `Data` kept in a global is reported by LeakSanitizer at exit, which cannot
  // see the pointer `Data` keeps in its enum's spare bits (docs/reliability.md, "Sanitizers").
  static var htmlPage: Data {
    Data("<html><head><title>Forbidden</title></head><body>Request blocked</body></html>".utf8)
  }

  /// Answers that are not a dead grant: a gateway's HTML 403, an empty 401, a proxy's 400 page, an
  /// empty 400, a non-standard error.
  static var answersThatKeepTheSession: [(name: String, status: Int, contentType: String?, body: Data)] {
    [
      ("an HTML 403 from a gateway", 403, "text/html; charset=utf-8", htmlPage),
      ("an empty 401", 401, nil, Data()),
      ("a proxy's 400 page", 400, "text/html", htmlPage),
      ("an empty 400", 400, nil, Data()),
      ("a non-standard JSON error", 403, "application/json", Data(#"{"error":"invalid_code"}"#.utf8)),
    ]
  }

  @Test(arguments: answersThatKeepTheSession.indices)
  func aRefreshAnswerThatIsNotAnInvalidGrantKeepsTheSessionAndSaysWhatCameBack(index: Int) async throws {
    let answer = Self.answersThatKeepTheSession[index]
    let harness = try SessionHarness()
    try await harness.xid.signIn()
    let before = try #require(try harness.storedRecord())
    harness.provider.clock.advance(by: .seconds(301))
    var headers: HTTPHeaders = [:]
    if let contentType = answer.contentType { headers["Content-Type"] = contentType }
    await harness.provider.injectFault(
      .respond(status: answer.status, headers: headers, body: answer.body), at: .token, times: 1)

    let error = await expectXidError(.tokenRequestFailed) { try await harness.xid.getAccessToken() }
    #expect(error?.httpStatus == answer.status, "\(answer.name)")
    let described =
      answer.body.isEmpty ? "empty body" : (answer.contentType == "application/json" ? "invalid_code" : "text/html")
    #expect(error?.reason.contains(described) == true, "\(answer.name): \(error?.reason ?? "")")
    #expect(error?.reason.contains("session is kept") == true, "\(answer.name): \(error?.reason ?? "")")
    #expect(try harness.storedRecord() == before, "\(answer.name)")
    #expect(try await harness.xid.getSession() != nil)
    // The provider answers properly again: the same session refreshes.
    _ = try await harness.xid.getAccessToken()
    #expect(await harness.provider.counters.refreshes == 2)
  }

  @Test func anEmpty400NamesTheProviderQuirkOption() async throws {
    let harness = try SessionHarness()
    try await harness.xid.signIn()
    harness.provider.clock.advance(by: .seconds(301))
    await harness.provider.injectFault(.respond(status: 400), at: .token, times: 1)
    let error = await expectXidError(.tokenRequestFailed) { try await harness.xid.getAccessToken() }
    #expect(error?.reason.contains("providerQuirks") == true)
    #expect(error?.reason.contains("emptyBadRequestIsInvalidGrant") == true)
  }

  @Test func withTheQuirkOptionAnEmpty400EndsTheSessionAndSaysWhy() async throws {
    let provider = try TestProvider()
    var configuration = SessionHarness.configuration(provider, logger: RecordingLogger())
    configuration.policy.providerQuirks = [.emptyBadRequestIsInvalidGrant]
    let storage = InMemoryTokenStorage()
    let xid = try Xid(configuration: configuration.storing(in: storage))
    try await xid.signIn()
    provider.clock.advance(by: .seconds(301))
    await provider.injectFault(.respond(status: 400), at: .token, times: 1)
    let error = await expectXidError(.sessionExpired) { try await xid.getAccessToken() }
    #expect(error?.reason.contains("emptyBadRequestIsInvalidGrant") == true)
    #expect(try await xid.getSession() == nil)
    // Off by default: the same answer keeps the session (above).
    #expect(
      XidConfiguration(issuer: provider.issuer, clientId: "c", redirectUri: provider.issuer).policy.providerQuirks
        .isEmpty)
  }

  @Test func anOAuthInvalidGrantEndsTheSession() async throws {
    let harness = try SessionHarness()
    try await harness.xid.signIn()
    harness.provider.clock.advance(by: .seconds(301))
    await harness.provider.injectFault(.oauthError("invalid_grant", status: 400), at: .token, times: 1)
    let error = await expectXidError(.sessionExpired) { try await harness.xid.getAccessToken() }
    #expect(error?.oauthError == "invalid_grant")
    #expect(try harness.storedRecord() == nil)
  }
}
