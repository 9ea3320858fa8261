import Foundation
import Testing
import XidTestSupport

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

struct TokenEndpointTests {
  /// Signs in up to the token request, with the token endpoint answering `response`.
  static func exchange(_ provider: FakeProvider, _ response: @escaping FakeProvider.Handler) async throws
    -> AuthenticationResult
  {
    try await exchange(provider) { _, request in try response(request) }
  }

  /// Signs in up to the token request, with the token endpoint answering `response`, which gets the
  /// provider (a handler that captured it would keep it alive after the test).
  static func exchange(_ provider: FakeProvider, _ response: @escaping FakeProvider.ProviderHandler) async throws
    -> AuthenticationResult
  {
    provider.on("/token", response)
    let client = try provider.client()
    let (redirect, pending) = try await provider.authorize(client)
    return try await client.handleRedirect(url: redirect, pending: [pending])
  }

  @Test func codeExchangeSendsCodeVerifierRedirectURIAndClientID() async throws {
    let provider = try FakeProvider()
    let client = try provider.client()
    let (redirect, pending) = try await provider.authorize(client, code: "code-xyz")
    let result = try await client.handleRedirect(url: redirect, pending: [pending])
    let request = try #require(provider.transport.requests(to: "/token").first)
    #expect(request.method == "POST")
    #expect(request.headers["Accept"] == "application/json")
    #expect(request.headers["Content-Type"] == "application/x-www-form-urlencoded")
    #expect(request.headers["Authorization"] == nil)
    #expect(
      request.form == [
        "grant_type": "authorization_code", "code": "code-xyz", "redirect_uri": FakeProvider.redirectUri.absoluteString,
        "code_verifier": pending.codeVerifier, "client_id": FakeProvider.clientId,
      ])
    #expect(result.tokens.accessToken == "access-token-1")
    #expect(result.tokens.refreshToken == "refresh-token-1")
    #expect(result.tokens.tokenType == .bearer)
    #expect(result.tokens.expiresIn == .seconds(3600))
    #expect(result.tokens.expiresAt == provider.clock.now.addingTimeInterval(3600))
    #expect(result.tokens.scope == ["openid", "profile"])
    #expect(result.idToken.subject == "alice")
    #expect(result.idToken.claims.nonce == pending.nonce)
    #expect(result.pending == pending)
  }

  @Test func codeExchangeWithClientSecretBasicUsesTheAuthorizationHeader() async throws {
    let provider = try FakeProvider()
    let client = try provider.client { $0.identity.clientAuthentication = .clientSecretBasic(secret: "secret 1") }
    let (redirect, pending) = try await provider.authorize(client)
    _ = try await client.handleRedirect(url: redirect, pending: [pending])
    let request = try #require(provider.transport.requests(to: "/token").first)
    #expect(request.headers["Authorization"] == "Basic " + Data("client-1:secret%201".utf8).base64EncodedString())
    #expect(request.form["client_id"] == nil)
    #expect(request.form["client_secret"] == nil)
  }

  @Test(arguments: ["Bearer", "bearer", "BEARER", "DPoP", "dpop"])
  func tokenTypeIsComparedCaseInsensitively(type: String) throws {
    let response = try TokenResponse(
      json: ["access_token": "a", "token_type": .string(type)], receivedAt: Date(timeIntervalSince1970: 0))
    #expect(response.tokenType == (type.lowercased() == "bearer" ? .bearer : .dpop))
  }

  /// `response` with its JSON body's `token_type` set to `type`.
  static func withTokenType(_ type: String, _ response: HTTPResponse) throws -> HTTPResponse {
    var body = try #require(try JSONValue(parsing: Array(response.body)).objectValue)
    body["token_type"] = .string(type)
    return .json(.object(body))
  }

  @Test(arguments: ["DPoP", "dpop"])
  func aDPoPBoundTokenIsRefusedWhileDPoPIsNotEnabled(type: String) async throws {
    let provider = try FakeProvider()
    let signIn = await expectXidError(.invalidTokenResponse) {
      try await Self.exchange(provider) { provider, _ in try Self.withTokenType(type, provider.tokenResponse()) }
    }
    #expect(signIn?.reason.contains("DPoP is not enabled for this client") == true, "\(String(describing: signIn))")

    provider.on("/token") { provider, _ in try provider.tokenResponse() }
    let (client, original) = try await RefreshTests.signedIn(provider)
    provider.on("/token") { _ in
      try Self.withTokenType(type, .json(["access_token": "access-token-2", "token_type": "Bearer", "expires_in": 60]))
    }
    let refresh = await expectXidError(.invalidTokenResponse) {
      try await client.refresh(refreshToken: "refresh-token-1", originalIDToken: original, scopes: nil)
    }
    #expect(refresh?.reason.contains("DPoP is not enabled for this client") == true)
    #expect(refresh?.reason.contains("access-token-2") == false)
  }

  @Test(arguments: ["mac", "N_A", ""])
  func unknownTokenTypeIsRefused(type: String) {
    expectXidError(.invalidTokenResponse) {
      try TokenResponse(json: ["access_token": "a", "token_type": .string(type)], receivedAt: Date())
    }
  }

  @Test func missingAccessTokenOrTokenTypeIsRefused() {
    expectXidError(.invalidTokenResponse) { try TokenResponse(json: ["token_type": "Bearer"], receivedAt: Date()) }
    expectXidError(.invalidTokenResponse) { try TokenResponse(json: ["access_token": "a"], receivedAt: Date()) }
  }

  @Test func expiresInIsOptionalAndMayBeAString() throws {
    let none = try TokenResponse(json: ["access_token": "a", "token_type": "Bearer"], receivedAt: Date())
    #expect(none.expiresIn == nil)
    #expect(none.expiresAt == nil)
    let text = try TokenResponse(
      json: ["access_token": "a", "token_type": "Bearer", "expires_in": "120"], receivedAt: Date())
    #expect(text.expiresIn == .seconds(120))
    expectXidError(.invalidTokenResponse) {
      try TokenResponse(json: ["access_token": "a", "token_type": "Bearer", "expires_in": "soon"], receivedAt: Date())
    }
  }

  @Test func unknownMembersAreKept() throws {
    let response = try TokenResponse(
      json: ["access_token": "a", "token_type": "Bearer", "ext_expires_in": 7200, "x-vendor": ["k": "v"]],
      receivedAt: Date())
    #expect(response.raw["ext_expires_in"] == 7200)
    #expect(response.raw["x-vendor"]?["k"] == "v")
  }

  @Test func tokenResponseDescriptionShowsNoToken() throws {
    let response = try TokenResponse(
      json: [
        "access_token": "AT-secret", "token_type": "Bearer", "refresh_token": "RT-secret", "id_token": "IDT-secret",
      ], receivedAt: Date())
    var dumped = ""
    dump(response, to: &dumped)
    for text in ["\(response)", String(reflecting: response), dumped] {
      #expect(!text.contains("AT-secret"))
      #expect(!text.contains("RT-secret"))
      #expect(!text.contains("IDT-secret"))
    }
  }

  @Test func rfcJSONErrorBecomesTokenRequestFailed() async throws {
    let provider = try FakeProvider()
    let error = await expectXidError(.tokenRequestFailed) {
      try await Self.exchange(provider) { _ in
        .json(["error": "invalid_grant", "error_description": "code expired"], status: 400)
      }
    }
    #expect(error?.httpStatus == 400)
    #expect(error?.oauthError == "invalid_grant")
    #expect(error?.reason.contains("code expired") == true)
    #expect(error?.isInvalidGrant == true)
    #expect(error?.isTransient == false)
  }

  @Test func emptyBody400IsTypedButNotADeadGrant() async throws {
    let provider = try FakeProvider()
    let error = await expectXidError(.tokenRequestFailed) {
      try await Self.exchange(provider) { _ in HTTPResponse(status: 400) }
    }
    #expect(error?.httpStatus == 400)
    #expect(error?.oauthError == nil)
    #expect(error?.reason.contains("empty body") == true)
    #expect(error?.isInvalidGrant == false)
  }

  @Test func html500IsTypedAndTransient() async throws {
    let provider = try FakeProvider()
    let error = await expectXidError(.tokenRequestFailed) {
      try await Self.exchange(provider) { _ in
        HTTPResponse(
          status: 500, headers: ["Content-Type": "text/html; charset=utf-8"],
          body: Data("<html><body>Internal error</body></html>".utf8))
      }
    }
    #expect(error?.httpStatus == 500)
    #expect(error?.oauthError == nil)
    #expect(error?.reason.contains("text/html") == true)
    #expect(error?.isTransient == true)
    #expect(error?.isInvalidGrant == false)
  }

  @Test func nonStandard403InvalidCodeIsNotADeadGrant() async throws {
    let provider = try FakeProvider()
    let error = await expectXidError(.tokenRequestFailed) {
      try await Self.exchange(provider) { _ in .json(["error": "invalid_code"], status: 403) }
    }
    #expect(error?.httpStatus == 403)
    #expect(error?.oauthError == "invalid_code")
    #expect(error?.isInvalidGrant == false)
  }

  @Test func errorIn200BodyIsTyped() async throws {
    let provider = try FakeProvider()
    let error = await expectXidError(.tokenRequestFailed) {
      try await Self.exchange(provider) { _ in .json(["error": "bad_verification_code"]) }
    }
    #expect(error?.httpStatus == 200)
    #expect(error?.isInvalidGrant == false)
  }

  @Test func invalidClientIsNeitherDeadGrantNorTransient() async throws {
    let provider = try FakeProvider()
    let error = await expectXidError(.tokenRequestFailed) {
      try await Self.exchange(provider) { _ in
        var response = HTTPResponse.json(["error": "invalid_client"], status: 401)
        response.headers["WWW-Authenticate"] = "Basic realm=\"op\""
        return response
      }
    }
    #expect(error?.oauthError == "invalid_client")
    #expect(error?.isInvalidGrant == false)
    #expect(error?.isTransient == false)
  }

  @Test func temporarilyUnavailableIsTransient() async throws {
    let provider = try FakeProvider()
    let error = await expectXidError(.tokenRequestFailed) {
      try await Self.exchange(provider) { _ in .json(["error": "temporarily_unavailable"], status: 400) }
    }
    #expect(error?.isTransient == true)
    #expect(error?.isInvalidGrant == false)
  }

  @Test func nonJSONSuccessBodyIsRefused() async throws {
    let provider = try FakeProvider()
    let error = await expectXidError(.unexpectedResponse) {
      try await Self.exchange(provider) { _ in
        HTTPResponse(status: 200, headers: ["Content-Type": "text/html"], body: Data("<html>ok</html>".utf8))
      }
    }
    #expect(error?.httpStatus == 200)
  }

  @Test func successBodyWithoutContentTypeIsAcceptedWhenItIsJSON() async throws {
    let provider = try FakeProvider()
    let result = try await Self.exchange(provider) { provider, _ in
      var response = try provider.tokenResponse()
      response.headers["Content-Type"] = nil
      return response
    }
    #expect(result.tokens.accessToken == "access-token-1")
  }

  @Test func tokenResponseWithoutIDTokenIsRefusedAfterSignIn() async throws {
    let provider = try FakeProvider()
    await expectXidError(.invalidTokenResponse) {
      try await Self.exchange(provider) { provider, _ in try provider.tokenResponse(idToken: false) }
    }
  }

  @Test func errorDescriptionEchoingTheCodeIsRedacted() async throws {
    let provider = try FakeProvider()
    provider.on("/token") { request in
      .json(
        ["error": "invalid_grant", "error_description": .string("code \(request.form["code"] ?? "") was used")],
        status: 400)
    }
    let client = try provider.client()
    let (redirect, pending) = try await provider.authorize(client, code: "SECRET-CODE-123")
    let error = await expectXidError(.tokenRequestFailed) {
      try await client.handleRedirect(url: redirect, pending: [pending])
    }
    #expect(error?.reason.contains("SECRET-CODE-123") == false)
    #expect(error?.reason.contains("[redacted]") == true)
  }

  @Test func transportFailureBecomesATransientNetworkFailure() async throws {
    struct Broken: Error {}
    let provider = try FakeProvider()
    let error = await expectXidError(.networkFailure) { try await Self.exchange(provider) { _ in throw Broken() } }
    #expect(error?.isTransient == true)
    #expect(error?.isInvalidGrant == false)
  }

  @Test func tooLargeResponseIsRefused() async throws {
    let provider = try FakeProvider()
    await expectXidError(.responseTooLarge) {
      try await Self.exchange(provider) { _ in HTTPResponse(status: 200, body: Data(count: 2 << 20)) }
    }
  }
}
