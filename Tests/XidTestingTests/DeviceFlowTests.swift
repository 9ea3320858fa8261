import Foundation
import Testing
import XidCore
import XidTesting

struct DeviceFlowTests {
  struct Started {
    let deviceCode: String
    let userCode: String
    let completeURI: URL
    let json: JSONValue
  }

  func start(_ harness: Harness, scope: String = "openid profile") async throws -> Started {
    let response = try await harness.post(.deviceAuthorization, [("client_id", "xid-example"), ("scope", scope)])
    #expect(response.status == 200)
    let json = try Harness.json(response)
    return Started(
      deviceCode: try #require(json["device_code"]?.stringValue),
      userCode: try #require(json["user_code"]?.stringValue),
      completeURI: try #require(json["verification_uri_complete"]?.stringValue.flatMap(URL.init(string:))), json: json)
  }

  func poll(_ harness: Harness, _ deviceCode: String) async throws -> HTTPResponse {
    try await harness.post(
      .token,
      [
        ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"), ("device_code", deviceCode),
        ("client_id", "xid-example"),
      ])
  }

  @Test func deviceAuthorizationReturnsCodesAndWhereToGo() async throws {
    let harness = try Harness()
    let started = try await start(harness)
    #expect(started.json["verification_uri"]?.stringValue == "https://op.xid.test/device")
    #expect(started.completeURI.absoluteString == "https://op.xid.test/device?user_code=\(started.userCode)")
    #expect(started.json["interval"] == 5)
    #expect(started.json["expires_in"] == 600)
    #expect(started.userCode.count == 9)
    #expect(started.userCode.dropFirst(4).first == "-")
  }

  @Test func pollingIsPendingThenSlowDownWhenTooFastThenTokensOnce() async throws {
    let harness = try Harness()
    let started = try await start(harness)

    #expect(Harness.oauthError(try await poll(harness, started.deviceCode)) == "authorization_pending")
    harness.clock.advance(by: .seconds(2))
    #expect(Harness.oauthError(try await poll(harness, started.deviceCode)) == "slow_down")
    // The interval is now 10 seconds: 6 is still too fast, 10 is not.
    harness.clock.advance(by: .seconds(6))
    #expect(Harness.oauthError(try await poll(harness, started.deviceCode)) == "slow_down")
    harness.clock.advance(by: .seconds(15))
    #expect(Harness.oauthError(try await poll(harness, started.deviceCode)) == "authorization_pending")

    let page = try await harness.provider.browser.load(started.completeURI)
    #expect(page.status == 200)
    #expect(try Harness.json(page)["result"] == "approved")
    harness.clock.advance(by: .seconds(15))
    let tokens = try Harness.Tokens(await poll(harness, started.deviceCode))
    #expect(try await harness.verify(try #require(tokens.idToken)).subject == "alice")
    #expect(Harness.oauthError(try await poll(harness, started.deviceCode)) == "invalid_grant")
    #expect(await harness.provider.counters.deviceCodePolls == 6)
  }

  @Test func aDenyingUserMakesThePollAccessDenied() async throws {
    let harness = try Harness(user: TestUser(subject: "bob", behavior: .deny))
    let started = try await start(harness)
    #expect(try Harness.json(try await harness.provider.browser.load(started.completeURI))["result"] == "denied")
    #expect(Harness.oauthError(try await poll(harness, started.deviceCode)) == "access_denied")
  }

  @Test func theTestCanDecideDirectly() async throws {
    let harness = try Harness()
    let approved = try await start(harness)
    #expect(await harness.provider.completeDeviceAuthorization(userCode: approved.userCode.lowercased()))
    _ = try Harness.Tokens(await poll(harness, approved.deviceCode))
    let denied = try await start(harness)
    #expect(await harness.provider.completeDeviceAuthorization(userCode: denied.userCode, approved: false))
    #expect(Harness.oauthError(try await poll(harness, denied.deviceCode)) == "access_denied")
    #expect(await harness.provider.completeDeviceAuthorization(userCode: "NOPE-NOPE") == false)
  }

  @Test func anUnusedDeviceCodeExpires() async throws {
    let harness = try Harness()
    let started = try await start(harness)
    harness.clock.advance(by: .seconds(600))
    #expect(Harness.oauthError(try await poll(harness, started.deviceCode)) == "expired_token")
    #expect(try await harness.provider.browser.load(started.completeURI).status == 400)
  }
}
