import Testing
import XidJOSE
import XidTestSupport

/// Xid reads JSON two ways: whole documents into a ``JSONValue`` (`JSONValue(parsing:)`), and the
/// members of a JWT's claims or a JWS header one by one, without building them (`JWTClaims`,
/// `JWSHeader`). Both must accept and refuse the same documents; otherwise a token's typed claims
/// are read while its `raw` claims are silently empty. The FuzzJSON fuzz target checks this
/// property; these are the inputs where they disagreed.
struct JSONReaderConsistencyTests {
  static func nested(_ levels: Int) -> String {
    #"{"sub":"alice","deep":"# + String(repeating: "[", count: levels) + String(repeating: "]", count: levels) + "}"
  }

  static func header(_ json: String) -> String {
    Base64URL.encode(json.utf8) + "." + Base64URL.encode(#"{"sub":"alice"}"#.utf8) + ".AAAA"
  }

  @Test func claimsNestedDeeperThan64LevelsInAllAreRefusedByBothReaders() throws {
    // The object itself is the first level: 63 more are allowed, 64 more are not.
    let deepest = Self.nested(63)
    #expect(throws: Never.self) { try JSONValue(parsing: deepest) }
    #expect(try JWTClaims(payload: Array(deepest.utf8)).raw.count == 2)

    let tooDeep = Self.nested(64)
    expectXidError(.invalidJSON) { try JSONValue(parsing: tooDeep) }
    expectXidError(.invalidJSON) { try JWTClaims(payload: Array(tooDeep.utf8)) }
    expectXidError(.malformedJWS) {
      try CompactJWS(parsing: Self.header(#"{"alg":"ES256","x":"# + Self.nested(64) + "}"))
    }
  }

  @Test(arguments: [
    #"{"é":1,"e\u0301":2}"#,  // precomposed and decomposed
    "{\"\u{E9}\":1,\"e\u{301}\":2}",
    #"{"K":1,"\u212A":2}"#,  // an ASCII name and its singleton equivalent, KELVIN SIGN
    #"{"iss":"a","\u212A":1,"K":2}"#,
  ])
  func canonicallyEquivalentMemberNamesAreRefusedByBothReaders(json: String) {
    expectXidError(.invalidJSON) { try JSONValue(parsing: json) }
    expectXidError(.invalidJSON) { try JWTClaims(payload: Array(json.utf8)) }
    let header = #"{"alg":"ES256","# + json.dropFirst()
    expectXidError(.malformedJWS) { try CompactJWS(parsing: Self.header(header)) }
  }

  @Test func distinctNamesOutsideASCIIAreReadByBothReaders() throws {
    let json = #"{"é":1,"ü":{"ß":[]},"e":2,"\u00fc\u0308":3,"sub":"alice"}"#
    let value = try JSONValue(parsing: json)
    let claims = try JWTClaims(payload: Array(json.utf8))
    #expect(claims.raw == value.objectValue)
    #expect(claims.raw.count == 5)
    #expect(claims.subject == "alice")
  }
}
