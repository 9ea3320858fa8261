import Foundation
import Testing
import Xid
import XidTestSupport
import XidTesting

@Suite(.noSecretLeaks)
struct XidFacadeTests {
  @Test func aWholeSessionSignsInRefreshesCallsAnAPIAndSignsOut() async throws {
    let harness = try SessionHarness()
    let session = try await harness.xid.signIn()
    #expect(session.subject == TestUser.alice.subject)
    #expect(session.scopes.contains("openid"))
    let secrets = try harness.storedSecrets()
    #expect(secrets.count == 3)

    let first = try await harness.xid.getAccessToken()
    #expect(try await harness.xid.getAccessToken() == first)
    #expect(await harness.provider.counters.refreshes == 0)

    harness.provider.clock.advance(by: .seconds(301))
    let second = try await harness.xid.getAccessToken()
    #expect(second != first)
    #expect(await harness.provider.counters.refreshes == 1)

    let response = try await harness.xid.send(HTTPRequest(url: harness.provider.url(for: .resource)))
    #expect(response.status == 200)

    let info = try await harness.xid.userInfo()
    #expect(info.subject == session.subject)

    let allSecrets = secrets + (try harness.storedSecrets())
    try await harness.xid.signOut()
    #expect(try await harness.xid.getSession() == nil)
    #expect(try harness.storedRecord() == nil)
    #expect(await harness.provider.counters.revocations == 1)
    await expectXidError(.signInRequired) { try await harness.xid.getAccessToken() }
    harness.expectNoSecrets(allSecrets, in: [session.description, "\(session)"])
  }

  /// Hides the test provider from `dump`: it keeps the tokens it issued, and they are not Xid's to hide.
  struct OpaqueTransport: HTTPTransport, CustomReflectable {
    let wrapped: any HTTPTransport
    func send(_ request: HTTPRequest) async throws -> HTTPResponse { try await wrapped.send(request) }
    var customMirror: Mirror { Mirror(self, children: []) }
  }

  /// Hides the test provider's browser from `dump`, as ``OpaqueTransport`` hides the provider.
  struct OpaqueUserAgent: AuthorizationUserAgent, CustomReflectable {
    let wrapped: any AuthorizationUserAgent
    func prepare(redirectUri: URL) async throws -> any AuthorizationUserAgentSession {
      try await wrapped.prepare(redirectUri: redirectUri)
    }
    func open(_ url: URL) async throws { try await wrapped.open(url) }
    var customMirror: Mirror { Mirror(self, children: []) }
  }

  @Test func dumpOfASignedInXidShowsNoToken() async throws {
    let provider = try TestProvider()
    let logger = RecordingLogger()
    var configuration = SessionHarness.configuration(
      provider, logger: logger, transport: OpaqueTransport(wrapped: provider.transport))
    configuration.parts.userAgent = OpaqueUserAgent(wrapped: provider.userAgent)
    let storage = InMemoryTokenStorage()
    let xid = try Xid(configuration: configuration.storing(in: storage))
    let session = try await xid.signIn()
    _ = try await xid.getAccessToken()
    _ = try await xid.userInfo()
    let secrets = await provider.issuedSecrets
    #expect(secrets.count >= 3)
    var dumped = ""
    dump(xid, to: &dumped)
    var dumpedSession = ""
    dump(session, to: &dumpedSession)
    for text in [dumped, dumpedSession, String(reflecting: xid), String(reflecting: storage)] {
      for secret in secrets where secret.count >= 8 && text.contains(secret) {
        Issue.record("a secret is in the dump: \(text.replacingOccurrences(of: secret, with: "[secret]").prefix(400))")
      }
    }
  }

  @Test func anythingBeforeConfigureIsAClearError() async {
    let xid = Xid()
    let error = await expectXidError(.notConfigured) { try await xid.getAccessToken() }
    #expect(error?.reason.contains("configure(options:)") == true)
    await expectXidError(.notConfigured) { try await xid.getSession() }
  }

