import Foundation
import Testing
import XidTestSupport
import XidTesting

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

/// OpenID Connect Native SSO as OpenIDClient does it against XidTesting's provider: app 1 signs in
/// with `device_sso`, app 2 (another client ID) exchanges the family's ID token and device secret for
/// its own tokens, and every misbehaviour of the provider is refused with a typed error.
struct NativeSSOClientTests {
  static let familyApp = TestClient(
    id: "family-app", redirectURIs: [URL(string: "com.example.family:/callback")!], allowsTokenExchange: true)
  static let siblingApp = TestClient(
    id: "sibling-app", redirectURIs: [URL(string: "com.example.sibling:/callback")!], allowsTokenExchange: true)

  /// The two apps' provider, and what app 1's sign-in left in the family.
  struct Family {
    let provider: TestProvider
    let clock: TestClock
    var idToken: IDToken
    var deviceSecret: String

    /// A provider with both apps, and app 1 signed in with `device_sso`.
    init(configure: @Sendable (inout TestProvider.Configuration) -> Void = { _ in }) async throws {
      var configuration = TestProvider.Configuration()
      configuration.clients = [NativeSSOClientTests.familyApp, NativeSSOClientTests.siblingApp]
      configure(&configuration)
      clock = TestClock(now: Date(timeIntervalSince1970: 1_800_000_000))
      provider = try TestProvider(configuration: configuration, clock: clock)
      let signIn = try await Self.signIn(
        try Self.client(NativeSSOClientTests.familyApp, provider: provider, clock: clock, scopes: ["device_sso"]),
        provider: provider)
      idToken = signIn.idToken
      deviceSecret = try #require(signIn.tokens.deviceSecret)
    }

    static func client(
      _ app: TestClient, provider: TestProvider, clock: TestClock, scopes: [String] = ["profile"], dpop: Bool = false
    ) throws -> OpenIDClient {
      let configuration = XidConfiguration(
        identity: ClientIdentity(
          issuer: provider.issuer, clientId: app.id, redirectUri: app.redirectURIs[0], scopes: scopes),
        policy: SessionPolicy(usesDPoP: dpop, deviceSecretHashRule: .atHashRule))
      return try OpenIDClient(configuration: configuration.using(transport: provider.transport, clock: clock))
    }

    /// A whole code flow in the test browser.
    static func signIn(_ client: OpenIDClient, provider: TestProvider) async throws -> AuthenticationResult {
      let request = try await client.makeAuthorizationRequest()
      let callback = try await provider.browser.redirect(from: request.url)
      return try await client.handleRedirect(url: callback, pending: [request.pending])
    }

    func client(_ app: TestClient, dpop: Bool = false) throws -> OpenIDClient {
      try Self.client(app, provider: provider, clock: clock, dpop: dpop)
    }

    /// The sibling's Native SSO exchange of the family's ID token and device secret.
    var exchange: TokenExchangeRequest {
      .nativeSSO(
        idToken: idToken.compact, deviceSecret: deviceSecret, issuer: provider.issuer.absoluteString,
        scopes: ["profile"])
    }
  }

  /// Fails when a token, code or device secret the provider issued appears in `error`.
  static func expectNoSecret(in error: XidError?, from provider: TestProvider) async {
    guard let error else { return }
    for secret in await provider.issuedSecrets where secret.count >= 8 {
      #expect(!"\(error)".contains(secret) && !error.reason.contains(secret), "an error shows a secret: \(error.code)")
    }
  }

  @Test func aFamilySignInKeepsADeviceSecretThatItsIDTokenBindsWithDsHashAndSid() async throws {
    let family = try await Family()
    let client = try family.client(Self.familyApp)
    try client.checkDeviceSecret(family.deviceSecret, boundTo: family.idToken)
    #expect(family.idToken.sessionID != nil)
    #expect(family.idToken.deviceSecretHash == TokenHash.value(for: family.deviceSecret, algorithm: .es256))
    #expect(await family.provider.isDeviceSecretValid(family.deviceSecret))
    #expect(try await client.metadata().nativeSSOSupported)
  }

