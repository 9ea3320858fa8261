import Testing
import XidJOSE
import XidTestSupport

struct JWKTests {
  static let p256: JSONValue = [
    "kty": "EC", "crv": "P-256", "kid": "ec-1",
    "x": "MKBCTNIcKUSDii11ySs3526iDZ8AiTo7Tu6KPAqv7D4", "y": "4Etl6SRW2YiLUrN5vfvVHuhp7x8PxltmWWlbbM4IFyM",
  ]

  static func with(_ base: JSONValue, _ changes: [String: JSONValue?]) -> JSONValue {
    var members = base.objectValue!
    for (name, value) in changes { members[name] = value }
    return .object(members)
  }

  @Test func readsTheMembersOfAnECKey() throws {
    let key = try JWK(json: Self.with(Self.p256, ["use": "sig", "alg": "ES256", "key_ops": ["verify"]]))
    #expect(key.keyType == .ec)
    #expect(key.keyID == "ec-1")
    #expect(key.use == "sig")
    #expect(key.algorithm == "ES256")
    #expect(key.keyOperations == ["verify"])
    #expect(key.permitsVerification(with: .es256))
    #expect(!key.permitsVerification(with: .rs256))
  }

  @Test(arguments: ["d", "p", "q", "dp", "dq", "qi", "oth", "k"])
  func rejectsPrivateMembersWhereAPublicKeyIsExpected(member: String) {
    let error = expectXidError(.invalidKey) { try JWK(json: Self.with(Self.p256, [member: "AAAA"])) }
    #expect(error?.reason.contains("private member") == true)
    #expect(error?.reason.contains("AAAA") == false)
  }

  @Test func honoursUseKeyOpsAndAlg() throws {
    #expect(!(try JWK(json: Self.with(Self.p256, ["use": "enc"]))).permitsVerification(with: .es256))
    #expect(!(try JWK(json: Self.with(Self.p256, ["key_ops": ["sign"]]))).permitsVerification(with: .es256))
    #expect(!(try JWK(json: Self.with(Self.p256, ["alg": "ES384"]))).permitsVerification(with: .es256))
  }

  @Test func rejectsUnsupportedTypesAndCurves() {
    expectXidError(.unsupportedKey) { try JWK(json: ["kty": "oct", "kid": "h"]) }
    expectXidError(.unsupportedKey) { try JWK(json: Self.with(Self.p256, ["crv": "P-384"])) }
    expectXidError(.unsupportedKey) { try JWK(json: ["kty": "OKP", "crv": "X25519", "x": "AAAA"]) }
  }

  @Test func rejectsMalformedKeys() {
    expectXidError(.invalidKey) { try JWK(json: "not an object") }
    expectXidError(.invalidKey) { try JWK(json: ["crv": "P-256"]) }
    expectXidError(.invalidKey) { try JWK(json: Self.with(Self.p256, ["x": "AAAA"])) }
    expectXidError(.invalidKey) { try JWK(json: Self.with(Self.p256, ["y": nil])) }
    expectXidError(.invalidKey) { try JWK(json: Self.with(Self.p256, ["x": "MKBC+NIc"])) }
    expectXidError(.invalidKey) { try JWK(json: Self.with(Self.p256, ["kid": 7])) }
  }

  @Test func rejectsAPointOffTheCurve() throws {
    let offCurve = Self.with(Self.p256, ["y": .string(Base64URL.encode([UInt8](repeating: 1, count: 32)))])
    let jwk = try JWK(json: offCurve)
    expectXidError(.invalidKey) { try JWSVerificationKey(jwk: jwk) }
  }

  @Test func rejectsWeakRSAKeys() throws {
    let key = try JWSSigningKey.generate(for: .rs256).publicJWK
    let n = key.members["n"]!
    // 1024-bit modulus
    let short = Base64URL.encode(Array(try Base64URL.decode(n.stringValue!).prefix(128)).map { $0 | 1 })
    expectXidError(.invalidKey) { try JWK(json: ["kty": "RSA", "n": .string(short), "e": "AQAB"]) }
    // exponent 1, and an even exponent
    expectXidError(.invalidKey) { try JWK(json: ["kty": "RSA", "n": n, "e": "AQ"]) }
    expectXidError(.invalidKey) { try JWK(json: ["kty": "RSA", "n": n, "e": "AQAC"]) }
  }

