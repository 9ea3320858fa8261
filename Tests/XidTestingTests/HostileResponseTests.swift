import Foundation
import Testing
import XidCore
import XidTesting

/// Hostile modes that change responses other than ID tokens.
struct HostileResponseTests {
  func callback(after misbehavior: TestProvider.Misbehavior) async throws -> [String: String] {
    let harness = try Harness()
    try await harness.provider.misbehave(misbehavior, .once)
    return try await harness.authorize(harness.authorizationParameters(pkce: try Harness.PKCE()))
  }

  @Test func missingState() async throws {
    let callback = try await callback(after: .missingState)
    #expect(callback["code"] != nil)
    #expect(callback["state"] == nil)
  }

  @Test func wrongState() async throws {
    let callback = try await callback(after: .wrongState)
    #expect(callback["code"] != nil)
    #expect(callback["state"] != nil)
    #expect(callback["state"] != "state-1")
  }

  @Test func wrongIssuerInTheRedirect() async throws {
    let callback = try await callback(after: .wrongIssuerInRedirect)
    #expect(callback["iss"] == "https://attacker.xid.test")
  }

  @Test func missingIssuerInTheRedirect() async throws {
    let callback = try await callback(after: .missingIssuerInRedirect)
    #expect(callback["code"] != nil)
    #expect(callback["iss"] == nil)
  }

  @Test func anErrorFromTheAuthorizationEndpoint() async throws {
    let callback = try await callback(after: .authorizationError("temporarily_unavailable", description: "maintenance"))
    #expect(callback["error"] == "temporarily_unavailable")
    #expect(callback["error_description"] == "maintenance")
    #expect(callback["state"] == "state-1")
    #expect(callback["code"] == nil)
  }

  @Test func userInfoWithAnotherSubject() async throws {
    let harness = try Harness()
    let tokens = try await harness.signIn()
    try await harness.provider.misbehave(.otherSubjectInUserInfo, .once)
    #expect(try Harness.json(try await harness.get(.userInfo, bearer: tokens.accessToken))["sub"] == "mallory")
    #expect(try Harness.json(try await harness.get(.userInfo, bearer: tokens.accessToken))["sub"] == "alice")
  }

  @Test func discoveryWithAnotherIssuer() async throws {
    let harness = try Harness()
    try await harness.provider.misbehave(.otherIssuerInDiscovery)
    #expect(try Harness.json(try await harness.get(.discovery))["issuer"] == "https://attacker.xid.test")
    // The endpoints stay the provider's own.
    #expect(try Harness.json(try await harness.get(.discovery))["token_endpoint"] == "https://op.xid.test/token")
  }

  @Test func redirectModesAreNotUsedUpByIDTokens() async throws {
    let harness = try Harness()
    try await harness.provider.misbehave(.missingState, .once)
    _ = try await harness.provider.misbehave(.wrongNonce, .once)
    let pkce = try Harness.PKCE()
    let callback = try await harness.authorize(harness.authorizationParameters(pkce: pkce))
    #expect(callback["state"] == nil)
    let tokens = try Harness.Tokens(
      await harness.exchange(code: try #require(callback["code"]), verifier: pkce.verifier))
    #expect(try await harness.verify(try #require(tokens.idToken)).nonce != "nonce-1")
    #expect(try await harness.authorize(harness.authorizationParameters(pkce: pkce))["state"] == "state-1")
  }
}
