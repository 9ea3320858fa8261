import Foundation
import Testing
import XidTestSupport

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

struct DeviceFlowTests {
  static func deviceResponse(expiresIn: Int64 = 600, interval: Int64? = nil) -> HTTPResponse {
    var body: [String: JSONValue] = [
      "device_code": "device-code-1", "user_code": "WDJB-MJHT", "verification_uri": "https://op.example/activate",
      "verification_uri_complete": "https://op.example/activate?user_code=WDJB-MJHT", "expires_in": .int(expiresIn),
    ]
    if let interval { body["interval"] = .int(interval) }
    return .json(.object(body))
  }

  /// A provider whose token endpoint answers the device grant with `script` in turn, then with the last.
  static func provider(script: [HTTPResponse], expiresIn: Int64 = 600, interval: Int64? = nil) throws -> FakeProvider {
    let provider = try FakeProvider()
    provider.on("/device") { _ in Self.deviceResponse(expiresIn: expiresIn, interval: interval) }
    let remaining = LockedValue(script)
    provider.on("/token") { _ in
      remaining.update { $0.count > 1 ? $0.removeFirst() : $0[0] }
    }
    return provider
  }

  // Computed, not stored: a `Data` (the body) kept in a global is reported by LeakSanitizer at exit,
  // which cannot see the pointer `Data` keeps in its enum's spare bits (docs/reliability.md, "Sanitizers").
  static var pending: HTTPResponse { .json(["error": "authorization_pending"], status: 400) }
  static var slowDown: HTTPResponse { .json(["error": "slow_down"], status: 400) }

  @Test func startRequestsCodesWithClientIDAndScope() async throws {
    let provider = try Self.provider(script: [Self.pending])
    let authorization = try await provider.client().startDeviceAuthorization()
    #expect(authorization.userCode == "WDJB-MJHT")
    #expect(authorization.verificationURI.absoluteString == "https://op.example/activate")
    #expect(authorization.verificationURIComplete?.absoluteString == "https://op.example/activate?user_code=WDJB-MJHT")
    #expect(authorization.interval == .seconds(5))
    #expect(authorization.expiresAt == provider.clock.now.addingTimeInterval(600))
    let request = try #require(provider.transport.requests(to: "/device").first)
    #expect(request.form == ["scope": "openid profile", "client_id": FakeProvider.clientId])
    #expect(!"\(authorization)".contains("device-code-1"))
    #expect(!"\(authorization)".contains("WDJB-MJHT"))
  }

