import Foundation
import Testing
import XidJOSE
import XidTestSupport

struct JWTClaimsTests {
  @Test func readsRegisteredAndOpenIDClaims() throws {
    let claims = try JWTClaims(raw: [
      "iss": "https://op.example", "sub": "alice", "aud": "client", "exp": 2000, "nbf": 900, "iat": 1000.5,
      "jti": "j", "nonce": "n", "azp": "client", "at_hash": "a", "c_hash": "c", "auth_time": 990, "sid": "s",
      "name": "Alice",
    ])
    #expect(claims.issuer == "https://op.example")
    #expect(claims.subject == "alice")
    #expect(claims.audience == ["client"])
    #expect(claims.expiresAt == Date(timeIntervalSince1970: 2000))
    #expect(claims.notBefore == Date(timeIntervalSince1970: 900))
    #expect(claims.issuedAt == Date(timeIntervalSince1970: 1000.5))
    #expect(claims.jwtID == "j")
    #expect(claims.nonce == "n")
    #expect(claims.authorizedParty == "client")
    #expect(claims.accessTokenHash == "a")
    #expect(claims.codeHash == "c")
    #expect(claims.authTime == Date(timeIntervalSince1970: 990))
    #expect(claims.sessionID == "s")
    #expect(claims["name"] == "Alice")
  }

  @Test func readsAudienceAsAStringOrAnArray() throws {
    #expect(try JWTClaims(raw: ["aud": ["a", "b"]]).audience == ["a", "b"])
    #expect(try JWTClaims(raw: [:]).audience == [])
    expectXidError(.invalidClaims) { try JWTClaims(raw: ["aud": ["a", 1]]) }
    expectXidError(.invalidClaims) { try JWTClaims(raw: ["aud": 1]) }
  }

  @Test func rejectsClaimsOfTheWrongType() {
    expectXidError(.invalidClaims) { try JWTClaims(raw: ["exp": "tomorrow"]) }
    expectXidError(.invalidClaims) { try JWTClaims(raw: ["iss": 1]) }
    expectXidError(.invalidClaims) { try JWTClaims(raw: ["nonce": ["n"]]) }
    expectXidError(.invalidJSON) { try JWTClaims(payload: Array("[1]".utf8)) }
  }

  @Test func validatesTimesWithLeeway() throws {
    let now = Date(timeIntervalSince1970: 10_000)
    let claims = try JWTClaims(raw: ["exp": 10_030, "iat": 10_050, "nbf": 10_040])
    try claims.validateTimes(now: now, leeway: .seconds(60))
    expectXidError(.invalidClaims) { try claims.validateTimes(now: now.addingTimeInterval(100), leeway: .seconds(60)) }
    expectXidError(.invalidClaims) { try claims.validateTimes(now: now, leeway: .seconds(10)) }
    expectXidError(.invalidClaims) { try JWTClaims(raw: [:]).validateTimes(now: now, leeway: .seconds(60)) }
    expectXidError(.invalidClaims) {
      try JWTClaims(raw: ["exp": 10_030]).validateTimes(now: now, leeway: .seconds(60), requireIssuedAt: true)
    }
  }

  @Test func rejectsOversizedTokensBeforeParsing() {
    expectXidError(.inputTooLarge) {
      try SignedJWT(
        verifying: String(repeating: "e30.", count: 20_000), using: JWKSet(keys: []), allowedAlgorithms: [.es256])
    }
  }
}

struct XidCryptoTests {
  @Test func sha256MatchesTheFIPSVectors() {
    #expect(Base64URL.encode(XidCrypto.sha256(Array("abc".utf8))) == "ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0")
    #expect(Base64URL.encode(XidCrypto.sha256([])) == "47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU")
  }

  @Test func sha512MatchesTheFIPSVector() {
    let expected =
      "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"
    #expect(XidCrypto.sha512(Array("abc".utf8)).map { String(format: "%02x", $0) }.joined() == expected)
  }

  @Test func randomBytesAreFreshEachTime() throws {
    let a = try XidCrypto.randomBytes(count: 32)
    let b = try XidCrypto.randomBytes(count: 32)
    #expect(a.count == 32 && b.count == 32)
    #expect(a != b)
  }
}

/// The claims reader builds no dictionary, but holds payloads to the same rules as the JSON parser.
struct JWTClaimsStrictnessTests {
  static func claims(_ json: String) throws -> JWTClaims { try JWTClaims(payload: Array(json.utf8)) }

  @Test(arguments: [
    #"{"iss":"a","iss":"b"}"#, #"{"iss":"a","\u0069ss":"b"}"#, #"{"name":"a","name":"b"}"#,
    #"{"n\u0061me":"a","name":"b"}"#,
  ])
  func refusesRepeatedClaimNamesEvenWhenEscaped(json: String) {
    expectXidError(.invalidJSON) { try Self.claims(json) }
  }

  /// Names are compared by their length and first 15 bytes, then by their bytes when longer: names
  /// on either side of those lengths, and long names that differ only after the 15th byte, are
  /// distinct claims; each of them repeated is refused.
  @Test(arguments: [
    "abcdefg", "abcdefgh", "abcdefghijklmno", "abcdefghijklmnop", "abcdefghijklmnopq1", "abcdefghijklmnopq2",
    "auth_timeX", "iss_",
  ])
  func namesAreDistinctUpToTheirLastByteAndRefusedWhenRepeated(name: String) throws {
    let names = [
      "abcdefg", "abcdefgh", "abcdefghijklmno", "abcdefghijklmnop", "abcdefghijklmnopq1", "abcdefghijklmnopq2",
      "auth_timeX", "iss_",
    ]
    let all = try Self.claims("{" + names.map { #""\#($0)":"v""# }.joined(separator: ",") + "}")
    #expect(Set(all.raw.keys) == Set(names))
    // A registered claim's name with a byte more is not that claim (a string `auth_time` would be refused).
    #expect(all.authTime == nil && all.issuer == nil)
    expectXidError(.invalidJSON) {
      try Self.claims("{" + (names + [name]).map { #""\#($0)":"v""# }.joined(separator: ",") + "}")
    }
  }

  @Test(arguments: [
    #"{"name":"\x"}"#, #"{"name":"\ud800"}"#, "{\"name\":\"a\u{01}\"}", #"{"name":"a"} x"#, #"{"name":"a",}"#,
    #"{"name" "a"}"#, #"{"name":[1,]}"#, "[1]", "\"iss\"", #"{"iss":"a""#,
  ])
  func refusesMalformedPayloadsWhateverTheClaim(json: String) {
    expectXidError(.invalidJSON) { try Self.claims(json) }
  }

  @Test func refusesInvalidUTF8InAClaimItDoesNotRead() {
    expectXidError(.invalidJSON) {
      try JWTClaims(payload: Array(#"{"name":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8))
    }
  }

  @Test func keepsEveryClaimInRawAndReadsEscapedNames() throws {
    let claims = try Self.claims(#"{"\u0069ss":"https://op","name":"Zoë \"Z\"","n":[1,{"a":null}],"exp":5}"#)
    #expect(claims.issuer == "https://op")
    #expect(claims.expiresAt == Date(timeIntervalSince1970: 5))
    #expect(claims["name"] == "Zoë \"Z\"")
    #expect(claims.raw.count == 4)
    #expect(try JWTClaims(raw: claims.raw) == JWTClaims(raw: claims.raw))
  }
}
