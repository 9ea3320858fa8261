import Foundation
import Testing
import XidCore
import XidTesting

/// Each ID token hostile mode produces the violation it names, and nothing else.
struct HostileIDTokenTests {
  /// Signs in once with `misbehavior` on for one response and returns the tokens.
  func signIn(
    with misbehavior: TestProvider.Misbehavior, configuration: TestProvider.Configuration = .init()
  ) async throws -> (harness: Harness, tokens: Harness.Tokens, idToken: String) {
    let harness = try Harness(configuration: configuration)
    try await harness.provider.misbehave(misbehavior, .once)
    let tokens = try await harness.signIn()
    return (harness, tokens, try #require(tokens.idToken))
  }

  @Test func wrongIssuer() async throws {
    let (harness, _, idToken) = try await signIn(with: .wrongIssuer)
    #expect(try await harness.verify(idToken).issuer == "https://attacker.xid.test")
  }

  @Test func missingSubject() async throws {
    let (harness, _, idToken) = try await signIn(with: .missingSubject)
    let claims = try await harness.verify(idToken)
    #expect(claims.subject == nil)
    #expect(claims.issuer == "https://op.xid.test")
  }

  @Test func wrongAudience() async throws {
    let (harness, _, idToken) = try await signIn(with: .wrongAudience)
    let claims = try await harness.verify(idToken)
    #expect(claims.audience == ["another-client"])
    #expect(claims.authorizedParty == "another-client")
  }

  @Test func missingIssuedAt() async throws {
    let (harness, _, idToken) = try await signIn(with: .missingIssuedAt)
    let claims = try await harness.verify(idToken)
    #expect(claims.issuedAt == nil)
    #expect(claims.expiresAt != nil)
  }

  @Test func missingKeyIDWithOneKeyInTheJWKS() async throws {
    let harness = try Harness()
    try await harness.provider.rotateSigningKey()
    #expect(await harness.provider.publishedKeyIDs.count == 2)
    try await harness.provider.misbehave(.missingKeyID, .once)
    #expect(await harness.provider.publishedKeyIDs.count == 1)
    let idToken = try #require(try await harness.signIn().idToken)
    #expect(try CompactJWS(parsing: idToken).header.keyID == nil)
    let keys = try await harness.keySet()
    #expect(keys.keys.count == 1)
    _ = try SignedJWT(verifying: idToken, using: keys, allowedAlgorithms: [.es256])
  }

  @Test func missingKeyIDWithSeveralKeysInTheJWKS() async throws {
    let (harness, _, idToken) = try await signIn(with: .missingKeyIDWithSeveralKeys)
    #expect(try CompactJWS(parsing: idToken).header.keyID == nil)
    let keys = try await harness.keySet()
    #expect(keys.keys.count == 2)
    #expect(keys.keys.allSatisfy { $0.jwk.algorithm == "ES256" })
    let verified = try SignedJWT(verifying: idToken, using: keys, allowedAlgorithms: [.es256])
    #expect(verified.key.keyID == (await harness.provider.signingKeyID))
  }

  @Test func unsignedIDToken() async throws {
    let (harness, _, idToken) = try await signIn(with: .unsignedIDToken)
    let (header, claims, signature) = try Harness.decode(idToken)
    #expect(header["alg"] == "none")
    #expect(signature.isEmpty)
    #expect(claims["sub"] == "alice")
    let keys = try await harness.keySet()
    let error = #expect(throws: XidError.self) {
      try SignedJWT(verifying: idToken, using: keys, allowedAlgorithms: Set(JWSAlgorithm.allCases))
    }
    #expect(error?.code == .algorithmNotAllowed)
  }

