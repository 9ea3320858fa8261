import Foundation
import Testing
import XidTestSupport

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

struct RefreshTests {
  /// A client signed in with `provider`, and its ID token.
  static func signedIn(_ provider: FakeProvider) async throws -> (OpenIDClient, IDToken) {
    let client = try provider.client()
    let (redirect, pending) = try await provider.authorize(client)
    return (client, try await client.handleRedirect(url: redirect, pending: [pending]).idToken)
  }

  static func refreshResponse(_ provider: FakeProvider, idTokenChanges: [String: JSONValue]?) throws -> HTTPResponse {
    var body: [String: JSONValue] = ["access_token": "access-token-2", "token_type": "bearer", "expires_in": 600]
    if let idTokenChanges {
      body["id_token"] = .string(try provider.idToken(nonce: nil, accessToken: "access-token-2", idTokenChanges))
    }
    return .json(.object(body))
  }

  @Test func refreshSendsTheRefreshTokenAndClientID() async throws {
    let provider = try FakeProvider()
    let (client, original) = try await Self.signedIn(provider)
    provider.on("/token") { provider, _ in try Self.refreshResponse(provider, idTokenChanges: nil) }
    let result = try await client.refresh(
      refreshToken: "refresh-token-1", originalIDToken: original, scopes: ["openid"])
    let request = try #require(provider.transport.requests(to: "/token").last)
    #expect(
      request.form == [
        "grant_type": "refresh_token", "refresh_token": "refresh-token-1", "scope": "openid",
        "client_id": FakeProvider.clientId,
      ])
    #expect(result.tokens.accessToken == "access-token-2")
    #expect(result.tokens.refreshToken == nil)
    #expect(result.idToken == nil)
  }

  @Test func refreshedIDTokenForTheSameUserIsAccepted() async throws {
    let provider = try FakeProvider()
    let (client, original) = try await Self.signedIn(provider)
    provider.clock.advance(by: .seconds(1800))
    let authTime = try #require(original.claims["auth_time"])
    provider.on("/token") { provider, _ in try Self.refreshResponse(provider, idTokenChanges: ["auth_time": authTime]) }
    let result = try await client.refresh(refreshToken: "refresh-token-1", originalIDToken: original)
    #expect(result.idToken?.subject == "alice")
    #expect(result.idToken?.claims.nonce == nil)
  }

  @Test func refreshedIDTokenWithAnotherSubjectIsRefused() async throws {
    let provider = try FakeProvider()
    let (client, original) = try await Self.signedIn(provider)
    provider.on("/token") { provider, _ in try Self.refreshResponse(provider, idTokenChanges: ["sub": "mallory"]) }
    await expectXidError(.invalidIDToken) {
      try await client.refresh(refreshToken: "refresh-token-1", originalIDToken: original)
    }
  }

  @Test func refreshedIDTokenWithAnotherIssuerIsRefused() async throws {
    let provider = try FakeProvider()
    let (client, original) = try await Self.signedIn(provider)
    provider.on("/token") { provider, _ in
      try Self.refreshResponse(provider, idTokenChanges: ["iss": "https://other.example"])
    }
    await expectXidError(.invalidIDToken) {
      try await client.refresh(refreshToken: "refresh-token-1", originalIDToken: original)
    }
  }

  @Test func refreshedIDTokenWithAForeignNonceIsRefused() async throws {
    let provider = try FakeProvider()
    let (client, original) = try await Self.signedIn(provider)
    provider.on("/token") { provider, _ in
      try Self.refreshResponse(provider, idTokenChanges: ["nonce": "not-the-original"])
    }
    await expectXidError(.invalidIDToken) {
      try await client.refresh(refreshToken: "refresh-token-1", originalIDToken: original)
    }
  }

  @Test func onlyAnOAuthInvalidGrantIsADeadRefreshToken() async throws {
    let provider = try FakeProvider()
    let (client, original) = try await Self.signedIn(provider)
    provider.on("/token") { _ in .json(["error": "invalid_grant"], status: 400) }
    let dead = await expectXidError(.tokenRequestFailed) {
      try await client.refresh(refreshToken: "refresh-token-1", originalIDToken: original)
    }
    #expect(dead?.isInvalidGrant == true)
    #expect(dead?.isTransient == false)
    let html: HTTPHeaders = ["Content-Type": "text/html"]
    let responses: [HTTPResponse] = [
      HTTPResponse(status: 400), HTTPResponse(status: 401),
      HTTPResponse(status: 403, headers: html, body: Data("<html><body>Forbidden</body></html>".utf8)),
      HTTPResponse(status: 400, headers: html, body: Data("<html><body>Bad request</body></html>".utf8)),
      .json(["error": "invalid_code"], status: 403), .json(["error": "bad_verification_code"]),
    ]
    for response in responses {
      provider.on("/token") { _ in response }
      let error = await expectXidError(.tokenRequestFailed) {
        try await client.refresh(refreshToken: "refresh-token-1", originalIDToken: original)
      }
      #expect(error?.isInvalidGrant == false, "\(response.status)")
    }
  }

  @Test func anEmpty400OnRefreshNamesTheQuirkOptionAndIsADeadGrantOnlyWithIt() async throws {
    let provider = try FakeProvider()
    let (client, original) = try await Self.signedIn(provider)
    provider.on("/token") { _ in HTTPResponse(status: 400) }
    let kept = await expectXidError(.tokenRequestFailed) {
      try await client.refresh(refreshToken: "refresh-token-1", originalIDToken: original)
    }
    #expect(kept?.isInvalidGrant == false)
    #expect(kept?.reason.contains("empty body") == true)
    #expect(kept?.reason.contains("emptyBadRequestIsInvalidGrant") == true)

    let quirky = try provider.client { $0.policy.providerQuirks = [.emptyBadRequestIsInvalidGrant] }
    let dead = await expectXidError(.refreshRefused) {
      try await quirky.refresh(refreshToken: "refresh-token-1", originalIDToken: original)
    }
    #expect(dead?.isInvalidGrant == true)
    #expect(dead?.httpStatus == 400)
    #expect(dead?.oauthError == nil)
    #expect(dead?.reason.contains("emptyBadRequestIsInvalidGrant") == true)
    // Only an empty 400, and only on refresh: an HTML 400 stays a provider failure.
    provider.on("/token") { _ in
      HTTPResponse(status: 400, headers: ["Content-Type": "text/html"], body: Data("<p>proxy</p>".utf8))
    }
    let page = await expectXidError(.tokenRequestFailed) {
      try await quirky.refresh(refreshToken: "refresh-token-1", originalIDToken: original)
    }
    #expect(page?.isInvalidGrant == false)
  }

  @Test func serverTroubleOnRefreshIsTransient() async throws {
    let provider = try FakeProvider()
    let (client, original) = try await Self.signedIn(provider)
    for response in [HTTPResponse(status: 502), HTTPResponse(status: 503), HTTPResponse(status: 429)] {
      provider.on("/token") { _ in response }
      let error = await expectXidError(.tokenRequestFailed) {
        try await client.refresh(refreshToken: "refresh-token-1", originalIDToken: original)
      }
      #expect(error?.isInvalidGrant == false)
      #expect(error?.isTransient == true)
    }
  }

  @Test func refreshTokenEchoedInAnErrorIsRedacted() async throws {
    let provider = try FakeProvider()
    let (client, original) = try await Self.signedIn(provider)
    provider.on("/token") { _ in
      .json(["error": "invalid_grant", "error_description": "token refresh-token-1 revoked"], status: 400)
    }
    let error = await expectXidError(.tokenRequestFailed) {
      try await client.refresh(refreshToken: "refresh-token-1", originalIDToken: original)
    }
    #expect(error?.reason.contains("refresh-token-1") == false)
    #expect("\(error.map { "\($0)" } ?? "")".contains("refresh-token-1") == false)
  }
}
