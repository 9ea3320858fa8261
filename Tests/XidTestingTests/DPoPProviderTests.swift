import Foundation
import Testing
import XidCore
import XidTesting

/// The test provider checks DPoP proofs as a strict server does (RFC 9449), so that clients tested
/// against it pass against glewlwyd and the like.
struct DPoPProviderTests {
  @Test func aProofAtTheTokenEndpointBindsTheTokensToItsKey() async throws {
    let harness = try Harness()
    let key = try Harness.dpopKey()
    let tokens = try await harness.signInDPoP(key)
    #expect(tokens.json["token_type"] == "DPoP")

    let proof = try harness.proof(key, "GET", .resource, accessToken: tokens.accessToken)
    let response = try await harness.getDPoP(.resource, token: tokens.accessToken, proof: proof)
    #expect(response.status == 200)
    let body = try Harness.json(response)
    #expect(body["cnf"]?["jkt"]?.stringValue == key.thumbprint)
    #expect(body["token_type"] == "DPoP")

    let asBearer = try await harness.get(.resource, bearer: tokens.accessToken)
    #expect(asBearer.status == 401)
    #expect(Harness.challengeError(asBearer) == "invalid_token")
    #expect(await harness.provider.counters.dpopProofsAccepted == 2)
  }

  @Test func discoveryAdvertisesES256ForProofs() async throws {
    let harness = try Harness()
    let document = try Harness.json(try await harness.get(.discovery))
    #expect(document["dpop_signing_alg_values_supported"] == ["ES256"])
    var configuration = TestProvider.Configuration()
    configuration.dpop.signingAlgorithms = nil
    let silent = try Harness(configuration: configuration)
    #expect(try Harness.json(try await silent.get(.discovery))["dpop_signing_alg_values_supported"] == nil)
  }

  enum BadProof: String, CaseIterable, Sendable {
    case otherMethod, trailingSlashInTarget, otherTarget, noAccessTokenHash, otherAccessTokenHash,
      issuedAheadOfTheClock,
      tooOld, otherKey, noProof, notDPoPType, privateKeyInHeader, unsignedHeaderKey
  }

  @Test(arguments: BadProof.allCases)
  func theResourceRefusesAProofThatDoesNotFitTheRequest(_ bad: BadProof) async throws {
    let harness = try Harness()
    let key = try Harness.dpopKey()
    let tokens = try await harness.signInDPoP(key)
    let token = tokens.accessToken
    let resource = harness.provider.url(for: .resource)
    let proof: String?
    switch bad {
    case .otherMethod: proof = try harness.proof(key, "POST", .resource, accessToken: token)
    case .trailingSlashInTarget:
      proof = try harness.proof(key, "GET", accessToken: token, url: URL(string: resource.absoluteString + "/")!)
    case .otherTarget: proof = try harness.proof(key, "GET", .userInfo, accessToken: token)
    case .noAccessTokenHash: proof = try harness.proof(key, "GET", .resource)
    case .otherAccessTokenHash: proof = try harness.proof(key, "GET", .resource, accessToken: token + "x")
    case .issuedAheadOfTheClock:
      proof = try harness.proof(key, "GET", .resource, accessToken: token, issuedAt: harness.clock.now + 1)
    case .tooOld:
      proof = try harness.proof(key, "GET", .resource, accessToken: token, issuedAt: harness.clock.now - 61)
    case .otherKey: proof = try harness.proof(try Harness.dpopKey(), "GET", .resource, accessToken: token)
    case .noProof: proof = nil
    case .notDPoPType, .privateKeyInHeader, .unsignedHeaderKey:
      proof = try Self.handMadeProof(bad, harness: harness, key: key, accessToken: token)
    }
    let response = try await harness.getDPoP(.resource, token: token, proof: proof)
    #expect(response.status == 401)
    #expect(Harness.challengeError(response) == "invalid_dpop_proof")
    #expect(await harness.provider.counters.dpopProofsRefused == 1)
  }

  /// Proofs no DPoPKey makes: another `typ`, a private key in the header, a header key that did not
  /// sign.
  static func handMadeProof(_ bad: BadProof, harness: Harness, key: any DPoPKey, accessToken: String) throws
    -> String
  {
    let signer = try JWSSigningKey.generate(for: .es256)
    let exported = try JSONValue(parsing: Array(try SoftwareDPoPKeyFactory().makeKey().storedForm.utf8))
    var jwk = signer.publicJWK.members.filter { ["kty", "crv", "x", "y"].contains($0.key) }
    var type = "dpop+jwt"
    switch bad {
    case .notDPoPType: type = "JWT"
    case .privateKeyInHeader: jwk["d"] = exported["d"]
    default: jwk = key.publicJWK.members  // signed by `signer`, not by this key
    }
    let claims: [String: JSONValue] = [
      "jti": .string(Base64URL.encode(try XidCrypto.randomBytes(count: 16))), "htm": "GET",
      "htu": .string(harness.provider.url(for: .resource).absoluteString),
      "iat": .int(Int64(harness.clock.now.timeIntervalSince1970)),
      "ath": .string(DPoPProof.accessTokenHash(accessToken)),
    ]
    return try signer.sign(claims: claims, header: ["typ": .string(type), "jwk": .object(jwk)])
  }

