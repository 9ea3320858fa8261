import Foundation
import Testing
import XidCore
import XidTesting

/// ID token signatures: every algorithm Xid supports verifies with the provider's published key; a
/// corrupted signature or `alg: none` is refused; a token without `kid` is verified with the key
/// that fits.
@Suite(.timeLimit(.minutes(1)))
struct SignatureConformanceTests {
  // MARK: Valid signatures

  @Test("rp-id_token-sig-rs256")
  func acceptsAnIDTokenSignedWithRS256() async throws {
    try await expectAccepted(signedWith: .rs256)
  }

  @Test("rp-id_token-sig-es256")
  func acceptsAnIDTokenSignedWithES256() async throws {
    try await expectAccepted(signedWith: .es256)
  }

  @Test("ID token signed with PS256 (no RP test of its own)")
  func acceptsAnIDTokenSignedWithPS256() async throws {
    try await expectAccepted(signedWith: .ps256)
  }

  @Test("ID token signed with EdDSA (no RP test of its own)")
  func acceptsAnIDTokenSignedWithEdDSA() async throws {
    try await expectAccepted(signedWith: .edDSA)
  }

  /// Signs in with a provider whose key uses `algorithm`, and checks the ID token was verified with it,
  /// `at_hash` and `c_hash` (SHA-512 halves for EdDSA) included.
  private func expectAccepted(
    signedWith algorithm: JWSAlgorithm, sourceLocation: SourceLocation = #_sourceLocation
  ) async throws {
    let configure: (inout TestProvider.Configuration) -> Void = {
      $0.signingAlgorithm = algorithm
      $0.includesCodeHash = true
    }
    try await withStage(.inMemory, configure: configure) { stage in
      let metadata = try await stage.client.metadata()
      #expect(metadata.idTokenSigningAlgValuesSupported == [algorithm.rawValue], sourceLocation: sourceLocation)
      let result = try await stage.signIn()
      #expect(result.idToken.algorithm == algorithm, sourceLocation: sourceLocation)
      let header = try CompactJWS(parsing: result.idToken.compact).header
      #expect(header.algorithm == algorithm.rawValue, sourceLocation: sourceLocation)
      #expect(header.keyID == (await stage.provider.signingKeyID), sourceLocation: sourceLocation)
      #expect(result.idToken.claims.accessTokenHash != nil, sourceLocation: sourceLocation)
      #expect(result.idToken.claims.codeHash != nil, sourceLocation: sourceLocation)
    }
  }

  // MARK: Bad signatures

  @Test("rp-id_token-bad-sig-rs256", arguments: Wire.allCases)
  func refusesAnRS256IDTokenWithACorruptedSignature(over wire: Wire) async throws {
    try await expectBadSignatureRefused(.rs256, over: wire)
  }

  @Test("rp-id_token-bad-sig-es256", arguments: Wire.allCases)
  func refusesAnES256IDTokenWithACorruptedSignature(over wire: Wire) async throws {
    try await expectBadSignatureRefused(.es256, over: wire)
  }

  @Test("ID token with a corrupted PS256 or EdDSA signature", arguments: [JWSAlgorithm.ps256, .edDSA])
  func refusesIDTokensWithCorruptedSignaturesOfTheOtherAlgorithms(algorithm: JWSAlgorithm) async throws {
    try await expectBadSignatureRefused(algorithm, over: .inMemory)
  }

  /// The token names the provider's key, so a signature that does not verify is a forgery, not a
  /// rotation: it is refused at once, without fetching the key set again.
  private func expectBadSignatureRefused(
    _ algorithm: JWSAlgorithm, over wire: Wire, sourceLocation: SourceLocation = #_sourceLocation
  ) async throws {
    try await withStage(wire, configure: { $0.signingAlgorithm = algorithm }) { stage in
      let refusal = try await stage.expectSignInRefused(
        after: .invalidSignature, with: .invalidSignature, sourceLocation: sourceLocation)
      #expect(refusal.counters.codeExchanges == 1, sourceLocation: sourceLocation)
      #expect(refusal.counters.jwksFetches == 1, sourceLocation: sourceLocation)
    }
  }

  @Test("rp-id_token-sig-none")
  func refusesAnUnsignedIDToken() async throws {
    try await withStage(.inMemory) { stage in
      let refusal = try await stage.expectSignInRefused(after: .unsignedIDToken, with: .algorithmNotAllowed)
      // Refused on its header alone: no key was fetched to try it.
      #expect(refusal.counters.jwksFetches == 0)
    }
  }

  // MARK: No kid

  @Test("rp-id_token-kid-absent-single-jwks")
  func acceptsAnIDTokenWithoutKeyIDWhenTheKeySetHasOneKey() async throws {
    try await withStage(.inMemory) { stage in
      try await stage.provider.misbehave(.missingKeyID, .once)
      #expect(await stage.provider.publishedKeyIDs.count == 1)
      let result = try await stage.signIn()
      #expect(try CompactJWS(parsing: result.idToken.compact).header.keyID == nil)
      #expect(await stage.counters.jwksFetches == 1)
    }
  }

  /// The suite accepts either outcome: reject the token because the `kid` cannot pick a key, or try the
  /// keys and accept the one that verifies. Xid does the latter: `JWKSCache` tries every key that fits
  /// the algorithm, in the order the key set lists them, without fetching the set again. The test
  /// puts the signing key first and last, so accepting is not an accident of order.
  @Test("rp-id_token-kid-absent-multiple-jwks", arguments: KeyOrder.allCases)
  func acceptsAnIDTokenWithoutKeyIDByTryingEveryKey(order: KeyOrder) async throws {
    try await withStage(.inMemory, rewrite: order.rewrite) { stage in
      try await stage.provider.misbehave(.missingKeyIDWithSeveralKeys, .once)
      let signer = await stage.provider.signingKeyID
      let published = await stage.provider.publishedKeyIDs
      #expect(published.count == 2)

      let result = try await stage.signIn()

      #expect(try CompactJWS(parsing: result.idToken.compact).header.keyID == nil)
      let seen = try await stage.client.keys().keys.map(\.keyID)
      #expect(Set(seen) == Set(published))
      #expect((order == .signerFirst ? seen.first : seen.last) == signer)
      #expect(await stage.counters.jwksFetches == 1)
    }
  }

  /// Where the signing key stands in the JWK Set the client receives.
  enum KeyOrder: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// As the provider publishes it: the current key first.
    case signerFirst
    /// Reversed on the way to the client.
    case signerLast

    var testDescription: String { rawValue }

    var rewrite: RecordingTransport.Rewrite? {
      switch self {
      case .signerFirst: return nil
      case .signerLast:
        return { request, response in
          guard request.url.path.hasSuffix(TestProvider.Endpoint.jwks.path),
            let keys = try JSONValue(parsing: Array(response.body))["keys"]?.arrayValue
          else { return response }
          var reversed = response
          reversed.body = Data(JSONValue.object(["keys": .array(keys.reversed())]).serializedBytes())
          return reversed
        }
      }
    }
  }
}