  @Test func pollingWaitsThroughPendingAndSlowDownThenSucceeds() async throws {
    let provider = try FakeProvider()
    let success = try provider.tokenResponse(idToken: true, nonce: nil)
    provider.on("/device") { _ in Self.deviceResponse() }
    let remaining = LockedValue([Self.pending, Self.slowDown, Self.pending, success])
    provider.on("/token") { _ in remaining.update { $0.removeFirst() } }
    let client = try provider.client()
    let authorization = try await client.startDeviceAuthorization()
    let start = provider.clock.now
    let result = try await client.pollDeviceAuthorization(authorization)
    #expect(result.tokens.accessToken == "access-token-1")
    #expect(result.idToken?.subject == "alice")
    #expect(provider.clock.sleeps == [.seconds(5), .seconds(5), .seconds(10), .seconds(10)])
    #expect(provider.clock.now == start.addingTimeInterval(30))
    let polls = provider.transport.requests(to: "/token")
    #expect(polls.count == 4)
    #expect(
      polls[0].form == [
        "grant_type": "urn:ietf:params:oauth:grant-type:device_code", "device_code": "device-code-1",
        "client_id": FakeProvider.clientId,
      ])
  }

  @Test func pollingUsesTheProvidersInterval() async throws {
    let provider = try FakeProvider()
    let success = try provider.tokenResponse(idToken: false)
    provider.on("/device") { _ in Self.deviceResponse(interval: 8) }
    let remaining = LockedValue([Self.pending, success])
    provider.on("/token") { _ in remaining.update { $0.removeFirst() } }
    let client = try provider.client()
    let result = try await client.pollDeviceAuthorization(try await client.startDeviceAuthorization())
    #expect(provider.clock.sleeps == [.seconds(8), .seconds(8)])
    #expect(result.idToken == nil)
  }

  @Test func expiredTokenEndsPollingWithATypedError() async throws {
    let provider = try Self.provider(script: [Self.pending, .json(["error": "expired_token"], status: 400)])
    let client = try provider.client()
    let authorization = try await client.startDeviceAuthorization()
    let error = await expectXidError(.deviceCodeExpired) { try await client.pollDeviceAuthorization(authorization) }
    #expect(error?.oauthError == "expired_token")
    #expect(provider.transport.requests(to: "/token").count == 2)
  }

  @Test func accessDeniedEndsPollingWithATypedError() async throws {
    let provider = try Self.provider(script: [Self.pending, .json(["error": "access_denied"], status: 400)])
    let client = try provider.client()
    let authorization = try await client.startDeviceAuthorization()
    await expectXidError(.accessDenied) { try await client.pollDeviceAuthorization(authorization) }
  }

  @Test func pollingStopsWhenExpiresInPasses() async throws {
    let provider = try Self.provider(script: [Self.pending], expiresIn: 30)
    let client = try provider.client()
    let authorization = try await client.startDeviceAuthorization()
    await expectXidError(.deviceCodeExpired) { try await client.pollDeviceAuthorization(authorization) }
    #expect(provider.transport.requests(to: "/token").count == 5)
    #expect(provider.clock.now >= authorization.expiresAt)
  }

  @Test func otherTokenErrorsEndPolling() async throws {
    let provider = try Self.provider(script: [.json(["error": "invalid_client"], status: 401)])
    let client = try provider.client()
    let authorization = try await client.startDeviceAuthorization()
    let error = await expectXidError(.tokenRequestFailed) { try await client.pollDeviceAuthorization(authorization) }
    #expect(error?.oauthError == "invalid_client")
  }

  @Test func serverErrorsBackOffAndPollingContinues() async throws {
    let provider = try FakeProvider()
    let success = try provider.tokenResponse(idToken: false)
    provider.on("/device") { _ in Self.deviceResponse() }
    let remaining = LockedValue([HTTPResponse(status: 503), success])
    provider.on("/token") { _ in remaining.update { $0.removeFirst() } }
    let client = try provider.client()
    _ = try await client.pollDeviceAuthorization(try await client.startDeviceAuthorization())
    #expect(provider.clock.sleeps == [.seconds(5), .seconds(10)])
  }

  @Test func pollingIsCancellable() async throws {
    let provider = try Self.provider(script: [Self.pending])
    let client = try provider.client()
    let authorization = try await client.startDeviceAuthorization()
    let task = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      return try await client.pollDeviceAuthorization(authorization)
    }
    await expectXidError(.cancelled) { try await task.value }
    #expect(provider.transport.requests(to: "/token").isEmpty)
  }

  @Test func pollingWithTheSystemClockStopsPromptlyWhenCancelled() async throws {
    // A 5-minute interval: a cancelled poll that waited it out would take minutes, not seconds.
    let provider = try Self.provider(script: [Self.pending], expiresIn: 3600, interval: 300)
    var configuration = XidConfiguration(
      issuer: URL(string: FakeProvider.issuer)!, clientId: FakeProvider.clientId, redirectUri: FakeProvider.redirectUri)
    configuration.identity.scopes = []
    let client = try OpenIDClient(
      configuration: configuration.using(transport: provider.transport, clock: SystemClock()))
    let authorization = try await client.startDeviceAuthorization()
    let started = ContinuousClock.now
    let task = Task { try await client.pollDeviceAuthorization(authorization) }
    try await Task.sleep(for: .milliseconds(50))
    task.cancel()
    await expectXidError(.cancelled) { try await task.value }
    #expect(ContinuousClock.now - started < .seconds(60))
  }

  @Test func deviceAuthorizationErrorIsTyped() async throws {
    let provider = try FakeProvider()
    provider.on("/device") { _ in .json(["error": "unauthorized_client"], status: 400) }
    let error = await expectXidError(.deviceAuthorizationFailed) {
      try await provider.client().startDeviceAuthorization()
    }
    #expect(error?.oauthError == "unauthorized_client")
  }

  @Test func malformedDeviceResponseIsRefused() async throws {
    let provider = try FakeProvider()
    provider.on("/device") { _ in .json(["device_code": "d", "user_code": "u", "expires_in": 600]) }
    await expectXidError(.deviceAuthorizationFailed) { try await provider.client().startDeviceAuthorization() }
    provider.on("/device") { _ in
      .json(["device_code": "d", "user_code": "u", "verification_uri": "http://op.example/a", "expires_in": 600])
    }
    await expectXidError(.insecureURL) { try await provider.client().startDeviceAuthorization() }
  }

  @Test func deviceAuthorizationSurvivesCodableRoundTrip() async throws {
    let provider = try Self.provider(script: [Self.pending])
    let authorization = try await provider.client().startDeviceAuthorization()
    let decoded = try JSONDecoder().decode(DeviceAuthorization.self, from: try JSONEncoder().encode(authorization))
    #expect(decoded == authorization)
  }
}