  @Test func aReplayedProofIsRefused() async throws {
    let harness = try Harness()
    let key = try Harness.dpopKey()
    let tokens = try await harness.signInDPoP(key)
    let proof = try harness.proof(key, "GET", .resource, accessToken: tokens.accessToken)
    #expect(try await harness.getDPoP(.resource, token: tokens.accessToken, proof: proof).status == 200)
    let again = try await harness.getDPoP(.resource, token: tokens.accessToken, proof: proof)
    #expect(again.status == 401)
    #expect(Harness.challengeError(again) == "invalid_dpop_proof")
  }

  @Test func aCodeBoundWithDpopJktIsRedeemedOnlyWithThatKey() async throws {
    let harness = try Harness()
    let key = try Harness.dpopKey()
    let (code, verifier) = try await harness.dpopCode(jkt: key.thumbprint)
    let withoutProof = try await harness.exchange(code: code, verifier: verifier, proof: nil)
    #expect(withoutProof.status == 400)
    #expect(Harness.oauthError(withoutProof) == "invalid_dpop_proof")
    let otherKey = try await harness.exchange(
      code: code, verifier: verifier, proof: harness.proof(try Harness.dpopKey()))
    #expect(Harness.oauthError(otherKey) == "invalid_dpop_proof")
    // The refusals did not use the code up.
    let tokens = try Harness.Tokens(await harness.exchange(code: code, verifier: verifier, proof: harness.proof(key)))
    #expect(tokens.json["token_type"] == "DPoP")
  }

  @Test func aPublicClientsRefreshTokenIsBoundToTheKey() async throws {
    let harness = try Harness()
    let key = try Harness.dpopKey()
    let tokens = try await harness.signInDPoP(key)
    let refreshToken = try #require(tokens.refreshToken)
    #expect(Harness.oauthError(try await harness.refresh(refreshToken, proof: nil)) == "invalid_dpop_proof")
    let otherKey = try await harness.refresh(refreshToken, proof: harness.proof(try Harness.dpopKey()))
    #expect(Harness.oauthError(otherKey) == "invalid_dpop_proof")
    let refreshed = try Harness.Tokens(await harness.refresh(refreshToken, proof: harness.proof(key)))
    #expect(refreshed.json["token_type"] == "DPoP")
    // The rotated refresh token stays bound.
    let next = try #require(refreshed.refreshToken)
    #expect(Harness.oauthError(try await harness.refresh(next, proof: nil)) == "invalid_dpop_proof")
  }

  @Test func anUnboundRefreshTokenOfAPublicClientCannotBeBoundLater() async throws {
    let harness = try Harness()
    let tokens = try await harness.signIn()
    let response = try await harness.refresh(
      try #require(tokens.refreshToken), proof: harness.proof(try Harness.dpopKey()))
    #expect(Harness.oauthError(response) == "invalid_dpop_proof")
  }

  @Test func aClientThatRequiresDPoPGetsNoTokensWithoutAProof() async throws {
    var client = TestClient.example
    client.id = "dpop-only"
    client.requiresDPoP = true
    let harness = try Harness(client: client)
    let (code, verifier) = try await harness.dpopCode(jkt: nil)
    #expect(
      Harness.oauthError(try await harness.exchange(code: code, verifier: verifier, proof: nil)) == "invalid_dpop_proof"
    )
  }

  @Test func noncesAreDemandedAtTheTokenEndpointWithoutUsingTheCodeUp() async throws {
    var configuration = TestProvider.Configuration()
    configuration.dpop.requiresNonce = true
    let harness = try Harness(configuration: configuration)
    let key = try Harness.dpopKey()
    let (code, verifier) = try await harness.dpopCode(jkt: key.thumbprint)
    let challenge = try await harness.exchange(code: code, verifier: verifier, proof: harness.proof(key))
    #expect(challenge.status == 400)
    #expect(Harness.oauthError(challenge) == "use_dpop_nonce")
    let nonce = try #require(challenge.headers["DPoP-Nonce"])
    let tokens = try Harness.Tokens(
      await harness.exchange(code: code, verifier: verifier, proof: harness.proof(key, nonce: nonce)))
    #expect(tokens.json["token_type"] == "DPoP")
    #expect(await harness.provider.counters.dpopNonceChallenges == 1)
  }

