import Foundation
import Testing
import XidCore
import XidTesting

struct CodeFlowTests {
  @Test func theCodeFlowIssuesTokensAndAnIDTokenThatVerifiesAgainstTheJWKS() async throws {
    let harness = try Harness()
    let pkce = try Harness.PKCE()
    let callback = try await harness.authorize(
      harness.authorizationParameters(pkce: pkce, state: "s-42", nonce: "n-42"))
    #expect(callback["state"] == "s-42")
    #expect(callback["iss"] == "https://op.xid.test")
    let code = try #require(callback["code"])

    let response = try await harness.exchange(code: code, verifier: pkce.verifier)
    #expect(response.headers["Cache-Control"] == "no-store")
    let tokens = try Harness.Tokens(response)
    #expect(tokens.json["token_type"] == "Bearer")
    #expect(tokens.json["expires_in"] == 300)
    #expect(tokens.json["scope"] == "openid profile email offline_access")
    #expect(tokens.refreshToken != nil)

    let idToken = try #require(tokens.idToken)
    let jws = try CompactJWS(parsing: idToken)
    #expect(jws.header.keyID == (await harness.provider.signingKeyID))
    #expect(jws.header.type == "JWT")
    let key = try jws.verify(using: try await harness.keySet(), allowedAlgorithms: [.es256])
    #expect(key.keyID == jws.header.keyID)

    let claims = try JWTClaims(payload: jws.payload)
    let now = harness.clock.now
    #expect(claims.issuer == "https://op.xid.test")
    #expect(claims.subject == "alice")
    #expect(claims.audience == ["xid-example"])
    #expect(claims.authorizedParty == "xid-example")
    #expect(claims.nonce == "n-42")
    #expect(claims.accessTokenHash == Harness.sha256Hash(tokens.accessToken))
    #expect(claims.codeHash == nil)
    #expect(claims.issuedAt == now)
    #expect(claims.expiresAt == now + 300)
    #expect(claims.authTime == now)
    #expect(claims.sessionID?.isEmpty == false)
    #expect(claims["name"] == nil, "scope claims go to UserInfo unless configured")
    try claims.validateTimes(now: now, leeway: .seconds(0), requireIssuedAt: true)

    let counters = await harness.provider.counters
    #expect(counters.authorizationRequests == 1)
    #expect(counters.tokenRequests == 1)
    #expect(counters.codeExchanges == 1)
  }

