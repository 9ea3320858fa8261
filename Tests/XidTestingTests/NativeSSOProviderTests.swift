import Foundation
import Testing
import XidCore
import XidTesting

/// The provider's side of OpenID Connect Native SSO (draft 07) and of RFC 8693 token exchange, at
/// the HTTP level: device secrets, `ds_hash` and `sid`, the exchange's checks, family sign-out,
/// rotation, and the hostile modes of the conformance tests.
struct NativeSSOProviderTests {
  static let family = TestClient(
    id: "family-app", redirectURIs: [URL(string: Harness.redirectUri)!], allowsTokenExchange: true)
  static let sibling = TestClient(id: "sibling-app", redirectURIs: [], allowsTokenExchange: true)
  static let outsider = TestClient(id: "outsider-app", redirectURIs: [])
  static let scope = "openid profile device_sso"

  static func harness(_ configure: (inout TestProvider.Configuration) -> Void = { _ in }) throws -> Harness {
    var configuration = TestProvider.Configuration()
    configuration.clients = [sibling, outsider]
    configure(&configuration)
    return try Harness(configuration: configuration, client: family)
  }

  /// The family's sign-in with `device_sso`: its tokens, ID token and device secret.
  static func signIn(_ harness: Harness) async throws -> (tokens: Harness.Tokens, idToken: String, deviceSecret: String)
  {
    let tokens = try await harness.signIn(scope: scope)
    return (tokens, try #require(tokens.idToken), try #require(tokens.json["device_secret"]?.stringValue))
  }

  /// The parameters of a sibling's exchange; `overrides` replace or (with an empty value) remove.
  static func exchangeParameters(
    idToken: String, deviceSecret: String, client: TestClient = sibling, overrides: [String: String] = [:]
  ) -> [(String, String)] {
    var parameters = [
      ("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"), ("subject_token", idToken),
      ("subject_token_type", "urn:ietf:params:oauth:token-type:id_token"), ("actor_token", deviceSecret),
      ("actor_token_type", "urn:openid:params:token-type:device-secret"), ("audience", "https://op.xid.test"),
      ("scope", "openid profile"), ("client_id", client.id),
    ]
    for (name, value) in overrides {
      parameters.removeAll { $0.0 == name }
      if !value.isEmpty { parameters.append((name, value)) }
    }
    return parameters
  }

  static func exchange(
    _ harness: Harness, idToken: String, deviceSecret: String, client: TestClient = sibling,
    overrides: [String: String] = [:], headers: HTTPHeaders = [:]
  ) async throws -> HTTPResponse {
    try await harness.post(
      .token, exchangeParameters(idToken: idToken, deviceSecret: deviceSecret, client: client, overrides: overrides),
      headers: headers)
  }

  // MARK: Device secrets

  @Test func aSignInWithDeviceSSOGetsADeviceSecretThatTheIDTokenBindsWithDsHashAndSid() async throws {
    let harness = try Self.harness()
    let (_, idToken, deviceSecret) = try await Self.signIn(harness)
    let claims = try await harness.verify(idToken)
    #expect(claims.deviceSecretHash == Harness.sha256Hash(deviceSecret))
    let sessionID = try #require(claims.sessionID)
    #expect(await harness.provider.isDeviceSessionAlive(sessionID))
    #expect(await harness.provider.issuedDeviceSecrets == [deviceSecret])
    #expect(await harness.provider.issuedSecrets.contains(deviceSecret))
    let discovery = try Harness.json(try await harness.get(.discovery))
    #expect(discovery["native_sso_supported"] == true)
    #expect(discovery["scopes_supported"]?.arrayValue?.contains("device_sso") == true)
    #expect(discovery["claims_supported"]?.arrayValue?.contains("ds_hash") == true)
  }

  @Test func withoutDeviceSSOOrWithNativeSSOOffNoDeviceSecretIsIssued() async throws {
    let plain = try await Self.harness().signIn(scope: "openid profile")
    #expect(plain.json["device_secret"] == nil)
    #expect(try Harness.decode(try #require(plain.idToken)).claims["ds_hash"] == nil)
    let off = try Self.harness { $0.nativeSSO.isSupported = false }
    let tokens = try await off.signIn(scope: Self.scope)
    #expect(tokens.json["device_secret"] == nil)
    #expect(try Harness.json(try await off.get(.discovery))["native_sso_supported"] == false)
  }

  @Test func aRefreshWithDeviceSSOReturnsTheDeviceSecretItWasSentOrANewOne() async throws {
    let harness = try Self.harness()
    let (tokens, _, deviceSecret) = try await Self.signIn(harness)
    let kept = try Harness.Tokens(
      await harness.post(
        .token,
        [
          ("grant_type", "refresh_token"), ("refresh_token", try #require(tokens.refreshToken)),
          ("device_secret", deviceSecret), ("client_id", Self.family.id),
        ]))
    #expect(kept.json["device_secret"]?.stringValue == deviceSecret)
    #expect(
      try Harness.decode(try #require(kept.idToken)).claims["ds_hash"]?.stringValue == Harness.sha256Hash(deviceSecret))
    // Without the secret (or with an invalid one) the provider issues a new one (draft 07 §3.4.3).
    let fresh = try Harness.Tokens(await harness.refresh(try #require(kept.refreshToken)))
    let new = try #require(fresh.json["device_secret"]?.stringValue)
    #expect(new != deviceSecret)
    #expect(try Harness.decode(try #require(fresh.idToken)).claims["ds_hash"]?.stringValue == Harness.sha256Hash(new))
  }

  @Test func aRefreshRotatesTheDeviceSecretWhenConfigured() async throws {
    let harness = try Self.harness { $0.nativeSSO.rotatesDeviceSecretOnRefresh = true }
    let (tokens, _, deviceSecret) = try await Self.signIn(harness)
    let rotated = try Harness.Tokens(
      await harness.post(
        .token,
        [
          ("grant_type", "refresh_token"), ("refresh_token", try #require(tokens.refreshToken)),
          ("device_secret", deviceSecret), ("client_id", Self.family.id),
        ]))
    let new = try #require(rotated.json["device_secret"]?.stringValue)
    #expect(new != deviceSecret)
    #expect(await harness.provider.isDeviceSecretValid(deviceSecret) == false)
    #expect(await harness.provider.isDeviceSecretValid(new))
  }

  // MARK: The exchange

  @Test func aSiblingExchangesTheFamilyIDTokenAndDeviceSecretForItsOwnTokens() async throws {
    let harness = try Self.harness()
    let (_, familyIDToken, deviceSecret) = try await Self.signIn(harness)
    let family = try await harness.verify(familyIDToken)
    let tokens = try Harness.Tokens(await Self.exchange(harness, idToken: familyIDToken, deviceSecret: deviceSecret))
    #expect(tokens.json["issued_token_type"] == "urn:ietf:params:oauth:token-type:access_token")
    #expect(tokens.json["token_type"] == "Bearer")
    #expect(tokens.json["device_secret"] == nil)
    #expect(tokens.refreshToken != nil)
    let claims = try await harness.verify(try #require(tokens.idToken))
    #expect(claims.audience == [Self.sibling.id])
    #expect(claims.authorizedParty == Self.sibling.id)
    #expect(claims.subject == family.subject)
    #expect(claims.sessionID == family.sessionID)
    #expect(claims.deviceSecretHash == Harness.sha256Hash(deviceSecret))
    #expect(claims.nonce == nil)
    #expect(claims.accessTokenHash == Harness.sha256Hash(tokens.accessToken))
    #expect(await harness.provider.counters.tokenExchanges == 1)
    // The sibling's access token works at the provider's resources.
    #expect(try await harness.get(.userInfo, bearer: tokens.accessToken).status == 200)
  }

  @Test func anExpiredFamilyIDTokenIsAcceptedWhileItsSessionIsAlive() async throws {
    let harness = try Self.harness()
    let (_, idToken, deviceSecret) = try await Self.signIn(harness)
    harness.clock.advance(by: .seconds(86_400))
    let claims = try await harness.verify(idToken)
    #expect(try #require(claims.expiresAt) < harness.clock.now)
    _ = try Harness.Tokens(await Self.exchange(harness, idToken: idToken, deviceSecret: deviceSecret))
  }

  /// A refusal of a sibling's exchange: what to change in the request, and the OAuth error.
  struct Refusal: Sendable, CustomTestStringConvertible {
    let name: String
    let overrides: [String: String]
    let error: String
    var testDescription: String { name }
  }

  static let refusals: [Refusal] = [
    Refusal(
      name: "the actor token type is not the device secret's",
      overrides: ["actor_token_type": "urn:x-oath:params:oauth:token-type:device-secret"], error: "invalid_request"),
    Refusal(name: "no actor token type", overrides: ["actor_token_type": ""], error: "invalid_request"),
    Refusal(name: "no actor token", overrides: ["actor_token": ""], error: "invalid_request"),
    Refusal(name: "no audience", overrides: ["audience": ""], error: "invalid_request"),
    Refusal(name: "another audience", overrides: ["audience": "https://api.example"], error: "invalid_target"),
    Refusal(name: "a scope without openid", overrides: ["scope": "profile"], error: "invalid_scope"),
    Refusal(
      name: "an unknown device secret", overrides: ["actor_token": "not-a-device-secret"], error: "invalid_grant"),
    Refusal(
      name: "an unsupported subject token type",
      overrides: ["subject_token_type": "urn:ietf:params:oauth:token-type:saml2"], error: "invalid_request"),
    Refusal(
      name: "a requested token type other than access tokens",
      overrides: ["requested_token_type": "urn:ietf:params:oauth:token-type:refresh_token"], error: "invalid_request"),
    Refusal(
      name: "a resource with a fragment", overrides: ["resource": "https://api.example/#x"], error: "invalid_target"),
  ]

  @Test(arguments: refusals)
  func everyCheckOfTheExchangeRefusesWithItsOAuthError(refusal: Refusal) async throws {
    let harness = try Self.harness()
    let (_, idToken, deviceSecret) = try await Self.signIn(harness)
    let response = try await Self.exchange(
      harness, idToken: idToken, deviceSecret: deviceSecret, overrides: refusal.overrides)
    #expect(response.status == 400)
    #expect(Harness.oauthError(response) == refusal.error)
    // Nothing was issued.
    #expect(await harness.provider.refreshTokens(issuedTo: "alice").count == 1)
  }

  @Test func onlyClientsAllowedToExchangeMaySignInFromTheFamily() async throws {
    let harness = try Self.harness()
    let (_, idToken, deviceSecret) = try await Self.signIn(harness)
    let outsider = try await Self.exchange(harness, idToken: idToken, deviceSecret: deviceSecret, client: Self.outsider)
    #expect(Harness.oauthError(outsider) == "unauthorized_client")
    // The family's client must share sign-ins too.
    await harness.provider.updateConfiguration { configuration in
      configuration.clients = configuration.clients.map {
        var client = $0
        if client.id == "family-app" { client.allowsTokenExchange = false }
        return client
      }
    }
    let unshared = try await Self.exchange(harness, idToken: idToken, deviceSecret: deviceSecret)
    #expect(Harness.oauthError(unshared) == "unauthorized_client")
  }

  @Test func theDsHashBindingTheSignatureAndTheIssuerOfTheIDTokenAreChecked() async throws {
    let harness = try Self.harness()
    let (_, idToken, deviceSecret) = try await Self.signIn(harness)
    // Another session's device secret: ds_hash and sid do not bind it.
    let (_, otherIDToken, otherSecret) = try await Self.signIn(try Self.harness())
    _ = otherIDToken
    let foreign = try await Self.exchange(harness, idToken: idToken, deviceSecret: otherSecret)
    #expect(Harness.oauthError(foreign) == "invalid_grant")
    await harness.provider.endUserSession()
    let (_, secondIDToken, secondSecret) = try await Self.signIn(harness)
    let crossed = try await Self.exchange(harness, idToken: idToken, deviceSecret: secondSecret)
    #expect(Harness.oauthError(crossed) == "invalid_request")
    _ = try Harness.Tokens(await Self.exchange(harness, idToken: secondIDToken, deviceSecret: secondSecret))
    // A forged signature, and an ID token another issuer signed.
    var parts = idToken.split(separator: ".").map(String.init)
    parts[2] = String(parts[2].reversed())
    let forged = try await Self.exchange(harness, idToken: parts.joined(separator: "."), deviceSecret: deviceSecret)
    #expect(Harness.oauthError(forged) == "invalid_request")
    let (_, strangerIDToken, _) = try await Self.signIn(
      try Harness(issuer: URL(string: "https://other.xid.test")!, client: Self.family))
    let stranger = try await Self.exchange(harness, idToken: strangerIDToken, deviceSecret: deviceSecret)
    #expect(Harness.oauthError(stranger) == "invalid_request")
  }

  @Test func aScopeThatNeedsConsentAsksForInteraction() async throws {
    let harness = try Self.harness { $0.nativeSSO.consentRequiredScopes = ["email"] }
    let (_, idToken, deviceSecret) = try await Self.signIn(harness)
    let response = try await Self.exchange(
      harness, idToken: idToken, deviceSecret: deviceSecret, overrides: ["scope": "openid email"])
    #expect(Harness.oauthError(response) == "interaction_required")
  }

  @Test func theLegacyDeviceSecretTokenTypeIsAcceptedWhenConfigured() async throws {
    let harness = try Self.harness { $0.nativeSSO.deviceSecretTypes = [.legacyDeviceSecret] }
    let (_, idToken, deviceSecret) = try await Self.signIn(harness)
    let draft = try await Self.exchange(harness, idToken: idToken, deviceSecret: deviceSecret)
    #expect(Harness.oauthError(draft) == "invalid_request")
    _ = try Harness.Tokens(
      await Self.exchange(
        harness, idToken: idToken, deviceSecret: deviceSecret,
        overrides: ["actor_token_type": "urn:x-oath:params:oauth:token-type:device-secret"]))
  }

  @Test func aDPoPProofOnTheExchangeBindsTheSiblingsTokensToItsKey() async throws {
    let harness = try Self.harness()
    let (_, idToken, deviceSecret) = try await Self.signIn(harness)
    let key = try Harness.dpopKey()
    let tokens = try Harness.Tokens(
      await Self.exchange(harness, idToken: idToken, deviceSecret: deviceSecret, headers: ["DPoP": harness.proof(key)]))
    #expect(tokens.json["token_type"] == "DPoP")
    let bearer = try await harness.get(.userInfo, bearer: tokens.accessToken)
    #expect(bearer.status == 401)
  }

  @Test func theDeviceSecretRotatesOnExchangeWhenConfigured() async throws {
    let harness = try Self.harness { $0.nativeSSO.rotatesDeviceSecretOnExchange = true }
    let (_, idToken, deviceSecret) = try await Self.signIn(harness)
    let tokens = try Harness.Tokens(await Self.exchange(harness, idToken: idToken, deviceSecret: deviceSecret))
    let rotated = try #require(tokens.json["device_secret"]?.stringValue)
    #expect(try await harness.verify(try #require(tokens.idToken)).deviceSecretHash == Harness.sha256Hash(rotated))
    #expect(await harness.provider.isDeviceSecretValid(deviceSecret) == false)
    let stale = try await Self.exchange(harness, idToken: idToken, deviceSecret: deviceSecret)
    #expect(Harness.oauthError(stale) == "invalid_grant")
  }

  // MARK: Family sign-out

  @Test func revokingTheDeviceSecretEndsTheDeviceSessionAndItsGrants() async throws {
    let harness = try Self.harness()
    let (tokens, idToken, deviceSecret) = try await Self.signIn(harness)
    let sibling = try Harness.Tokens(await Self.exchange(harness, idToken: idToken, deviceSecret: deviceSecret))
    // The sibling signs the family out: any app of the family may.
    let revocation = try await harness.post(.revocation, [("token", deviceSecret), ("client_id", Self.sibling.id)])
    #expect(revocation.status == 200)
    #expect(await harness.provider.revokedTokens == [deviceSecret])
    let sessionID = try #require(try await harness.verify(idToken).sessionID)
    #expect(await harness.provider.isDeviceSessionAlive(sessionID) == false)
    let after = try await Self.exchange(harness, idToken: idToken, deviceSecret: deviceSecret)
    #expect(Harness.oauthError(after) == "invalid_grant")
    #expect(Harness.oauthError(try await harness.refresh(try #require(tokens.refreshToken))) == "invalid_grant")
    let siblingRefresh = try await harness.post(
      .token,
      [
        ("grant_type", "refresh_token"), ("refresh_token", try #require(sibling.refreshToken)),
        ("client_id", Self.sibling.id),
      ])
    #expect(Harness.oauthError(siblingRefresh) == "invalid_grant")
    // A client outside the family may not.
    let (_, _, secondSecret) = try await Self.signIn(harness)
    let outsider = try await harness.post(.revocation, [("token", secondSecret), ("client_id", Self.outsider.id)])
    #expect(Harness.oauthError(outsider) == "unauthorized_client")
  }

  @Test func grantsOutliveTheDeviceSessionWhenConfiguredSo() async throws {
    let harness = try Self.harness { $0.nativeSSO.endsGrantsWithDeviceSession = false }
    let (tokens, idToken, deviceSecret) = try await Self.signIn(harness)
    let sessionID = try #require(try await harness.verify(idToken).sessionID)
    await harness.provider.endDeviceSession(sessionID)
    #expect(
      Harness.oauthError(try await Self.exchange(harness, idToken: idToken, deviceSecret: deviceSecret))
        == "invalid_grant")
    _ = try Harness.Tokens(await harness.refresh(try #require(tokens.refreshToken)))
  }

  @Test func endSessionWithAFamilyIDTokenEndsItsDeviceSession() async throws {
    let harness = try Self.harness()
    let (_, idToken, deviceSecret) = try await Self.signIn(harness)
    let response = try await harness.send(
      HTTPRequest(url: harness.provider.url(for: .endSession).appendingQuery([("id_token_hint", idToken)])))
    #expect(response.status == 200)
    #expect(await harness.provider.isDeviceSecretValid(deviceSecret) == false)
    #expect(
      Harness.oauthError(try await Self.exchange(harness, idToken: idToken, deviceSecret: deviceSecret))
        == "invalid_grant")
  }

  // MARK: Hostile modes

  @Test func wrongOrMissingDsHash() async throws {
    let harness = try Self.harness()
    try await harness.provider.misbehave(.wrongDeviceSecretHash, .once)
    let (_, wrong, wrongSecret) = try await Self.signIn(harness)
    #expect(try await harness.verify(wrong).deviceSecretHash != Harness.sha256Hash(wrongSecret))
    try await harness.provider.misbehave(.missingDeviceSecretHash, .once)
    let (_, missing, _) = try await Self.signIn(harness)
    #expect(try await harness.verify(missing).deviceSecretHash == nil)
    let (_, good, goodSecret) = try await Self.signIn(harness)
    #expect(try await harness.verify(good).deviceSecretHash == Harness.sha256Hash(goodSecret))
  }

  @Test func anExchangedIDTokenAboutAnotherSubjectOrForTheFamilysAudience() async throws {
    let harness = try Self.harness()
    let (_, idToken, deviceSecret) = try await Self.signIn(harness)
    try await harness.provider.misbehave(.otherSubjectOnExchange, .once)
    try await harness.provider.misbehave(.familyAudienceOnExchange, .once)
    // A sign-in does not use the exchange modes up.
    _ = try await Self.signIn(harness)
    let tokens = try Harness.Tokens(await Self.exchange(harness, idToken: idToken, deviceSecret: deviceSecret))
    let claims = try await harness.verify(try #require(tokens.idToken))
    #expect(claims.subject == TestProvider.Misbehavior.foreignSubject)
    #expect(claims.audience == [Self.family.id])
    #expect(claims.authorizedParty == Self.family.id)
  }

  @Test func aDeviceSecretAcceptedAfterFamilySignOut() async throws {
    let harness = try Self.harness()
    let (_, idToken, deviceSecret) = try await Self.signIn(harness)
    try await harness.provider.misbehave(.acceptsDeviceSecretAfterSignOut, .once)
    // A valid secret does not use the mode up.
    _ = try Harness.Tokens(await Self.exchange(harness, idToken: idToken, deviceSecret: deviceSecret))
    _ = try await harness.post(.revocation, [("token", deviceSecret), ("client_id", Self.family.id)])
    _ = try Harness.Tokens(await Self.exchange(harness, idToken: idToken, deviceSecret: deviceSecret))
    let after = try await Self.exchange(harness, idToken: idToken, deviceSecret: deviceSecret)
    #expect(Harness.oauthError(after) == "invalid_grant")
  }

  // MARK: Access tokens (RFC 8693 without Native SSO)

  @Test func anAccessTokenIsExchangedForANarrowerOneOrForAnIDTokenWithTokenTypeNA() async throws {
    let harness = try Self.harness()
    let tokens = try await harness.signIn(scope: "openid profile email")
    let narrower = try Harness.Tokens(
      await harness.post(
        .token,
        [
          ("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"), ("subject_token", tokens.accessToken),
          ("subject_token_type", "urn:ietf:params:oauth:token-type:access_token"), ("scope", "profile"),
          ("audience", "payments"), ("audience", "ledger"), ("resource", "https://payments.example"),
          ("client_id", Self.family.id),
        ]))
    #expect(narrower.json["issued_token_type"] == "urn:ietf:params:oauth:token-type:access_token")
    #expect(narrower.json["scope"] == "profile")
    #expect(narrower.refreshToken == nil)
    #expect(
      await harness.provider.audiences(ofAccessToken: narrower.accessToken)
        == ["payments", "ledger", "https://payments.example"])
    let wider = try await harness.post(
      .token,
      [
        ("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"), ("subject_token", tokens.accessToken),
        ("subject_token_type", "urn:ietf:params:oauth:token-type:access_token"), ("scope", "admin"),
        ("client_id", Self.family.id),
      ])
    #expect(Harness.oauthError(wider) == "invalid_scope")
    let idToken = try Harness.Tokens(
      await harness.post(
        .token,
        [
          ("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"), ("subject_token", tokens.accessToken),
          ("subject_token_type", "urn:ietf:params:oauth:token-type:access_token"),
          ("requested_token_type", "urn:ietf:params:oauth:token-type:id_token"), ("client_id", Self.family.id),
        ]))
    #expect(idToken.json["token_type"] == "N_A")
    #expect(idToken.json["issued_token_type"] == "urn:ietf:params:oauth:token-type:id_token")
    #expect(try await harness.verify(idToken.accessToken).audience == [Self.family.id])
    // Another client's access token is not this client's to exchange.
    let other = try await harness.post(
      .token,
      [
        ("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"), ("subject_token", tokens.accessToken),
        ("subject_token_type", "urn:ietf:params:oauth:token-type:access_token"), ("client_id", Self.sibling.id),
      ])
    #expect(Harness.oauthError(other) == "invalid_request")
  }
}