  @Test func aSiblingExchangesTheExpiredFamilyIDTokenAndDeviceSecretForTokensWithItsOwnAudience() async throws {
    let family = try await Family()
    // The family's ID token has expired by the time the sibling is opened.
    family.clock.advance(by: .seconds(3600))
    #expect(family.idToken.claims.expiresAt! < family.clock.now)
    let sibling = try family.client(Self.siblingApp)
    let result = try await sibling.exchange(family.exchange)
    #expect(result.tokens.issuedTokenType == .accessToken)
    #expect(result.tokens.tokenType == .bearer)
    #expect(result.tokens.refreshToken != nil)
    #expect(result.tokens.deviceSecret == nil)
    let idToken = try #require(result.idToken)
    #expect(idToken.claims.audience == [Self.siblingApp.id])
    #expect(idToken.claims.authorizedParty == Self.siblingApp.id)
    #expect(idToken.subject == family.idToken.subject)
    #expect(idToken.issuer == family.idToken.issuer)
    #expect(idToken.sessionID == family.idToken.sessionID)
    try sibling.checkDeviceSecret(family.deviceSecret, boundTo: idToken)
    #expect(await family.provider.counters.tokenExchanges == 1)
    // From then on the sibling refreshes as any session does.
    let refreshed = try await sibling.refresh(
      refreshToken: try #require(result.tokens.refreshToken), originalIDToken: idToken)
    #expect(refreshed.idToken?.claims.audience == [Self.siblingApp.id])
  }

  @Test func aSiblingExchangeWithDPoPCarriesAProofAndGetsTokensBoundToItsKey() async throws {
    let family = try await Family()
    let key = try DPoPProofTests.key()
    let sibling = try family.client(Self.siblingApp, dpop: true)
    let result = try await sibling.exchange(family.exchange, dpopKey: key)
    #expect(result.tokens.tokenType == .dpop)
    #expect(await family.provider.counters.dpopProofsAccepted == 1)
    // The refresh token is bound to the key too: a refresh without its proof is refused.
    let refreshToken = try #require(result.tokens.refreshToken)
    let unbound = try family.client(Self.siblingApp)
    let refusal = await expectXidError(.tokenRequestFailed) {
      try await unbound.refresh(refreshToken: refreshToken, originalIDToken: result.idToken)
    }
    #expect(refusal?.oauthError == "invalid_dpop_proof")
    _ = try await sibling.refresh(refreshToken: refreshToken, originalIDToken: result.idToken, dpopKey: key)
  }

  @Test func aFamilySignOutByRevokingTheDeviceSecretMakesTheNextExchangeAnInvalidGrant() async throws {
    let family = try await Family()
    let sibling = try family.client(Self.siblingApp)
    let first = try await sibling.exchange(family.exchange)
    try await family.client(Self.familyApp).revoke(family.deviceSecret)
    #expect(await family.provider.isDeviceSecretValid(family.deviceSecret) == false)
    let refusal = await expectXidError(.tokenRequestFailed) { try await sibling.exchange(family.exchange) }
    #expect(refusal?.isInvalidGrant == true)
    await Self.expectNoSecret(in: refusal, from: family.provider)
    // The draft ends every refresh token of the session with it.
    let refresh = await expectXidError(.tokenRequestFailed) {
      try await sibling.refresh(refreshToken: try #require(first.tokens.refreshToken), originalIDToken: first.idToken)
    }
    #expect(refresh?.isInvalidGrant == true)
    await Self.expectNoSecret(in: refresh, from: family.provider)
  }

  @Test func aRotatedDeviceSecretComesBackWithAnIDTokenThatBindsIt() async throws {
    let family = try await Family { $0.nativeSSO.rotatesDeviceSecretOnExchange = true }
    let sibling = try family.client(Self.siblingApp)
    let result = try await sibling.exchange(family.exchange)
    let rotated = try #require(result.tokens.deviceSecret)
    #expect(rotated != family.deviceSecret)
    try sibling.checkDeviceSecret(rotated, boundTo: try #require(result.idToken))
    #expect(await family.provider.isDeviceSecretValid(family.deviceSecret) == false)
    // The new pair signs the next sibling in; the old one no longer does.
    var next = family
    next.idToken = try #require(result.idToken)
    next.deviceSecret = rotated
    _ = try await sibling.exchange(next.exchange)
    let stale = await expectXidError(.tokenRequestFailed) { try await sibling.exchange(family.exchange) }
    #expect(stale?.isInvalidGrant == true)
  }

  @Test(arguments: [TestProvider.Misbehavior.wrongDeviceSecretHash, .missingDeviceSecretHash])
  func aFamilySignInWhoseDsHashDoesNotBindTheDeviceSecretIsRefused(misbehavior: TestProvider.Misbehavior)
    async throws
  {
    var configuration = TestProvider.Configuration()
    configuration.clients = [Self.familyApp]
    let clock = TestClock()
    let provider = try TestProvider(configuration: configuration, clock: clock)
    try await provider.misbehave(misbehavior, .once)
    let client = try Family.client(Self.familyApp, provider: provider, clock: clock, scopes: ["device_sso"])
    let signIn = try await Family.signIn(client, provider: provider)
    let deviceSecret = try #require(signIn.tokens.deviceSecret)
    let error = expectXidError(.deviceSecretMismatch) {
      try client.checkDeviceSecret(deviceSecret, boundTo: signIn.idToken)
    }
    await Self.expectNoSecret(in: error, from: provider)
  }

  @Test func anExchangeAnswerWithARotatedDeviceSecretThatItsIDTokenDoesNotBindIsRefused() async throws {
    let family = try await Family { $0.nativeSSO.rotatesDeviceSecretOnExchange = true }
    try await family.provider.misbehave(.wrongDeviceSecretHash, .once)
    let sibling = try family.client(Self.siblingApp)
    let result = try await sibling.exchange(family.exchange)
    expectXidError(.deviceSecretMismatch) {
      try sibling.checkDeviceSecret(try #require(result.tokens.deviceSecret), boundTo: try #require(result.idToken))
    }
  }

  static let exchangeMisbehaviours: [(TestProvider.Misbehavior, XidError.Code)] = [
    (.wrongIssuer, .invalidIDToken),
    (.otherSubjectOnExchange, .foreignTokenResponse),
    (.familyAudienceOnExchange, .invalidIDToken),
    (.wrongAudience, .invalidIDToken),
  ]

  @Test(arguments: exchangeMisbehaviours)
  func anExchangedIDTokenOfAnotherIssuerSubjectOrAudienceIsRefusedAndItsTokensRevoked(
    misbehavior: TestProvider.Misbehavior, code: XidError.Code
  ) async throws {
    let family = try await Family()
    try await family.provider.misbehave(misbehavior, .once)
    let sibling = try family.client(Self.siblingApp)
    let error = await expectXidError(code) { try await sibling.exchange(family.exchange) }
    await Self.expectNoSecret(in: error, from: family.provider)
    // Nothing of the answer was kept, nothing of the family lost: the next exchange works.
    let revoked = await family.provider.revokedTokens
    #expect(revoked.count == 2)
    #expect(await family.provider.isDeviceSecretValid(family.deviceSecret))
    let result = try await sibling.exchange(family.exchange)
    #expect(result.idToken?.claims.audience == [Self.siblingApp.id])
  }

  @Test func aDownscopedAccessTokenForABackendIsExchangedFromTheAppsOwn() async throws {
    let family = try await Family()
    let app = try family.client(Self.familyApp)
    let signIn = try await Family.signIn(app, provider: family.provider)
    let backend = URL(string: "https://payments.example/api")!
    let result = try await app.exchange(
      TokenExchangeRequest(
        subjectToken: signIn.tokens.accessToken, subjectTokenType: .accessToken, audiences: ["payments"],
        resources: [backend], scopes: ["profile"]))
    #expect(result.tokens.issuedTokenType == .accessToken)
    #expect(result.tokens.scope == ["profile"])
    #expect(result.idToken == nil)
    #expect(
      await family.provider.audiences(ofAccessToken: result.tokens.accessToken) == ["payments", backend.absoluteString])
    // A scope beyond the subject token's is refused, typed.
    let wider = await expectXidError(.tokenRequestFailed) {
      try await app.exchange(
        TokenExchangeRequest(subjectToken: signIn.tokens.accessToken, subjectTokenType: .accessToken, scopes: ["admin"])
      )
    }
    #expect(wider?.oauthError == "invalid_scope")
    // An ID token comes back as a token that is not an access token (N_A), validated.
    let idToken = try await app.exchange(
      TokenExchangeRequest(
        subjectToken: signIn.tokens.accessToken, subjectTokenType: .accessToken, requestedTokenType: .idToken))
    #expect(idToken.tokens.tokenType == .notApplicable)
    #expect(idToken.idToken?.subject == signIn.idToken.subject)
  }
}