  @Test func codeHashAndScopeClaimsAreAddedWhenConfigured() async throws {
    var configuration = TestProvider.Configuration()
    configuration.includesCodeHash = true
    configuration.includesScopeClaimsInIDToken = true
    let harness = try Harness(configuration: configuration)
    let pkce = try Harness.PKCE()
    let code = try #require(try await harness.authorize(harness.authorizationParameters(pkce: pkce))["code"])
    let tokens = try Harness.Tokens(await harness.exchange(code: code, verifier: pkce.verifier))
    let claims = try await harness.verify(try #require(tokens.idToken))
    #expect(claims.codeHash == Harness.sha256Hash(code))
    #expect(claims["name"] == "Alice Example")
    #expect(claims["email"] == "alice@example.com")
  }

  @Test func aWrongCodeVerifierIsRefused() async throws {
    let harness = try Harness()
    let pkce = try Harness.PKCE()
    let code = try #require(try await harness.authorize(harness.authorizationParameters(pkce: pkce))["code"])
    let response = try await harness.exchange(code: code, verifier: try Harness.PKCE().verifier)
    #expect(response.status == 400)
    #expect(Harness.oauthError(response) == "invalid_grant")
    let missing = try await harness.post(
      .token,
      [
        ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", Harness.redirectUri),
        ("client_id", "xid-example"),
      ])
    #expect(Harness.oauthError(missing) == "invalid_request")
  }

  @Test func plainOrMissingPKCEIsRefusedWithARedirectedError() async throws {
    let harness = try Harness()
    let pkce = try Harness.PKCE()
    for overrides in [
      ["code_challenge_method": "plain", "code_challenge": pkce.verifier], ["code_challenge_method": ""],
      ["code_challenge": ""],
    ] {
      let callback = try await harness.authorize(harness.authorizationParameters(pkce: pkce, overrides: overrides))
      #expect(callback["error"] == "invalid_request", "\(overrides)")
      #expect(callback["code"] == nil)
      #expect(callback["state"] == "state-1")
      #expect(callback["iss"] == "https://op.xid.test")
    }
  }

  @Test func anotherResponseTypeIsUnsupported() async throws {
    let harness = try Harness()
    let pkce = try Harness.PKCE()
    let callback = try await harness.authorize(
      harness.authorizationParameters(pkce: pkce, overrides: ["response_type": "token"]))
    #expect(callback["error"] == "unsupported_response_type")
  }

  @Test func anAuthorizationCodeIsSingleUseAndReuseRevokesItsTokens() async throws {
    let harness = try Harness()
    let pkce = try Harness.PKCE()
    let code = try #require(try await harness.authorize(harness.authorizationParameters(pkce: pkce))["code"])
    let first = try Harness.Tokens(await harness.exchange(code: code, verifier: pkce.verifier))
    #expect(try await harness.get(.resource, bearer: first.accessToken).status == 200)

    let second = try await harness.exchange(code: code, verifier: pkce.verifier)
    #expect(second.status == 400)
    #expect(Harness.oauthError(second) == "invalid_grant")
    #expect(try await harness.get(.resource, bearer: first.accessToken).status == 401)
    #expect(Harness.oauthError(try await harness.refresh(try #require(first.refreshToken))) == "invalid_grant")
  }

  @Test func aCodeExpires() async throws {
    let harness = try Harness()
    let pkce = try Harness.PKCE()
    let code = try #require(try await harness.authorize(harness.authorizationParameters(pkce: pkce))["code"])
    harness.clock.advance(by: .seconds(61))
    #expect(Harness.oauthError(try await harness.exchange(code: code, verifier: pkce.verifier)) == "invalid_grant")
  }

  @Test func theTokenRequestMustRepeatTheRedirectURI() async throws {
    let harness = try Harness()
    let pkce = try Harness.PKCE()
    let code = try #require(try await harness.authorize(harness.authorizationParameters(pkce: pkce))["code"])
    let response = try await harness.exchange(
      code: code, verifier: pkce.verifier, redirectUri: "com.example.app:/other")
    #expect(Harness.oauthError(response) == "invalid_grant")
  }

  @Test func anUnregisteredRedirectURIOrClientIsNeverRedirectedTo() async throws {
    let harness = try Harness()
    let pkce = try Harness.PKCE()
    for overrides in [
      ["redirect_uri": "com.example.app:/callback/extra"], ["redirect_uri": "https://attacker.test/cb"],
      ["redirect_uri": ""], ["client_id": "unknown-client"],
    ] {
      let url = harness.authorizationURL(harness.authorizationParameters(pkce: pkce, overrides: overrides))
      let response = try await harness.provider.browser.load(url)
      #expect(response.status == 400, "\(overrides)")
      #expect(response.headers["Location"] == nil)
      await #expect(throws: XidError.self) { try await harness.provider.browser.redirect(from: url) }
    }
  }

  @Test func aLoopbackRedirectURIMayUseAnyPort() async throws {
    let harness = try Harness()
    let pkce = try Harness.PKCE()
    let redirect = "http://127.0.0.1:53124/callback"
    let url = harness.authorizationURL(
      harness.authorizationParameters(pkce: pkce, overrides: ["redirect_uri": redirect]))
    let callback = try await harness.provider.browser.redirect(from: url)
    #expect(callback.absoluteString.hasPrefix(redirect + "?code="))
    let code = try #require(Harness.dictionary(callback.queryParameters)["code"])
    _ = try Harness.Tokens(await harness.exchange(code: code, verifier: pkce.verifier, redirectUri: redirect))
  }

  @Test func aConfidentialClientMustAuthenticate() async throws {
    let client = TestClient(id: "web", secret: "s3cret", redirectURIs: [URL(string: Harness.redirectUri)!])
    let harness = try Harness(client: client)
    let pkce = try Harness.PKCE()
    let code = try #require(try await harness.authorize(harness.authorizationParameters(pkce: pkce))["code"])
    let parameters = [
      ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", Harness.redirectUri),
      ("code_verifier", pkce.verifier),
    ]
    let unauthenticated = try await harness.post(.token, parameters + [("client_id", "web")])
    #expect(unauthenticated.status == 401)
    #expect(Harness.oauthError(unauthenticated) == "invalid_client")
    let wrong = try await harness.post(
      .token, parameters, headers: ["Authorization": "Basic " + Data("web:wrong".utf8).base64EncodedString()])
    #expect(wrong.status == 401)
    #expect(wrong.headers["WWW-Authenticate"]?.hasPrefix("Basic") == true)
    let basic = try await harness.post(
      .token, parameters, headers: ["Authorization": "Basic " + Data("web:s3cret".utf8).base64EncodedString()])
    _ = try Harness.Tokens(basic)
  }

  @Test func theClientSecretMayAlsoBePosted() async throws {
    let client = TestClient(id: "web", secret: "s3cret", redirectURIs: [URL(string: Harness.redirectUri)!])
    let harness = try Harness(client: client)
    let pkce = try Harness.PKCE()
    let code = try #require(try await harness.authorize(harness.authorizationParameters(pkce: pkce))["code"])
    let response = try await harness.post(
      .token,
      [
        ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", Harness.redirectUri),
        ("code_verifier", pkce.verifier), ("client_id", "web"), ("client_secret", "s3cret"),
      ])
    _ = try Harness.Tokens(response)
  }

  @Test func repeatedParametersAreRefused() async throws {
    let harness = try Harness()
    let response = try await harness.post(
      .token, [("grant_type", "refresh_token"), ("grant_type", "refresh_token"), ("client_id", "xid-example")])
    #expect(Harness.oauthError(response) == "invalid_request")
  }
}
