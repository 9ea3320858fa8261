import Foundation
import Testing
import XidTestSupport
import XidTesting

@testable import XidProtocol
@testable import XidSession

/// RFC 8693 token exchange as the engine offers it: a downscoped or audience-restricted token for a
/// backend, from the session's access token; the session is never touched.
struct TokenExchangeAPITests {
  static let app = TestClient(
    id: "exchange-app", redirectURIs: TestClient.example.redirectURIs, allowsTokenExchange: true)

  static func signedIn(dpop: Bool = false, allowsExchange: Bool = true) async throws -> (TestProvider, SessionEngine) {
    var configuration = TestProvider.Configuration()
    var app = Self.app
    app.allowsTokenExchange = allowsExchange
    configuration.clients = [app]
    let provider = try TestProvider(configuration: configuration)
    let engine = try SessionEngine(
      configuration: XidConfiguration(
        identity: ClientIdentity(issuer: provider.issuer, clientId: app.id, redirectUri: app.redirectURIs[0]),
        policy: SessionPolicy(usesDPoP: dpop),
        parts: SessionParts(
          transport: provider.transport, storage: InMemoryTokenStorage(), clock: provider.clock,
          userAgent: provider.userAgent, logger: DiscardingLogger())))
    _ = try await engine.signIn(options: SignInOptions(), userAgent: provider.userAgent)
    return (provider, engine)
  }

  @Test func theSessionsAccessTokenIsExchangedForANarrowerOneAndTheSessionStaysAsItWas() async throws {
    let (provider, engine) = try await Self.signedIn()
    let before = try await engine.account.record()
    let result = try await engine.exchangeAccessToken(audiences: ["https://api.example"], scopes: ["openid"])
    #expect(result.tokens.issuedTokenType == .accessToken)
    #expect(result.tokens.accessToken != before?.accessToken)
    #expect(result.tokens.scope == ["openid"])
    #expect(await provider.counters.tokenExchanges == 1)
    #expect(try await engine.account.record() == before)
    // The new token works at the resource.
    let response = try await provider.transport.send(
      HTTPRequest(url: provider.url(for: .resource), headers: ["Authorization": "Bearer " + result.tokens.accessToken]))
    #expect(response.status == 200)
  }

  @Test func anIDTokenComesBackWithTokenTypeNA() async throws {
    let (_, engine) = try await Self.signedIn()
    let result = try await engine.exchangeAccessToken(requestedTokenType: .idToken)
    #expect(result.tokens.issuedTokenType == .idToken)
    #expect(result.tokens.tokenType.accessTokenType == nil)
    #expect(result.idToken != nil)
  }

  @Test func aRefusedExchangeIsATypedErrorAndTouchesNothing() async throws {
    let (provider, engine) = try await Self.signedIn(allowsExchange: false)
    let before = try await engine.account.record()
    let error = await expectXidError(.tokenRequestFailed) { try await engine.exchangeAccessToken(scopes: ["openid"]) }
    #expect(error?.oauthError == "unauthorized_client")
    #expect(try await engine.account.record() == before)
    #expect(try await engine.accessToken() == before?.accessToken)
    for secret in await provider.issuedSecrets where secret.count >= 8 {
      #expect(!"\(String(describing: error))".contains(secret))
    }
  }

  @Test func withDPoPTheExchangeCarriesAProofAndTheNewTokenIsBoundToTheSessionsKey() async throws {
    let (_, engine) = try await Self.signedIn(dpop: true)
    let record = try #require(try await engine.account.record())
    let result = try await engine.exchangeAccessToken(scopes: ["openid"])
    #expect(result.tokens.tokenType.accessTokenType == .dpop)
    #expect(record.dpopKeyThumbprint != nil)
  }

  @Test func anExchangeWithoutASessionAsksForASignInWhenItNeedsTheSessionsToken() async throws {
    let (_, engine) = try await Self.signedIn()
    _ = try await engine.signOut(callEndSession: false, userAgent: nil)
    await expectXidError(.signInRequired) { try await engine.exchangeAccessToken() }
  }
}
