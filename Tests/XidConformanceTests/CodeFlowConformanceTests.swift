import Foundation
import Testing
import XidCore
import XidTesting

/// The code flow, discovery and UserInfo as the OpenID Foundation's RP tests drive them, with an
/// honest provider except where a test names a hostile mode.
@Suite(.timeLimit(.minutes(1)))
struct CodeFlowConformanceTests {
  @Test("rp-response_type-code", arguments: Wire.allCases)
  func signsInWithTheAuthorizationCodeFlowAndPKCE(over wire: Wire) async throws {
    try await withStage(wire) { stage in
      let request = try await stage.client.makeAuthorizationRequest()
      let query = Dictionary(request.url.queryParameters, uniquingKeysWith: { first, _ in first })
      #expect(query["response_type"] == "code")
      #expect(query["client_id"] == TestClient.example.id)
      #expect(query["code_challenge_method"] == "S256")
      #expect(query["state"] == request.pending.state)
      #expect(query["nonce"] == request.pending.nonce)
      #expect(query["scope"] == "openid profile email")

      let callback = try await stage.browser.redirect(from: request.url)
      let result = try await stage.client.handleRedirect(url: callback, pending: [request.pending])

      #expect(result.pending == request.pending)
      #expect(result.idToken.issuer == stage.provider.issuer.absoluteString)
      #expect(result.idToken.subject == TestUser.alice.subject)
      #expect(result.idToken.claims.audience == [TestClient.example.id])
      #expect(result.idToken.claims.nonce == request.pending.nonce)
      #expect(result.tokens.idToken == result.idToken.compact)
      #expect(result.tokens.refreshToken != nil)
      let info = try await stage.client.userInfo(
        accessToken: result.tokens.accessToken, expectedSubject: result.idToken.subject)
      #expect(info.subject == TestUser.alice.subject)

      let counters = await stage.counters
      #expect(counters.authorizationRequests == 1)
      #expect(counters.codeExchanges == 1)
      #expect(counters.userInfoRequests == 1)
      // What the other tests look for in error descriptions was seen on the wire.
      let code = try #require(callback.queryParameters.first { $0.0 == "code" }?.1)
      let secrets = stage.transport.secrets
      for secret in [
        code, request.pending.state, request.pending.nonce, request.pending.codeVerifier, result.tokens.accessToken,
        result.idToken.compact, try #require(result.tokens.refreshToken),
      ] {
        #expect(secrets.contains(secret))
      }
    }
  }

  @Test("rp-scope-userinfo-claims")
  func userInfoReleasesTheClaimsOfTheRequestedScopes() async throws {
    try await withStage(.inMemory) { stage in
      let everything = try await stage.signIn()
      let all = try await stage.client.userInfo(
        accessToken: everything.tokens.accessToken, expectedSubject: everything.idToken.subject)
      #expect(all.name == "Alice Example")
      #expect(all.preferredUsername == "alice")
      #expect(all.email == "alice@example.com")
      #expect(all.emailVerified == true)

      let emailOnly = try await stage.signIn(SignInOptions(scopes: ["email"]))
      #expect(emailOnly.tokens.scope == ["openid", "email"])
      let some = try await stage.client.userInfo(
        accessToken: emailOnly.tokens.accessToken, expectedSubject: emailOnly.idToken.subject)
      #expect(some.email == "alice@example.com")
      #expect(some.emailVerified == true)
      #expect(some.name == nil)
      #expect(some.preferredUsername == nil)
      #expect(Set(some.claims.keys) == ["sub", "email", "email_verified"])
    }
  }

  @Test("rp-discovery-openid-configuration")
  func findsEveryEndpointThroughDiscovery() async throws {
    try await withStage(.inMemory) { stage in
      let result = try await stage.signIn()
      _ = try await stage.client.userInfo(
        accessToken: result.tokens.accessToken, expectedSubject: result.idToken.subject)
      _ = try await stage.signIn()

      let metadata = try await stage.client.metadata()
      #expect(metadata.issuer == stage.provider.issuer.absoluteString)
      let used = Set(stage.transport.exchanges.map { $0.request.url.withoutQuery })
      let discovered: Set<URL> = [
        ProviderMetadata.discoveryURL(for: stage.provider.issuer), metadata.authorizationEndpoint,
        metadata.tokenEndpoint, metadata.jwksURI, try #require(metadata.userInfoEndpoint),
      ]
      #expect(used == discovered)
      // Fetched once, then cached for the whole session.
      #expect(await stage.counters.discoveryFetches == 1)
    }
  }

  @Test("rp-discovery-jwks_uri-keys")
  func verifiesIDTokensWithTheKeysAtTheDiscoveredJWKSURI() async throws {
    try await withStage(.inMemory) { stage in
      let result = try await stage.signIn()
      let keys = try await stage.client.keyCache()
      #expect(keys.url == stage.provider.url(for: .jwks))
      #expect(keys.url == (try await stage.client.metadata()).jwksURI)
      let keyID = try CompactJWS(parsing: result.idToken.compact).header.keyID
      #expect(keyID == (await stage.provider.signingKeyID))
      #expect(try await keys.keySet().keys.map(\.keyID) == (await stage.provider.publishedKeyIDs))
      _ = try await stage.signIn()
      #expect(await stage.counters.jwksFetches == 1)
    }
  }

  @Test("rp-discovery-issuer-not-matching-config", arguments: Wire.allCases)
  func refusesMetadataThatNamesAnotherIssuer(over wire: Wire) async throws {
    try await withStage(wire) { stage in
      try await stage.provider.misbehave(.otherIssuerInDiscovery, .always)
      await expectRejection(.issuerMismatch, on: stage) { try await stage.client.makeAuthorizationRequest() }
      // Refused metadata is not cached: the next call asks again, and is refused again.
      await expectRejection(.issuerMismatch, on: stage) { try await stage.client.metadata() }
      let counters = await stage.counters
      #expect(counters.discoveryFetches == 2)
      #expect(counters.authorizationRequests == 0)
      #expect(counters.jwksFetches == 0)
      #expect(counters.tokenRequests == 0)

      await stage.provider.behave()
      _ = try await stage.signIn()
    }
  }
}

extension URL {
  /// The URL without its query and fragment.
  var withoutQuery: URL {
    var components = URLComponents(url: self, resolvingAgainstBaseURL: false)!
    components.query = nil
    components.fragment = nil
    return components.url!
  }
}
