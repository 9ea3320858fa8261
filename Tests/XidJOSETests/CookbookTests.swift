import Testing
import XidTestSupport
import XidJOSE

/// RFC 7520 (JOSE Cookbook) examples and RFC 7638/8037 thumbprints.
@Suite("RFC 7520 and RFC 7638 vectors", .requiresTestVectors)
struct CookbookTests {
  /// The public members of a cookbook key (which includes its private parts).
  static func publicKey(_ key: JSONValue) throws -> JWSVerificationKey {
    let members = key.objectValue!.filter { !["d", "p", "q", "dp", "dq", "qi"].contains($0.key) }
    return try JWSVerificationKey(json: .object(members))
  }

  @Test func rfc7520RS256ExampleVerifies() throws {
    let example = try TestVectors.json("jose-cookbook/jws/4_1.rsa_v15_signature.json")
    let key = try Self.publicKey(example["input"]!["key"]!)
    let jws = try CompactJWS(parsing: example["output"]!["compact"]!.stringValue!)
    #expect(try jws.verify(with: key, allowedAlgorithms: [.rs256]) == .rs256)
    #expect(jws.header.keyID == "bilbo.baggins@hobbiton.example")
  }

  @Test func rfc8037Ed25519ExampleVerifiesAndSignsByteForByte() throws {
    let example = try TestVectors.json("jose-cookbook/jws/curve25519_jws.json")
    let privateJWK = example["input"]!["key"]!
    let key = try Self.publicKey(privateJWK)
    let compact = example["output"]!["compact"]!.stringValue!
    #expect(try CompactJWS(parsing: compact).verify(with: key, allowedAlgorithms: [.edDSA]) == .edDSA)

    let signer = try JWSSigningKey(privateJWK: privateJWK)
    let payload = Array(example["input"]!["payload"]!.stringValue!.utf8)
    let signed = try signer.sign(payload, includeKeyID: false)
    #if canImport(COpenSSL)
      // OpenSSL's Ed25519 is deterministic: signing the same payload gives the published output exactly.
      #expect(signed == compact)
    #else
      // CryptoKit randomizes Ed25519 signatures on purpose; they verify but differ from the RFC's bytes.
      #expect(try CompactJWS(parsing: signed).verify(with: key, allowedAlgorithms: [.edDSA]) == .edDSA)
    #endif
  }

  @Test func rfc7520RS256ExampleFailsWithAnotherAlgorithmAllowed() throws {
    let example = try TestVectors.json("jose-cookbook/jws/4_1.rsa_v15_signature.json")
    let key = try Self.publicKey(example["input"]!["key"]!)
    let jws = try CompactJWS(parsing: example["output"]!["compact"]!.stringValue!)
    expectXidError(.algorithmNotAllowed) { try jws.verify(with: key, allowedAlgorithms: [.ps256]) }
  }

  @Test func cookbookRSAKeyThumbprintMatches() throws {
    let key = try JWK(json: TestVectors.json("jose-cookbook/jwk/3_3.rsa_public_key.json"))
    #expect(key.thumbprint == "9jg46WB3rR_AHD-EBXdN7cBkH1WOu0tA3M9fm21mqTI")
  }
}

/// Thumbprints published in (or computed from) RFCs; these need no vector files.
struct ThumbprintTests {
  @Test func rfc7638RSAThumbprintMatchesTheRFC() throws {
    let key = try JWK(json: [
      "kty": "RSA", "e": "AQAB", "alg": "RS256", "kid": "2011-04-29",
      "n":
        "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw",
    ])
    #expect(key.thumbprint == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
  }

  @Test func rfc8037Ed25519ThumbprintMatchesTheRFC() throws {
    let key = try JWK(json: ["kty": "OKP", "crv": "Ed25519", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"])
    #expect(key.thumbprint == "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k")
  }

  @Test func rfc7517ECKeyThumbprintMatchesTheComputedValue() throws {
    let key = try JWK(json: [
      "kty": "EC", "crv": "P-256", "kid": "1", "use": "enc",
      "x": "MKBCTNIcKUSDii11ySs3526iDZ8AiTo7Tu6KPAqv7D4", "y": "4Etl6SRW2YiLUrN5vfvVHuhp7x8PxltmWWlbbM4IFyM",
    ])
    #expect(key.thumbprint == "cn-I_WNMClehiVp51i_0VpOENW1upEerA8sEam5hn-s")
  }
}
