import Testing
import XidTestSupport

@testable import XidJOSE

struct JWSTests {
  static let payload = Array(#"{"iss":"https://op.example","sub":"alice"}"#.utf8)

  /// Replaces part `index` (0 header, 1 payload, 2 signature) of a compact JWS.
  static func replacing(_ index: Int, of jws: String, with part: String) -> String {
    var parts = jws.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    parts[index] = part
    return parts.joined(separator: ".")
  }

  /// A JWS with `header` whose signature is made by `key` over exactly that header.
  static func signed(header: JSONValue, payload: [UInt8] = payload, by key: JWSSigningKey) throws -> String {
    let input = Base64URL.encode(header.serializedBytes()) + "." + Base64URL.encode(payload)
    let signature = try Array(input.utf8).withUnsafeBytes { try key.platformKey.signature(for: $0) }
    return input + "." + Base64URL.encode(signature)
  }

  @Test(arguments: JWSAlgorithm.allCases)
  func signedTokensVerifyWithTheirKey(algorithm: JWSAlgorithm) throws {
    let signer = try JWSSigningKey.generate(for: algorithm)
    let jws = try CompactJWS(parsing: try signer.sign(Self.payload, header: ["typ": "JWT"]))
    #expect(try jws.verify(with: signer.verificationKey(), allowedAlgorithms: [algorithm]) == algorithm)
    #expect(jws.payload == Self.payload)
    #expect(jws.header.type == "JWT")
    #expect(jws.header.keyID == signer.keyID)
  }

  @Test func es256SignaturesAreExactly64BytesOfRAndS() throws {
    let signer = try JWSSigningKey.generate(for: .es256)
    let token = try signer.sign(Self.payload)
    let signature = try Base64URL.decode(token.split(separator: ".")[2])
    #expect(signature.count == 64)
    // A DER signature, or r‖s with a byte added or removed, is refused.
    let key = try signer.verificationKey()
    for bad in [signature + [0], Array(signature.dropLast()), [0x30, 0x44] + signature] {
      let forged = Self.replacing(2, of: token, with: Base64URL.encode(bad))
      expectXidError(.invalidSignature) {
        try CompactJWS(parsing: forged).verify(with: key, allowedAlgorithms: [.es256])
      }
    }
  }

  @Test(arguments: JWSAlgorithm.allCases)
  func tamperedHeaderPayloadOrSignatureFails(algorithm: JWSAlgorithm) throws {
    let signer = try JWSSigningKey.generate(for: algorithm)
    let key = try signer.verificationKey()
    let token = try signer.sign(Self.payload)
    let parts = token.split(separator: ".").map(String.init)
    var signature = try Base64URL.decode(parts[2])
    signature[signature.count / 2] ^= 0x01
    let tampered = [
      Self.replacing(0, of: token, with: Base64URL.encode(#"{"alg":"\#(algorithm)","kid":"x"}"#.utf8)),
      Self.replacing(1, of: token, with: Base64URL.encode(#"{"iss":"https://op.example","sub":"mallory"}"#.utf8)),
      Self.replacing(2, of: token, with: Base64URL.encode(signature)),
      Self.replacing(2, of: token, with: ""),
    ]
    for forged in tampered {
      expectXidError(.invalidSignature) {
        try CompactJWS(parsing: forged).verify(with: key, allowedAlgorithms: [algorithm])
      }
    }
  }

  @Test func signaturesOfAnotherKeyFail() throws {
    let token = try JWSSigningKey.generate(for: .es256).sign(Self.payload)
    let other = try JWSSigningKey.generate(for: .es256).verificationKey()
    expectXidError(.invalidSignature) {
      try CompactJWS(parsing: token).verify(with: other, allowedAlgorithms: [.es256])
    }
  }

  @Test(arguments: ["a.b", "a.b.c.d", "", "..", "a..c.", "e30.e30.e30=", "e30 .e30.AA"])
  func rejectsAnythingButThreeBase64URLParts(text: String) {
    let error = expectXidError(.malformedJWS) { try CompactJWS(parsing: text) }
    #expect(error?.reason.contains(text) != true || text.isEmpty)
  }

  @Test func rejectsAHeaderThatIsNotAJSONObject() {
    for header in ["[]", "\"alg\"", "{", #"{"alg":"ES256","alg":"none"}"#, #"{"typ":"JWT"}"#, #"{"alg":256}"#] {
      expectXidError(.malformedJWS) { try CompactJWS(parsing: Base64URL.encode(header.utf8) + ".e30.AAAA") }
    }
  }

  @Test func rejectsOversizedInputBeforeDecoding() {
    let huge = String(repeating: "A", count: CompactJWS.maximumSize) + ".e30.AA"
    expectXidError(.inputTooLarge) { try CompactJWS(parsing: huge) }
  }

  @Test func rejectsCriticalMembersItDoesNotUnderstand() throws {
    let signer = try JWSSigningKey.generate(for: .es256)
    let token = try signer.sign(Self.payload, header: ["crit": ["exp"], "exp": 1])
    expectXidError(.unsupportedJWSFeature) { try CompactJWS(parsing: token) }
    let empty = try signer.sign(Self.payload, header: ["crit": []])
    expectXidError(.malformedJWS) { try CompactJWS(parsing: empty) }
  }

  @Test func rejectsUnencodedPayloads() throws {
    let signer = try JWSSigningKey.generate(for: .es256)
    let token = try signer.sign(Self.payload, header: ["b64": false, "crit": ["b64"]])
    expectXidError(.unsupportedJWSFeature) { try CompactJWS(parsing: token) }
  }

  @Test func neverAcceptsNoneOrHMACWhateverIsAllowed() throws {
    let signer = try JWSSigningKey.generate(for: .rs256)
    let key = try signer.verificationKey()
    let body = Base64URL.encode(Self.payload)
    for alg in ["none", "HS256", "HS512", "RS384", "ES256K", "nOnE"] {
      let header = Base64URL.encode(#"{"alg":"\#(alg)"}"#.utf8)
      for signature in ["", "c2ln"] {
        expectXidError(.algorithmNotAllowed) {
          try CompactJWS(parsing: "\(header).\(body).\(signature)").verify(
            with: key, allowedAlgorithms: Set(JWSAlgorithm.allCases))
        }
      }
    }
  }

  @Test func theHeaderAlgMustFitTheKeyTypeAndTheKeysOwnAlg() throws {
    let rsa = try JWSSigningKey.generate(for: .rs256)
    // A token the RSA key signed with PKCS#1, relabelled PS256 or ES256, fails on the algorithm.
    let pss = try Self.signed(header: ["alg": "PS256"], by: rsa)
    expectXidError(.algorithmNotAllowed) {
      try CompactJWS(parsing: pss).verify(with: rsa.verificationKey(), allowedAlgorithms: [.rs256, .ps256])
    }
    let es = try Self.signed(header: ["alg": "ES256"], by: rsa)
    expectXidError(.algorithmNotAllowed) {
      try CompactJWS(parsing: es).verify(with: rsa.verificationKey(), allowedAlgorithms: [.es256, .rs256])
    }
    // Without an alg on the key, PS256 is possible for RSA, but the signature is PKCS#1, so it fails.
    var members = rsa.publicJWK.members
    members["alg"] = nil
    let bare = try JWSVerificationKey(json: .object(members))
    expectXidError(.invalidSignature) { try CompactJWS(parsing: pss).verify(with: bare, allowedAlgorithms: [.ps256]) }
  }

  @Test func keySetPicksTheKeyByKidAndTriesEachWithoutOne() throws {
    let first = try JWSSigningKey.generate(for: .es256, keyID: "a")
    let second = try JWSSigningKey.generate(for: .es256, keyID: "b")
    let set = JWKSet(keys: [try first.verificationKey(), try second.verificationKey()])
    let named = try CompactJWS(parsing: second.sign(Self.payload))
    #expect(try named.verify(using: set, allowedAlgorithms: [.es256]).keyID == "b")
    let anonymous = try CompactJWS(parsing: second.sign(Self.payload, includeKeyID: false))
    #expect(try anonymous.verify(using: set, allowedAlgorithms: [.es256]).keyID == "b")
    let unknown = try CompactJWS(parsing: second.sign(Self.payload, header: ["kid": "c"]))
    expectXidError(.noMatchingKey) { try unknown.verify(using: set, allowedAlgorithms: [.es256]) }
  }

  @Test func keySetRefusesAKidThatNamesSeveralKeys() throws {
    let first = try JWSSigningKey.generate(for: .es256, keyID: "same")
    let second = try JWSSigningKey.generate(for: .es256, keyID: "same")
    let set = JWKSet(keys: [try first.verificationKey(), try second.verificationKey()])
    let token = try CompactJWS(parsing: first.sign(Self.payload))
    expectXidError(.noMatchingKey) { try token.verify(using: set, allowedAlgorithms: [.es256]) }
  }

  @Test func errorsAndDescriptionsNeverContainTokenMaterial() throws {
    let signer = try JWSSigningKey.generate(for: .es256)
    let token = try signer.sign(Self.payload)
    let parts = token.split(separator: ".").map(String.init)
    let jws = try CompactJWS(parsing: token)
    #expect(!jws.description.contains(parts[1]) && !jws.description.contains(parts[2]))
    let other = try JWSSigningKey.generate(for: .es256).verificationKey()
    let error = expectXidError(.invalidSignature) { try jws.verify(with: other, allowedAlgorithms: [.es256]) }
    for part in parts { #expect(error?.description.contains(part) == false) }
  }
}
