import Foundation
import Testing
import XidTestSupport

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

struct RevocationAndLogoutTests {
  @Test func revocationPostsTheTokenWithItsHintAndClientID() async throws {
    let provider = try FakeProvider()
    try await provider.client().revoke("refresh-token-1", hint: .refreshToken)
    let request = try #require(provider.transport.requests(to: "/revoke").first)
    #expect(request.method == "POST")
    #expect(
      request.form == [
        "token": "refresh-token-1", "token_type_hint": "refresh_token", "client_id": FakeProvider.clientId,
      ])
  }

  @Test func revocationAuthenticatesConfidentialClientsLikeTokenRequests() async throws {
    let provider = try FakeProvider()
    try await provider.client { $0.identity.clientAuthentication = .clientSecretPost(secret: "s") }.revoke("at")
    let request = try #require(provider.transport.requests(to: "/revoke").first)
    #expect(request.form == ["token": "at", "client_id": FakeProvider.clientId, "client_secret": "s"])
  }

  @Test func revocationErrorIsTyped() async throws {
    let provider = try FakeProvider()
    provider.on("/revoke") { _ in .json(["error": "unsupported_token_type"], status: 400) }
    let error = await expectXidError(.revocationFailed) {
      try await provider.client().revoke("at", hint: .accessToken)
    }
    #expect(error?.oauthError == "unsupported_token_type")
    #expect(error?.httpStatus == 400)
  }

  @Test func revocationWithoutEndpointIsReported() async throws {
    let provider = try FakeProvider()
    provider.metadataChanges.update { $0["revocation_endpoint"] = .null }
    await expectXidError(.unsupportedByProvider) { try await provider.client().revoke("at") }
  }

  @Test func endSessionURLCarriesHintRedirectStateAndClientID() async throws {
    let provider = try FakeProvider()
    let client = try provider.client {
      $0.identity.postLogoutRedirectUri = URL(string: "com.example.app:/logged-out")!
    }
    let (redirect, pending) = try await provider.authorize(client)
    let idToken = try await client.handleRedirect(url: redirect, pending: [pending]).idToken
    let url = try await client.endSessionURL(idTokenHint: idToken, state: "s-1")
    #expect(url.absoluteString.hasPrefix("https://op.example/logout?"))
    #expect(
      url.query == [
        "id_token_hint": idToken.compact, "client_id": FakeProvider.clientId,
        "post_logout_redirect_uri": "com.example.app:/logged-out", "state": "s-1",
      ])
  }

  @Test func endSessionWithoutEndpointIsReported() async throws {
    let provider = try FakeProvider()
    provider.metadataChanges.update { $0["end_session_endpoint"] = .null }
    await expectXidError(.unsupportedByProvider) { try await provider.client().endSessionURL(idTokenHint: nil) }
  }
}