  @Test func offlineAccessIsRejectedWithoutDPoP() throws {
    let provider = try TestProvider()
    var configuration = SessionHarness.configuration(provider, logger: DiscardingLogger())
    configuration.identity.scopes = ["openid", "offline_access"]
    let error = expectXidError(.invalidConfiguration) { try configuration.validate() }
    #expect(error?.reason.contains("offline_access") == true)
  }

  @Test func anInvalidConfigurationIsLoggedAtOnceAndReportedByEveryCall() async throws {
    let provider = try TestProvider()
    let logger = RecordingLogger()
    var configuration = SessionHarness.configuration(provider, logger: logger)
    configuration.identity.clientId = ""
    let xid = Xid()
    xid.configure(options: configuration)
    #expect(logger.messages.contains { $0.contains("not valid") && $0.contains("client identifier") })
    #expect(xid.configurationError?.code == .invalidConfiguration)
    await expectXidError(.invalidConfiguration) { try await xid.getSession() }
    await expectXidError(.invalidConfiguration) { try await xid.getAccessToken() }
    await expectXidError(.invalidConfiguration) { try await xid.signIn() }
  }

  @Test func reconfiguringWithAnInvalidConfigurationKeepsThePreviousOne() async throws {
    let harness = try SessionHarness()
    try await harness.xid.signIn()
    var broken = SessionHarness.configuration(harness.provider, logger: harness.logger)
    broken.identity.redirectUri = URL(string: "http://example.com/callback")!
    harness.xid.configure(options: broken)
    #expect(harness.xid.configurationError?.code == .invalidConfiguration)
    #expect(harness.logger.messages.contains { $0.contains("previous configuration stays in use") })
    #expect(try await harness.xid.getSession()?.subject == TestUser.alice.subject)
    harness.xid.configure(options: SessionHarness.configuration(harness.provider, logger: harness.logger))
    #expect(harness.xid.configurationError == nil)
  }

  /// The token fast path reads the engine of the current configuration: once the storage is
  /// replaced, the previous engine's token in memory is never handed out.
  @Test func aTokenInTheReplacedEnginesMemoryIsNotHandedOutAfterTheStorageChanges() async throws {
    let harness = try SessionHarness()
    try await harness.xid.signIn()
    let token = try await harness.xid.getAccessToken()
    harness.xid.setTokenStorage(InMemoryTokenStorage())
    await expectXidError(.signInRequired) { try await harness.xid.getAccessToken() }
    harness.xid.setTokenStorage(harness.storage)
    #expect(try await harness.xid.getAccessToken() == token)
  }

  /// Token requests that race changes of configuration each get the session's token: the engine a
  /// request read stays usable while it is replaced.
  @Test func tokenRequestsRacingReconfigurationsEachGetTheToken() async throws {
    let harness = try SessionHarness()
    try await harness.xid.signIn()
    let token = try await harness.xid.getAccessToken()
    let configuration = SessionHarness.configuration(harness.provider, logger: harness.logger)
      .storing(in: harness.storage)
    let tokens = try await withThrowingTaskGroup(of: Int.self) { group in
      for _ in 0..<4 {
        group.addTask {
          var matching = 0
          for _ in 0..<500 where try await harness.xid.getAccessToken() == token { matching += 1 }
          return matching
        }
      }
      for round in 0..<200 {
        if round % 2 == 0 {
          harness.xid.configure(options: configuration)
        } else {
          harness.xid.setTokenStorage(harness.storage)
        }
        await Task.yield()
      }
      return try await group.reduce(0, +)
    }
    #expect(tokens == 4 * 500)
    #expect(await harness.provider.counters.refreshes == 0)
  }

  @Test func aSignInPendingAcrossARelaunchCanStillFinish() async throws {
    let provider = try TestProvider()
    let storage = InMemoryTokenStorage()
    let before = try SessionHarness(provider: provider, storage: storage)
    let url = try await before.xid.authorizationURL()
    #expect(try storage.keys(withPrefix: "xid.pending.").count == 1)
    let callback = try await provider.browser.redirect(from: url)
    // The app was relaunched: a new instance over the same storage receives the redirect.
    let after = try SessionHarness(provider: provider, storage: storage)
    let session = try await after.xid.handleRedirect(url: callback)
    #expect(session.subject == TestUser.alice.subject)
    #expect(try storage.keys(withPrefix: "xid.pending.").isEmpty)
    // The pending sign-in is single-use.
    await expectXidError(.stateMismatch) { try await after.xid.handleRedirect(url: callback) }
  }