  @Test func keySetSkipsKeysItCannotUseInsteadOfFailing() throws {
    let rsa = try JWSSigningKey.generate(for: .rs256, keyID: "rsa-1").publicJWK.members
    let document: JSONValue = [
      "keys": [
        ["kty": "oct", "k": "c2VjcmV0", "kid": "hmac"],
        Self.with(Self.p256, ["crv": "P-521"]),
        Self.with(Self.p256, ["use": "enc", "kid": "enc-1"]),
        Self.with(Self.p256, ["d": "AAAA", "kid": "leaked"]),
        ["kty": "RSA", "kid": "rsa-1", "n": rsa["n"]!, "e": rsa["e"]!],
        ["kty": "EC", "kid": "broken"],
        Self.p256,
      ]
    ]
    let set = try JWKSet(parsing: document.serializedBytes())
    #expect(set.keys.map(\.keyID) == ["rsa-1", "ec-1"])
    #expect(set.skipped.map(\.index) == [0, 1, 2, 3, 5])
    #expect(set.skipped.map(\.keyID) == ["hmac", "ec-1", "enc-1", "leaked", "broken"])
  }

  /// A public RSA JWK of 1024 bits, named `kid`: the first 128 bytes of a generated modulus, made odd.
  static func shortRSAKey(kid: String, alg: String? = "RS256") throws -> JSONValue {
    let n = try Base64URL.decode(JWSSigningKey.generate(for: .rs256).publicJWK.members["n"]!.stringValue!)
    var members: [String: JSONValue] = [
      "kty": "RSA", "kid": .string(kid), "use": "sig", "e": "AQAB",
      "n": .string(Base64URL.encode(Array(n.prefix(128)).map { $0 | 1 })),
    ]
    if let alg { members["alg"] = .string(alg) }
    return .object(members)
  }

  @Test func aTokenNamingAnRSAKeyShorterThan2048BitsIsRefusedForTheKeysLength() throws {
    let signer = try JWSSigningKey.generate(for: .rs256, keyID: "legacy-2015")
    let short = try Self.shortRSAKey(kid: "legacy-2015")
    let set = try JWKSet(parsing: (["keys": [short, Self.p256]] as JSONValue).serializedBytes())
    let token = try CompactJWS(parsing: signer.sign(Array(#"{"sub":"alice"}"#.utf8)))
    let attempts: [() throws -> Void] = [
      { _ = try set.candidates(keyID: "legacy-2015", algorithm: .rs256) },
      { _ = try token.verify(using: set, allowedAlgorithms: [.rs256]) },
    ]
    for attempt in attempts {
      let error = expectXidError(.invalidKey) { try attempt() }
      let reason = error?.reason ?? ""
      #expect(reason.contains("\"legacy-2015\""), "\(reason)")
      #expect(reason.contains("1024 bits") && reason.contains("2048") && reason.contains("RFC 7518"), "\(reason)")
      #expect(!reason.contains(short["n"]!.stringValue!.prefix(16)))
    }
    // Another kid is not about the short key.
    expectXidError(.noMatchingKey) { try set.candidates(keyID: "other", algorithm: .rs256) }
  }

  @Test func keySetRefusesAnythingButAnObjectWithKeys() {
    expectXidError(.invalidJSON) { try JWKSet(parsing: Array("[]".utf8)) }
    expectXidError(.invalidJSON) { try JWKSet(parsing: Array("{\"keys\":{}}".utf8)) }
  }

  @Test func descriptionNeverShowsKeyMaterial() throws {
    let key = try JWK(json: Self.p256)
    #expect(!key.description.contains("MKBC"))
    let signer = try JWSSigningKey.generate(for: .es256)
    #expect(!signer.description.contains(signer.publicJWK.members["x"]!.stringValue!))
  }

  @Test(arguments: JWSAlgorithm.allCases)
  func generatedKeysExportAPublicJWKThatRoundTrips(algorithm: JWSAlgorithm) throws {
    let signer = try JWSSigningKey.generate(for: algorithm)
    let jwk = signer.publicJWK
    #expect(jwk.keyType == algorithm.keyType)
    #expect(jwk.keyID == jwk.thumbprint)
    #expect(try JWK(json: .object(jwk.members)) == jwk)
  }
}
