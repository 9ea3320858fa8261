import Foundation
import Testing
import Xid
import XidTestSupport
import XidTesting

/// Resource indicators (RFC 8707): each configured resource gets its own access token from the
/// session's one refresh token, refreshed on its own under the account's lock, and a request to one
/// of its URLs carries it. A rotated refresh token serves them all, and a resource the provider
/// refuses (`invalid_target`) leaves the session as it was.
@Suite(.noSecretLeaks)
struct ResourceTokenTests {
  /// A harness whose configuration names the provider's protected resource (and `extra`), which
  /// the provider knows.
  static func harness(
    extra: [ProtectedResource] = [], storage: any TokenStorageAdapter = InMemoryTokenStorage()
  ) async throws -> (SessionHarness, ProtectedResource, RequestLog) {
    let provider = try TestProvider()
    let resource = ProtectedResource(provider.url(for: .resource))
    await provider.updateConfiguration {
      $0.resources = [resource.parameter] + extra.map(\.parameter)
    }
    let log = RequestLog(provider.transport)
    let logger = RecordingLogger()
    var configuration = SessionHarness.configuration(provider, logger: logger, transport: log)
    configuration.identity.resources = [resource] + extra
    let harness = try SessionHarness(provider: provider, storage: storage, logger: logger, configuration: configuration)
    return (harness, resource, log)
  }

  /// What the provider's resource says of a request: the token's audiences, `nil` for none.
  static func audiences(of response: HTTPResponse) throws -> [String]? {
    #expect(response.status == 200)
    return try JSONValue(parsing: response.body)["aud"]?.arrayValue?.compactMap(\.stringValue)
  }

  @Test func aResourceGetsItsOwnTokenFromTheSessionsRefreshToken() async throws {
    let (harness, resource, log) = try await Self.harness()
    try await harness.xid.signIn()
    let own = try await harness.xid.getAccessToken()
    await harness.provider.resetCounters()

    let token = try await harness.xid.getAccessToken(for: resource.identifier)
    #expect(token != own)
    #expect(await harness.provider.counters.refreshes == 1)
    #expect(log.values("resource", at: "/token").last == [resource.parameter])
    // Kept: a second call sends nothing, and the session's own token is the same.
    #expect(try await harness.xid.getAccessToken(for: resource.identifier) == token)
    #expect(try await harness.xid.getAccessToken() == own)
    #expect(await harness.provider.counters.refreshes == 1)
    #expect(try await harness.xid.getSession()?.resourceGrants.keys.sorted() == [resource.parameter])
    let stored = try #require(try harness.storedRecord())
    #expect(stored["format"] == .int(2))
    #expect(stored["resources"]?[resource.parameter]?["access_token"] == .string(token))
  }

  @Test func theSignInAsksForEveryConfiguredResource() async throws {
    let extra = ProtectedResource(URL(string: "https://payments.example.com/")!)
    let (harness, resource, _) = try await Self.harness(extra: [extra])
    let url = try await harness.xid.authorizationURL(options: SignInOptions(usePushedAuthorization: false))
    #expect(url.queryParameters.filter { $0.0 == "resource" }.map(\.1) == [resource.parameter, extra.parameter])
  }

  @Test func aRequestToAResourcesURLCarriesItsTokenAndOthersTheSessionsOwn() async throws {
    let (harness, resource, _) = try await Self.harness()
    try await harness.xid.signIn()
    let mapped = try await harness.xid.sendReportingGrant(HTTPRequest(url: harness.provider.url(for: .resource)))
    #expect(try Self.audiences(of: mapped.response) == [resource.parameter])
    #expect(mapped.resource == resource.identifier)

    #expect(mapped.authorizationDetails == nil)
  }

  @Test func aRequestOutsideEveryResourcesURLsCarriesTheSessionsOwnToken() async throws {
    let provider = try TestProvider()
    let elsewhere = ProtectedResource(
      URL(string: provider.url(for: .resource).absoluteString + "x")!,
      urlPrefixes: [URL(string: provider.url(for: .resource).absoluteString + "x")!])
    await provider.updateConfiguration { $0.resources = [elsewhere.parameter] }
    let logger = RecordingLogger()
    var configuration = SessionHarness.configuration(provider, logger: logger)
    configuration.identity.resources = [elsewhere]
    let harness = try SessionHarness(
      provider: provider, storage: InMemoryTokenStorage(), logger: logger, configuration: configuration)
    try await harness.xid.signIn()
    let answer = try await harness.xid.sendReportingGrant(HTTPRequest(url: provider.url(for: .resource)))
    #expect(try Self.audiences(of: answer.response) == nil)
    #expect(answer.resource == nil)
    #expect(await provider.counters.refreshes == 0)
  }