  @Test func aRedirectOfNoPendingSignInIsRefusedAndStoresNothing() async throws {
    let harness = try SessionHarness()
    let url = try await harness.xid.authorizationURL()
    let callback = try await harness.provider.browser.redirect(from: url)
    var components = URLComponents(url: callback, resolvingAgainstBaseURL: false)!
    components.queryItems = components.queryItems?.map {
      $0.name == "state" ? URLQueryItem(name: "state", value: "forged") : $0
    }
    await expectXidError(.stateMismatch) { try await harness.xid.handleRedirect(url: components.url!) }
    #expect(try harness.storedRecord() == nil)
  }

  @Test func aDeniedSignInIsATypedErrorAndClearsThePendingSignIn() async throws {
    let harness = try SessionHarness()
    await harness.provider.setUserBehavior(.deny)
    let error = await expectXidError(.authorizationFailed) { try await harness.xid.signIn() }
    #expect(error?.oauthError == "access_denied")
    #expect(try harness.pendingCount() == 0)
    #expect(try await harness.xid.getSession() == nil)
  }

  @Test func aRejectedTokenIsRefreshedAndTheRequestRetriedOnce() async throws {
    let harness = try SessionHarness()
    try await harness.xid.signIn()
    let challenge: HTTPHeaders = ["WWW-Authenticate": #"Bearer error="invalid_token""#]
    await harness.provider.injectFault(.respond(status: 401, headers: challenge), at: .resource, times: 1)
    let response = try await harness.xid.send(HTTPRequest(url: harness.provider.url(for: .resource)))
    #expect(response.status == 200)
    #expect(await harness.provider.counters.refreshes == 1)
  }

  @Test func aSecond401IsReturnedNotRetriedAgain() async throws {
    let harness = try SessionHarness()
    try await harness.xid.signIn()
    let challenge: HTTPHeaders = ["WWW-Authenticate": #"Bearer error="invalid_token""#]
    await harness.provider.injectFault(.respond(status: 401, headers: challenge), at: .resource, times: 5)
    await harness.provider.resetCounters()
    let response = try await harness.xid.send(HTTPRequest(url: harness.provider.url(for: .resource)))
    #expect(response.status == 401)
    #expect(await harness.provider.counters.refreshes == 1)
  }

  @Test func insufficientScopeIsNotRetried() async throws {
    let harness = try SessionHarness()
    try await harness.xid.signIn()
    let challenge: HTTPHeaders = ["WWW-Authenticate": #"Bearer error="insufficient_scope""#]
    await harness.provider.injectFault(.respond(status: 401, headers: challenge), at: .resource, times: 1)
    let response = try await harness.xid.send(HTTPRequest(url: harness.provider.url(for: .resource)))
    #expect(response.status == 401)
    #expect(await harness.provider.counters.refreshes == 0)
  }

  @Test func authorizedRequestsRefuseInsecureURLs() async throws {
    let harness = try SessionHarness()
    try await harness.xid.signIn()
    await expectXidError(.insecureURL) {
      try await harness.xid.send(HTTPRequest(url: URL(string: "http://api.example.com/data")!))
    }
  }

  @Test func aReplayedRefreshTokenEndsTheSessionWithSessionExpired() async throws {
    let harness = try SessionHarness()
    try await harness.xid.signIn()
    let stale = harness.recordKey
    let staleRecord = try #require(try harness.storage.load(key: stale))
    harness.provider.clock.advance(by: .seconds(301))
    _ = try await harness.xid.getAccessToken()
    // A stale copy of the record (say, restored from a backup) replays the rotated refresh token.
    try harness.storage.save(key: stale, value: staleRecord)
    let other = try SessionHarness(provider: harness.provider, storage: harness.storage)
    let error = await expectXidError(.sessionExpired) { try await other.xid.getAccessToken(forceRefresh: true) }
    #expect(error?.reason.contains("sign the user in again") == true)
    #expect(try harness.storedRecord() == nil)
  }

  @Test func aNetworkFailureDuringRefreshKeepsTheSession() async throws {
    let harness = try SessionHarness()
    try await harness.xid.signIn()
    harness.provider.clock.advance(by: .seconds(301))
    await harness.provider.injectFault(.failConnection, at: .token, times: 1)
    await expectXidError(.networkFailure) { try await harness.xid.getAccessToken() }
    #expect(try await harness.xid.getSession() != nil)
    _ = try await harness.xid.getAccessToken()
    #expect(await harness.provider.counters.refreshes == 1)
  }

  @Test func aServerErrorDuringRefreshKeepsTheSession() async throws {
    let harness = try SessionHarness()
    try await harness.xid.signIn()
    harness.provider.clock.advance(by: .seconds(301))
    await harness.provider.injectFault(.oauthError("temporarily_unavailable", status: 503), at: .token, times: 1)
    await expectXidError(.tokenRequestFailed) { try await harness.xid.getAccessToken() }
    #expect(try await harness.xid.getSession() != nil)
  }

  @Test func aResponseLostAfterTheProviderRotatedEndsCleanlyWithSessionExpired() async throws {
    let harness = try SessionHarness()
    try await harness.xid.signIn()
    let before = try #require(try harness.storedRecord())
    harness.provider.clock.advance(by: .seconds(301))
    await harness.provider.injectFault(.dropResponse, at: .token, times: 1)
    await expectXidError(.networkFailure) { try await harness.xid.getAccessToken() }
    // The record is untouched: the old refresh token, whole.
    #expect(try harness.storedRecord() == before)
    // The provider rotated and sees the old token again: reuse detection revokes the grant.
    await expectXidError(.sessionExpired) { try await harness.xid.getAccessToken() }
    #expect(try harness.storedRecord() == nil)
  }

  @Test func aRefreshedIDTokenOfAnotherUserIsRefusedAndEndsTheSession() async throws {
    let harness = try SessionHarness()
    try await harness.xid.signIn()
    try await harness.provider.misbehave(.otherSubjectOnRefresh, .once)
    await expectXidError(.foreignTokenResponse) { try await harness.xid.getAccessToken(forceRefresh: true) }
    #expect(try await harness.xid.getSession() == nil)
  }

  @Test func theDeviceGrantSignsIn() async throws {
    let harness = try SessionHarness()
    let provider = harness.provider
    let session = try await harness.xid.signInWithDeviceCode { authorization in
      await provider.completeDeviceAuthorization(userCode: authorization.userCode)
    }
    #expect(session.subject == TestUser.alice.subject)
    #expect(try await harness.xid.getAccessToken().isEmpty == false)
  }

  @Test func signOutCallsEndSessionWhenAsked() async throws {
    let harness = try SessionHarness()
    try await harness.xid.signIn()
    try await harness.xid.signOut(callEndSession: true)
    let calls = await harness.provider.endSessionCalls
    #expect(calls.count == 1)
    #expect(calls.first?.hintedSubject == TestUser.alice.subject)
    #expect(try harness.storedRecord() == nil)
  }

  @Test func signOutNeverWaitsForTheNetworkToForgetTheUser() async throws {
    let harness = try SessionHarness()
    try await harness.xid.signIn()
    await harness.provider.injectFault(.failConnection, at: .revocation, times: 1)
    await harness.provider.injectFault(.failConnection, at: .discovery, times: 5)
    try await harness.xid.signOut()
    #expect(try harness.storedRecord() == nil)
    #expect(try await harness.xid.getSession() == nil)
  }

  @Test func aCorruptRecordMeansSignedOutAndIsRemoved() async throws {
    let harness = try SessionHarness()
    try await harness.xid.signIn()
    let key = harness.recordKey
    try harness.storage.save(key: key, value: "{\"format\":1,\"version\":")
    let fresh = try SessionHarness(provider: harness.provider, storage: harness.storage)
    #expect(try await fresh.xid.getSession() == nil)
    #expect(try harness.storage.load(key: key) == nil)
    #expect(fresh.logger.messages.contains { $0.contains("removed an unreadable token record") })
  }
}
