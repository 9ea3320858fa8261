import Foundation
import Testing
import XidTestSupport

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

/// RFC 8693 token exchange as OpenIDClient sends and reads it, against a scripted provider.
struct TokenExchangeTests {
  static let familyIDToken = "FAMILY.idtoken.secret"
  static let deviceSecret = "DS-device-secret-1"

  /// The form parameters of a request, in order, repeats kept.
  static func pairs(_ request: HTTPRequest) -> [String] {
    FormEncoding.decode(String(decoding: request.body, as: UTF8.self)).map { "\($0.0)=\($0.1)" }.sorted()
  }

  /// A provider whose token endpoint answers every exchange with `body`.
  static func provider(answering body: JSONValue, status: Int = 200) throws -> FakeProvider {
    let provider = try FakeProvider()
    provider.on("/token") { _ in .json(body, status: status) }
    return provider
  }

  static let accessTokenAnswer: JSONValue = [
    "access_token": "AT-exchanged-1", "issued_token_type": "urn:ietf:params:oauth:token-type:access_token",
    "token_type": "Bearer", "expires_in": 600, "scope": "payments:read",
  ]

  @Test(arguments: [TokenTypeIdentifier.deviceSecret, .legacyDeviceSecret])
  func theNativeSSOExchangeSendsExactlyTheDraftsParameters(deviceSecretType: TokenTypeIdentifier) async throws {
    let provider = try Self.provider(answering: Self.accessTokenAnswer)
    let client = try provider.client()
    _ = try await client.exchange(
      .nativeSSO(
        idToken: Self.familyIDToken, deviceSecret: Self.deviceSecret, issuer: FakeProvider.issuer,
        scopes: ["profile"], deviceSecretType: deviceSecretType))
    let request = try #require(provider.transport.requests(to: "/token").first)
    #expect(request.method == "POST")
    #expect(request.headers["Content-Type"] == "application/x-www-form-urlencoded")
    #expect(
      Self.pairs(request)
        == [
          "actor_token=\(Self.deviceSecret)", "actor_token_type=\(deviceSecretType.rawValue)",
          "audience=https://op.example", "client_id=client-1",
          "grant_type=urn:ietf:params:oauth:grant-type:token-exchange", "scope=openid profile",
          "subject_token=\(Self.familyIDToken)", "subject_token_type=urn:ietf:params:oauth:token-type:id_token",
        ])
  }

  @Test func severalAudiencesAndResourcesAreSentAsRepeatedParameters() async throws {
    let provider = try Self.provider(answering: Self.accessTokenAnswer)
    let client = try provider.client { $0.identity.clientAuthentication = .clientSecretBasic(secret: "s3cret") }
    _ = try await client.exchange(
      TokenExchangeRequest(
        subjectToken: "AT-subject-1", subjectTokenType: .accessToken, requestedTokenType: .accessToken,
        audiences: ["payments", "ledger"],
        resources: [URL(string: "https://payments.example/api")!, URL(string: "https://ledger.example")!],
        scopes: ["payments:read"]))
    let request = try #require(provider.transport.requests(to: "/token").first)
    #expect(request.headers["Authorization"]?.hasPrefix("Basic ") == true)
    #expect(
      Self.pairs(request)
        == [
          "audience=ledger", "audience=payments", "grant_type=urn:ietf:params:oauth:grant-type:token-exchange",
          "requested_token_type=urn:ietf:params:oauth:token-type:access_token", "resource=https://ledger.example",
          "resource=https://payments.example/api", "scope=payments:read", "subject_token=AT-subject-1",
          "subject_token_type=urn:ietf:params:oauth:token-type:access_token",
        ])
  }

  @Test func theTypedResultKeepsEveryMemberOfTheAnswer() async throws {
    let provider = try FakeProvider()
    provider.on("/token") { provider, _ in
      let idToken = try provider.idToken(nonce: nil, accessToken: "AT-exchanged-1", ["sid": "sid-1", "ds_hash": "h"])
      return .json([
        "access_token": "AT-exchanged-1", "issued_token_type": "urn:ietf:params:oauth:token-type:access_token",
        "token_type": "bearer", "expires_in": "600", "scope": "openid profile", "refresh_token": "RT-exchanged-1",
        "id_token": .string(idToken), "device_secret": "DS-rotated-2", "x-vendor": 1,
      ])
    }
    let client = try provider.client()
    let result = try await client.exchange(
      .nativeSSO(idToken: Self.familyIDToken, deviceSecret: Self.deviceSecret, issuer: FakeProvider.issuer))
    let tokens = result.tokens
    #expect(tokens.accessToken == "AT-exchanged-1")
    #expect(tokens.issuedTokenType == .accessToken)
    #expect(tokens.tokenType == .bearer)
    #expect(tokens.tokenType.accessTokenType == .bearer)
    #expect(tokens.expiresIn == .seconds(600))
    #expect(tokens.expiresAt == provider.clock.now.addingTimeInterval(600))
    #expect(tokens.scope == ["openid", "profile"])
    #expect(tokens.refreshToken == "RT-exchanged-1")
    #expect(tokens.deviceSecret == "DS-rotated-2")
    #expect(tokens.raw["x-vendor"] == 1)
    let idToken = try #require(result.idToken)
    #expect(idToken.subject == "alice")
    #expect(idToken.sessionID == "sid-1")
    #expect(idToken.deviceSecretHash == "h")
  }

  @Test func anIssuedIDTokenWithTokenTypeNAIsValidatedAsTheResultsIDToken() async throws {
    let provider = try FakeProvider()
    provider.on("/token") { provider, _ in
      .json([
        "access_token": .string(try provider.idToken(nonce: nil)),
        "issued_token_type": "urn:ietf:params:oauth:token-type:id_token", "token_type": "N_A",
      ])
    }
    let client = try provider.client()
    let result = try await client.exchange(
      TokenExchangeRequest(subjectToken: "AT-subject-1", subjectTokenType: .accessToken, requestedTokenType: .idToken))
    #expect(result.tokens.tokenType == .notApplicable)
    #expect(result.tokens.tokenType.accessTokenType == nil)
    #expect(result.tokens.issuedTokenType == .idToken)
    #expect(result.idToken?.subject == "alice")
    #expect(result.idToken?.compact == result.tokens.accessToken)
  }

  @Test(arguments: ["N_A", "n_a", "Bearer", "DPoP", "dpop"])
  func exchangedTokenTypesAreReadCaseInsensitively(type: String) throws {
    let response = try TokenExchangeResponse(
      json: ["access_token": "a", "issued_token_type": "urn:example:assertion", "token_type": .string(type)],
      receivedAt: Date())
    #expect(response.tokenType.rawValue.lowercased() == type.lowercased())
    #expect(ExchangedTokenType(parsing: type)?.description == response.tokenType.rawValue)
  }

  static let malformedAnswers: [JSONValue] = [
    ["issued_token_type": "urn:ietf:params:oauth:token-type:access_token", "token_type": "Bearer"],
    ["access_token": "a", "token_type": "Bearer"],
    ["access_token": "a", "issued_token_type": "", "token_type": "Bearer"],
    ["access_token": "a", "issued_token_type": "urn:ietf:params:oauth:token-type:access_token"],
    ["access_token": "a", "issued_token_type": "urn:ietf:params:oauth:token-type:access_token", "token_type": "mac"],
    ["access_token": "a", "issued_token_type": "urn:ietf:params:oauth:token-type:access_token", "token_type": "N_A"],
    [
      "access_token": "a", "issued_token_type": "urn:ietf:params:oauth:token-type:access_token", "token_type": "Bearer",
      "device_secret": 7,
    ],
    [
      "access_token": "a", "issued_token_type": "urn:ietf:params:oauth:token-type:access_token", "token_type": "Bearer",
      "expires_in": "soon",
    ],
  ]

  @Test(arguments: malformedAnswers)
  func anAnswerThatIsNotATokenExchangeResponseIsRefused(body: JSONValue) async throws {
    let provider = try Self.provider(answering: body)
    let client = try provider.client()
    await expectXidError(.invalidTokenResponse) {
      try await client.exchange(TokenExchangeRequest(subjectToken: "AT-subject-1", subjectTokenType: .accessToken))
    }
  }

  @Test(arguments: [
    "invalid_grant", "invalid_request", "invalid_target", "unauthorized_client", "interaction_required",
  ])
  func aRefusalIsTypedAndNeverShowsTheSubjectOrActorToken(error: String) async throws {
    let provider = try Self.provider(
      answering: [
        "error": .string(error),
        "error_description": .string("refused \(Self.familyIDToken) with \(Self.deviceSecret)"),
      ], status: 400)
    let client = try provider.client()
    let refusal = await expectXidError(.tokenRequestFailed) {
      try await client.exchange(
        .nativeSSO(idToken: Self.familyIDToken, deviceSecret: Self.deviceSecret, issuer: FakeProvider.issuer))
    }
    #expect(refusal?.oauthError == error)
    #expect(refusal?.httpStatus == 400)
    #expect(refusal?.isInvalidGrant == (error == "invalid_grant"))
    for text in ["\(String(describing: refusal))", refusal?.reason ?? ""] {
      #expect(!text.contains(Self.familyIDToken) && !text.contains(Self.deviceSecret), "\(text)")
    }
  }

  static let invalidRequests: [TokenExchangeRequest] = [
    TokenExchangeRequest(subjectToken: "", subjectTokenType: .accessToken),
    TokenExchangeRequest(subjectToken: "s", subjectTokenType: .idToken, actorToken: "a"),
    TokenExchangeRequest(subjectToken: "s", subjectTokenType: .idToken, actorTokenType: .deviceSecret),
    TokenExchangeRequest(subjectToken: "s", subjectTokenType: .accessToken, audiences: [""]),
    TokenExchangeRequest(
      subjectToken: "s", subjectTokenType: .accessToken, resources: [URL(string: "https://api.example/#part")!]),
    TokenExchangeRequest(subjectToken: "s", subjectTokenType: .accessToken, resources: [URL(string: "relative/path")!]),
    TokenExchangeRequest(subjectToken: "s", subjectTokenType: .accessToken, scopes: ["two words"]),
    TokenExchangeRequest(subjectToken: "s", subjectTokenType: .accessToken, scopes: ["offline_access"]),
  ]

  @Test(arguments: invalidRequests)
  func anInvalidRequestIsRefusedBeforeAnythingIsSent(request: TokenExchangeRequest) async throws {
    let provider = try Self.provider(answering: Self.accessTokenAnswer)
    let client = try provider.client()
    await expectXidError(.invalidConfiguration) { try await client.exchange(request) }
    #expect(provider.transport.requests.isEmpty)
  }

  /// A provider that accepts ES256 proofs and answers with a token of `tokenType`.
  static func dpopProvider(tokenType: String) throws -> FakeProvider {
    let provider = try FakeProvider()
    provider.metadataChanges.set(["dpop_signing_alg_values_supported": ["ES256"]])
    provider.on("/token") { _ in
      .json([
        "access_token": "AT-exchanged-1", "issued_token_type": "urn:ietf:params:oauth:token-type:access_token",
        "token_type": .string(tokenType), "refresh_token": "RT-exchanged-1",
      ])
    }
    return provider
  }

  @Test func withADPoPKeyTheExchangeCarriesAProofAndNeedsABoundAnswer() async throws {
    let key = try DPoPProofTests.key()
    let provider = try Self.dpopProvider(tokenType: "DPoP")
    let client = try provider.client { $0.usesDPoP = true }
    await expectXidError(.invalidConfiguration) {
      try await client.exchange(TokenExchangeRequest(subjectToken: "AT-subject-1", subjectTokenType: .accessToken))
    }
    let result = try await client.exchange(
      TokenExchangeRequest(subjectToken: "AT-subject-1", subjectTokenType: .accessToken), dpopKey: key)
    #expect(result.tokens.tokenType == .dpop)
    let request = try #require(provider.transport.requests(to: "/token").first)
    let proof = try CompactJWS(parsing: try #require(request.headers["DPoP"]))
    #expect(proof.header.type == "dpop+jwt")
    let claims = try JWTClaims(payload: proof.payload)
    #expect(claims["htu"]?.stringValue == "https://op.example/token")
    #expect(claims["htm"]?.stringValue == "POST")
    #expect(claims["ath"] == nil)

    let bearer = try Self.dpopProvider(tokenType: "Bearer")
    let unbound = try bearer.client { $0.usesDPoP = true }
    await expectXidError(.dpopTokenUnbound) {
      try await unbound.exchange(
        TokenExchangeRequest(subjectToken: "AT-subject-1", subjectTokenType: .accessToken), dpopKey: key)
    }
    // Nothing kept: both new tokens were revoked.
    let revoked = bearer.transport.requests(to: "/revoke").map { $0.form["token"] }
    #expect(revoked == ["RT-exchanged-1", "AT-exchanged-1"])
  }

  @Test func anIDTokenAboutAnotherUserThanTheSubjectTokenIsRefusedAndItsTokensRevoked() async throws {
    let provider = try FakeProvider()
    let family = try provider.idToken(nonce: nil, ["sub": "alice", "aud": "family-app"])
    provider.on("/token") { provider, _ in
      .json([
        "access_token": "AT-exchanged-1", "issued_token_type": "urn:ietf:params:oauth:token-type:access_token",
        "token_type": "Bearer", "refresh_token": "RT-exchanged-1",
        "id_token": .string(try provider.idToken(nonce: nil, accessToken: "AT-exchanged-1", ["sub": "mallory"])),
      ])
    }
    let client = try provider.client()
    let error = await expectXidError(.foreignTokenResponse) {
      try await client.exchange(
        .nativeSSO(idToken: family, deviceSecret: Self.deviceSecret, issuer: FakeProvider.issuer))
    }
    #expect(error?.reason.contains(family) == false)
    #expect(
      provider.transport.requests(to: "/revoke").map { $0.form["token"] } == ["RT-exchanged-1", "AT-exchanged-1"])
  }

  @Test func anExchangedIDTokenForAnotherAudienceIsRefused() async throws {
    let provider = try FakeProvider()
    provider.on("/token") { provider, _ in
      .json([
        "access_token": "AT-exchanged-1", "issued_token_type": "urn:ietf:params:oauth:token-type:access_token",
        "token_type": "Bearer",
        "id_token": .string(try provider.idToken(nonce: nil, accessToken: "AT-exchanged-1", ["aud": "family-app"])),
      ])
    }
    let client = try provider.client()
    await expectXidError(.invalidIDToken) {
      try await client.exchange(
        .nativeSSO(idToken: Self.familyIDToken, deviceSecret: Self.deviceSecret, issuer: FakeProvider.issuer))
    }
    #expect(provider.transport.requests(to: "/revoke").map { $0.form["token"] } == ["AT-exchanged-1"])
  }

  @Test func aSignInKeepsTheDeviceSecretOfItsAnswer() async throws {
    let provider = try FakeProvider()
    provider.on("/token") { provider, _ in
      var body = try #require(try JSONValue(parsing: Array(provider.tokenResponse().body)).objectValue)
      body["device_secret"] = "DS-device-secret-1"
      return .json(.object(body))
    }
    let client = try provider.client()
    let (redirect, pending) = try await provider.authorize(client)
    let result = try await client.handleRedirect(url: redirect, pending: [pending])
    #expect(result.tokens.deviceSecret == "DS-device-secret-1")
    #expect("\(result.tokens)".contains("deviceSecret: yes"))
    let none = try TokenResponse(json: ["access_token": "a", "token_type": "Bearer"], receivedAt: Date())
    #expect(none.deviceSecret == nil)
  }

  @Test func dsHashIsCheckedByAtHashsRuleOnlyWhereThePolicyKnowsTheDerivation() async throws {
    let signer = try JWSSigningKey.generate(for: .es256)
    func idToken(_ claims: [String: JSONValue]) throws -> IDToken {
      var all: [String: JSONValue] = ["iss": "https://op.example", "sub": "alice", "aud": "client-1", "sid": "sid-1"]
      all.merge(claims) { $1 }
      return try IDToken(restoring: signer.sign(claims: all))
    }
    let bound = try idToken(["ds_hash": .string(TokenHash.value(for: Self.deviceSecret, algorithm: .es256))])
    #expect(bound.deviceSecretHash == TokenHash.value(for: Self.deviceSecret, algorithm: .es256))
    #expect(bound.sessionID == "sid-1")
    try bound.checkDeviceSecret(Self.deviceSecret, rule: .atHashRule)
    try bound.checkDeviceSecret(Self.deviceSecret, rule: .providerDefined)
    let mismatch = expectXidError(.deviceSecretMismatch) {
      try bound.checkDeviceSecret("DS-another-secret", rule: .atHashRule)
    }
    #expect(mismatch?.reason.contains(Self.deviceSecret) == false)
    // An unknown derivation cannot be recomputed, but ds_hash is still required.
    try bound.checkDeviceSecret("DS-another-secret", rule: .providerDefined)
    let missing = try idToken([:])
    #expect(missing.deviceSecretHash == nil)
    for rule in [DeviceSecretHashRule.providerDefined, .atHashRule] {
      expectXidError(.deviceSecretMismatch) { try missing.checkDeviceSecret(Self.deviceSecret, rule: rule) }
    }
    // The client applies the policy's rule.
    let provider = try FakeProvider()
    let strict = try provider.client { $0.policy.deviceSecretHashRule = .atHashRule }
    expectXidError(.deviceSecretMismatch) { try strict.checkDeviceSecret("DS-another-secret", boundTo: bound) }
    try provider.client().checkDeviceSecret("DS-another-secret", boundTo: bound)
    // A ds_hash that is not a string makes the claims malformed.
    expectXidError(.invalidClaims) { try JWTClaims(raw: ["ds_hash": 1]) }
  }

  @Test func nativeSSOSupportIsReadFromTheDiscoveryDocument() async throws {
    let provider = try FakeProvider()
    #expect(try await provider.client().metadata().nativeSSOSupported == false)
    #expect(try await provider.client().metadata().supportsTokenExchange == false)
    provider.metadataChanges.set([
      "native_sso_supported": true,
      "grant_types_supported": ["authorization_code", "urn:ietf:params:oauth:grant-type:token-exchange"],
    ])
    let metadata = try await provider.client().metadata()
    #expect(metadata.nativeSSOSupported)
    #expect(metadata.supportsTokenExchange)
  }

  @Test func theNativeSSORequestAddsOpenIDToItsScopesAndNamesTheIssuerAsAudience() {
    let request = TokenExchangeRequest.nativeSSO(
      idToken: "id", deviceSecret: "ds", issuer: "https://op.example", scopes: ["profile", "openid"])
    #expect(request.scopes == ["openid", "profile"])
    #expect(request.audiences == ["https://op.example"])
    #expect(request.subjectTokenType == .idToken)
    #expect(request.actorTokenType == .deviceSecret)
    #expect(TokenExchangeRequest.nativeSSO(idToken: "id", deviceSecret: "ds", issuer: "i").scopes == nil)
    #expect(TokenTypeIdentifier.deviceSecret.rawValue == "urn:openid:params:token-type:device-secret")
    #expect(TokenTypeIdentifier.legacyDeviceSecret.rawValue == "urn:x-oath:params:oauth:token-type:device-secret")
    let literal: TokenTypeIdentifier = "urn:example:custom"
    #expect(literal == TokenTypeIdentifier("urn:example:custom"))
  }
}
