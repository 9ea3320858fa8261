import Foundation
import Testing
import XidCore
import XidTesting

struct EndSessionTests {
  @Test func endSessionRecordsTheCallAndRedirectsWithState() async throws {
    let harness = try Harness()
    let idToken = try #require(try await harness.signIn().idToken)
    let url = harness.provider.url(for: .endSession).appendingQuery([
      ("id_token_hint", idToken), ("post_logout_redirect_uri", "com.example.app:/signed-out"), ("state", "bye"),
    ])
    let target = try await harness.provider.browser.redirect(from: url)
    #expect(target.absoluteString == "com.example.app:/signed-out?state=bye")

    let calls = await harness.provider.endSessionCalls
    #expect(calls.count == 1)
    #expect(calls.first?.idTokenHint == idToken)
    #expect(calls.first?.hintedSubject == "alice")
    #expect(calls.first?.state == "bye")
    #expect(calls.first.map { String(describing: $0).contains(idToken) } == false)

    let silent = harness.authorizationParameters(pkce: try Harness.PKCE(), overrides: ["prompt": "none"])
    #expect(try await harness.authorize(silent)["error"] == "login_required")
  }

  @Test func anUnregisteredPostLogoutRedirectIsRefused() async throws {
    let harness = try Harness()
    let url = harness.provider.url(for: .endSession).appendingQuery([
      ("client_id", "xid-example"), ("post_logout_redirect_uri", "https://attacker.test/"),
    ])
    let response = try await harness.provider.browser.load(url)
    #expect(response.status == 400)
    #expect(await harness.provider.endSessionCalls.count == 1)
  }

  @Test func aForeignIDTokenHintIsRefused() async throws {
    let harness = try Harness()
    let stranger = try JWSSigningKey.generate(for: .es256)
    let forged = try stranger.sign(claims: ["iss": "https://op.xid.test", "sub": "alice", "aud": "xid-example"])
    let url = harness.provider.url(for: .endSession).appendingQuery([("id_token_hint", forged)])
    #expect(try await harness.provider.browser.load(url).status == 400)
  }

  @Test func withoutARedirectTheProviderShowsASignedOutPage() async throws {
    let harness = try Harness()
    let response = try await harness.provider.browser.load(harness.provider.url(for: .endSession))
    #expect(response.status == 200)
  }
}