  @Test(arguments: [JWSAlgorithm.rs256, .es256, .ps256, .edDSA])
  func invalidSignature(algorithm: JWSAlgorithm) async throws {
    var configuration = TestProvider.Configuration()
    configuration.signingAlgorithm = algorithm
    let (harness, _, idToken) = try await signIn(with: .invalidSignature, configuration: configuration)
    let jws = try CompactJWS(parsing: idToken)
    #expect(jws.header.algorithm == algorithm.rawValue)
    #expect(jws.header.keyID == (await harness.provider.signingKeyID))
    let keys = try await harness.keySet()
    let error = #expect(throws: XidError.self) { try jws.verify(using: keys, allowedAlgorithms: [algorithm]) }
    #expect(error?.code == .invalidSignature)
  }

  @Test func wrongAccessTokenHash() async throws {
    let (harness, tokens, idToken) = try await signIn(with: .wrongAccessTokenHash)
    let claims = try await harness.verify(idToken)
    #expect(claims.accessTokenHash != nil)
    #expect(claims.accessTokenHash != Harness.sha256Hash(tokens.accessToken))
  }

  @Test func wrongNonce() async throws {
    let (harness, _, idToken) = try await signIn(with: .wrongNonce)
    let nonce = try #require(try await harness.verify(idToken).nonce)
    #expect(nonce != "nonce-1")
  }

  @Test func expiredIDToken() async throws {
    let (harness, _, idToken) = try await signIn(with: .expiredIDToken)
    let claims = try await harness.verify(idToken)
    #expect(throws: XidError.self) { try claims.validateTimes(now: harness.clock.now, leeway: .seconds(300)) }
  }

  @Test func issuedInTheFuture() async throws {
    let (harness, _, idToken) = try await signIn(with: .issuedInFuture)
    let claims = try await harness.verify(idToken)
    #expect(claims.issuedAt == harness.clock.now + 3600)
    #expect(throws: XidError.self) { try claims.validateTimes(now: harness.clock.now, leeway: .seconds(300)) }
  }

  @Test func otherSubjectOnlyOnRefresh() async throws {
    let (harness, tokens, idToken) = try await signIn(with: .otherSubjectOnRefresh)
    #expect(try await harness.verify(idToken).subject == "alice")
    let refreshed = try Harness.Tokens(await harness.refresh(try #require(tokens.refreshToken)))
    #expect(try await harness.verify(try #require(refreshed.idToken)).subject == "mallory")
    let again = try Harness.Tokens(await harness.refresh(try #require(refreshed.refreshToken)))
    #expect(try await harness.verify(try #require(again.idToken)).subject == "alice")
  }

  @Test func rotateKeyRightBeforeSigning() async throws {
    let harness = try Harness()
    let cached = try await harness.keySet()
    let before = await harness.provider.signingKeyID
    try await harness.provider.misbehave(.rotateKeyBeforeSigning, .once)
    let idToken = try #require(try await harness.signIn().idToken)
    let kid = try #require(try CompactJWS(parsing: idToken).header.keyID)
    #expect(kid != before)
    #expect(kid == (await harness.provider.signingKeyID))
    let error = #expect(throws: XidError.self) {
      try SignedJWT(verifying: idToken, using: cached, allowedAlgorithms: [.es256])
    }
    #expect(error?.code == .noMatchingKey)
    _ = try await harness.verify(idToken)
  }

  @Test func aOnceModeAppliesToTheNextIDTokenOnly() async throws {
    let harness = try Harness()
    try await harness.provider.misbehave(.wrongNonce, .once)
    #expect(try await harness.verify(try #require(try await harness.signIn().idToken)).nonce != "nonce-1")
    #expect(try await harness.verify(try #require(try await harness.signIn().idToken)).nonce == "nonce-1")
  }

  @Test func anAlwaysModeLastsUntilBehave() async throws {
    let harness = try Harness()
    try await harness.provider.misbehave(.wrongAudience)
    try await harness.provider.misbehave(.missingSubject, .times(2))
    for expectSubject in [false, false, true] {
      let claims = try await harness.verify(try #require(try await harness.signIn().idToken))
      #expect(claims.audience == ["another-client"])
      #expect((claims.subject != nil) == expectSubject)
    }
    await harness.provider.behave()
    #expect(try await harness.verify(try #require(try await harness.signIn().idToken)).audience == ["xid-example"])
  }
}