  @Test func aRotatedRefreshTokenServesTheSessionAndEveryResource() async throws {
    let (harness, resource, _) = try await Self.harness()
    try await harness.xid.signIn()
    _ = try await harness.xid.getAccessToken(for: resource.identifier)
    // The provider rotated the refresh token; the session's own refresh sends the new one (reuse
    // of the old one would revoke the whole grant).
    _ = try await harness.xid.getAccessToken(forceRefresh: true)
    _ = try await harness.xid.getAccessToken(for: resource.identifier, forceRefresh: true)
    #expect(await harness.provider.revokedTokens.isEmpty)
    #expect(try await harness.xid.send(HTTPRequest(url: harness.provider.url(for: .resource))).status == 200)
  }

  @Test func eachTokenIsRefreshedOnItsOwnAndConcurrentCallersShareTheLock() async throws {
    let (harness, resource, _) = try await Self.harness()
    try await harness.xid.signIn()
    let token = try await harness.xid.getAccessToken(for: resource.identifier)
    harness.provider.clock.advance(by: .seconds(600))
    await harness.provider.resetCounters()

    async let own = harness.xid.getAccessToken()
    async let forResource = harness.xid.getAccessToken(for: resource.identifier)
    let (a, b) = try await (own, forResource)
    #expect(a != b)
    #expect(b != token)
    #expect(await harness.provider.counters.refreshes == 2)
    #expect(await harness.provider.revokedTokens.isEmpty, "no refresh token was sent twice")
  }

  @Test func aResourceTheProviderRefusesIsATypedErrorThatKeepsTheSession() async throws {
    let unknown = ProtectedResource(URL(string: "https://unknown.example.com/api")!)
    let provider = try TestProvider()
    let known = ProtectedResource(provider.url(for: .resource))
    await provider.updateConfiguration { $0.resources = [known.parameter, unknown.parameter] }
    let storage = InMemoryTokenStorage()
    // Signed in by a version of the app that did not name the second resource.
    let logger = RecordingLogger()
    var before = SessionHarness.configuration(provider, logger: logger)
    before.identity.resources = [known]
    let first = try SessionHarness(provider: provider, storage: storage, logger: logger, configuration: before)
    let session = try await first.xid.signIn()
    var after = before
    after.identity.resources = [known, unknown]
    let harness = try SessionHarness(provider: provider, storage: storage, logger: logger, configuration: after)

    let stored = try harness.storage.load(key: harness.recordKey)
    let error = await expectXidError(.invalidTarget) { try await harness.xid.getAccessToken(for: unknown.identifier) }
    #expect(error?.oauthError == "invalid_target")
    #expect(error?.reason.contains(unknown.parameter) == true)
    #expect(try harness.storage.load(key: harness.recordKey) == stored, "the stored session is as it was")
    #expect(try await harness.xid.getSession()?.subject == session.subject)
    #expect(try await harness.xid.getAccessToken(for: known.identifier).isEmpty == false)
  }

  @Test func aResourceThatIsNotConfiguredIsRefusedBeforeAnythingIsSent() async throws {
    let (harness, _, _) = try await Self.harness()
    try await harness.xid.signIn()
    await harness.provider.resetCounters()
    let error = await expectXidError(.invalidConfiguration) {
      try await harness.xid.getAccessToken(for: URL(string: "https://elsewhere.example/")!)
    }
    #expect(error?.reason.contains("XidConfiguration.identity.resources") == true)
    #expect(await harness.provider.counters.tokenRequests == 0)
  }

  @Test func aSignOutEndsTheResourcesTokensToo() async throws {
    let (harness, resource, _) = try await Self.harness()
    try await harness.xid.signIn()
    _ = try await harness.xid.getAccessToken(for: resource.identifier)
    try await harness.xid.signOut()
    await expectXidError(.signInRequired) { try await harness.xid.getAccessToken(for: resource.identifier) }
  }
}