  @Test func noncesAreRotatedAndAnnouncedAfterTheirUses() async throws {
    var configuration = TestProvider.Configuration()
    configuration.dpop.requiresNonce = true
    configuration.dpop.nonceUses = 2
    let harness = try Harness(configuration: configuration)
    let key = try Harness.dpopKey()
    let (code, verifier) = try await harness.dpopCode(jkt: key.thumbprint)
    let first = try await harness.exchange(code: code, verifier: verifier, proof: harness.proof(key))
    let nonce = try #require(first.headers["DPoP-Nonce"])
    let tokens = try Harness.Tokens(
      await harness.exchange(code: code, verifier: verifier, proof: harness.proof(key, nonce: nonce)))
    #expect(tokens.json["token_type"] == "DPoP")
    // The second use of the nonce rotates it; the answer announces the new one.
    let resource = try await harness.getDPoP(
      .resource, token: tokens.accessToken,
      proof: harness.proof(key, "GET", .resource, accessToken: tokens.accessToken, nonce: nonce))
    #expect(resource.status == 200)
    let rotated = try #require(resource.headers["DPoP-Nonce"])
    #expect(rotated != nonce)
    let stale = try await harness.getDPoP(
      .resource, token: tokens.accessToken,
      proof: harness.proof(key, "GET", .resource, accessToken: tokens.accessToken, nonce: nonce))
    #expect(stale.status == 401)
    #expect(Harness.challengeError(stale) == "use_dpop_nonce")
    #expect(stale.headers["DPoP-Nonce"] == rotated)
  }

  @Test func rotatingTheNonceMakesTheNextProofAskForIt() async throws {
    var configuration = TestProvider.Configuration()
    configuration.dpop.requiresNonce = true
    let harness = try Harness(configuration: configuration)
    let key = try Harness.dpopKey()
    let (code, verifier) = try await harness.dpopCode(jkt: key.thumbprint)
    let nonce = try #require(
      try await harness.exchange(code: code, verifier: verifier, proof: harness.proof(key)).headers["DPoP-Nonce"])
    let tokens = try Harness.Tokens(
      await harness.exchange(code: code, verifier: verifier, proof: harness.proof(key, nonce: nonce)))
    let fresh = try await harness.provider.rotateDPoPNonce()
    let response = try await harness.getDPoP(
      .resource, token: tokens.accessToken,
      proof: harness.proof(key, "GET", .resource, accessToken: tokens.accessToken, nonce: nonce))
    #expect(Harness.challengeError(response) == "use_dpop_nonce")
    #expect(response.headers["DPoP-Nonce"] == fresh)
  }

  @Test func faultsDemandANonceRefuseAReplayAndAnswerBearer() async throws {
    let harness = try Harness()
    let key = try Harness.dpopKey()
    let tokens = try await harness.signInDPoP(key)
    func call() async throws -> HTTPResponse {
      try await harness.getDPoP(
        .resource, token: tokens.accessToken,
        proof: harness.proof(
          key, "GET", .resource, accessToken: tokens.accessToken, nonce: await harness.provider.dpopNonce))
    }
    try await harness.provider.misbehave(.demandDPoPNonce, .once)
    let demanded = try await call()
    #expect(Harness.challengeError(demanded) == "use_dpop_nonce")
    #expect(demanded.headers["DPoP-Nonce"] != nil)
    #expect(try await call().status == 200)

    try await harness.provider.misbehave(.replayedDPoPProof, .once)
    #expect(Harness.challengeError(try await call()) == "invalid_dpop_proof")
    #expect(try await call().status == 200)

    try await harness.provider.misbehave(.bearerTokenForDPoPRequest, .once)
    let unbound = try Harness.Tokens(
      await harness.refresh(try #require(tokens.refreshToken), proof: harness.proof(key)))
    #expect(unbound.json["token_type"] == "Bearer")
    #expect(try await harness.get(.resource, bearer: unbound.accessToken).status == 200)
  }

  @Test func aPushedRequestWithAProofBindsTheCode() async throws {
    let harness = try Harness()
    let key = try Harness.dpopKey()
    let pkce = try Harness.PKCE()
    let pushed = try await harness.post(
      .pushedAuthorization, harness.authorizationParameters(pkce: pkce),
      headers: ["DPoP": try harness.proof(key, "POST", .pushedAuthorization)])
    #expect(pushed.status == 201)
    let requestURI = try #require(try Harness.json(pushed)["request_uri"]?.stringValue)
    let callback = try await harness.authorize([("client_id", harness.client.id), ("request_uri", requestURI)])
    let code = try #require(callback["code"])
    #expect(
      Harness.oauthError(try await harness.exchange(code: code, verifier: pkce.verifier, proof: nil))
        == "invalid_dpop_proof")
    let tokens = try Harness.Tokens(
      await harness.exchange(code: code, verifier: pkce.verifier, proof: harness.proof(key)))
    #expect(tokens.json["token_type"] == "DPoP")
  }
}
