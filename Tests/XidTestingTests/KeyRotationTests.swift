import Foundation
import Testing
import XidCore
import XidTesting

struct KeyRotationTests {
  @Test func rotationChangesTheKidAndKeepsThePreviousKeyPublishedByDefault() async throws {
    let harness = try Harness()
    let before = try await harness.verify(try #require(try await harness.signIn().idToken))
    let oldKid = await harness.provider.signingKeyID
    let newKid = try await harness.provider.rotateSigningKey()
    #expect(newKid != oldKid)
    #expect(await harness.provider.publishedKeyIDs == [newKid, oldKid])

    let idToken = try #require(try await harness.signIn().idToken)
    #expect(try CompactJWS(parsing: idToken).header.keyID == newKid)
    _ = try await harness.verify(idToken)
    #expect(before.subject == "alice")
  }

  @Test func rotationCanDropThePreviousKey() async throws {
    let harness = try Harness()
    let oldToken = try #require(try await harness.signIn().idToken)
    let newKid = try await harness.provider.rotateSigningKey(keepingPrevious: false)
    #expect(await harness.provider.publishedKeyIDs == [newKid])
    let keys = try await harness.keySet()
    let error = #expect(throws: XidError.self) {
      try SignedJWT(verifying: oldToken, using: keys, allowedAlgorithms: [.es256])
    }
    #expect(error?.code == .noMatchingKey)
  }

  @Test func dropsByConfiguration() async throws {
    var configuration = TestProvider.Configuration()
    configuration.keepsPreviousKeysOnRotation = false
    let harness = try Harness(configuration: configuration)
    let newKid = try await harness.provider.rotateSigningKey()
    #expect(await harness.provider.publishedKeyIDs == [newKid])
  }

  @Test func rotatingToAnotherAlgorithmAdvertisesBoth() async throws {
    let harness = try Harness()
    try await harness.provider.rotateSigningKey(to: .edDSA)
    let document = try Harness.json(try await harness.get(.discovery))
    #expect(document["id_token_signing_alg_values_supported"] == ["EdDSA", "ES256"])
    let idToken = try #require(try await harness.signIn().idToken)
    #expect(try CompactJWS(parsing: idToken).header.algorithm == "EdDSA")
  }

  @Test(arguments: JWSAlgorithm.allCases)
  func idTokensVerifyWithEverySigningAlgorithm(algorithm: JWSAlgorithm) async throws {
    var configuration = TestProvider.Configuration()
    configuration.signingAlgorithm = algorithm
    let harness = try Harness(configuration: configuration)
    let tokens = try await harness.signIn()
    let jwt = try SignedJWT(
      verifying: try #require(tokens.idToken), using: try await harness.keySet(), allowedAlgorithms: [algorithm])
    #expect(jwt.jws.header.algorithm == algorithm.rawValue)
    #expect(jwt.key.keyID == (await harness.provider.signingKeyID))
    let document = try Harness.json(try await harness.get(.discovery))
    #expect(document["id_token_signing_alg_values_supported"] == [.string(algorithm.rawValue)])
    // at_hash: the left half of SHA-256, or of SHA-512 for EdDSA (Ed25519).
    let expectedHashLength = algorithm == .edDSA ? 43 : 22
    #expect(jwt.claims.accessTokenHash?.count == expectedHashLength)
    if algorithm != .edDSA { #expect(jwt.claims.accessTokenHash == Harness.sha256Hash(tokens.accessToken)) }
  }
}
