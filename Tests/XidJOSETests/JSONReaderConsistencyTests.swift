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

  /// What a string's byte does to a document, whichever reader meets it.
  enum StopByte: CaseIterable {
    case escapedQuote, controlCharacter, invalidUTF8, twoByteCharacter, fourByteCharacter

    /// The bytes standing at the offset, and the string they read as (`nil`: the document is refused).
    var bytes: (json: [UInt8], reads: String?) {
      switch self {
      case .escapedQuote: (Array(#"\""#.utf8), "\"")
      case .controlCharacter: ([0x1F], nil)
      case .invalidUTF8: ([0xC3, 0x28], nil)
      case .twoByteCharacter: (Array("é".utf8), "é")
      case .fourByteCharacter: (Array("😀".utf8), "😀")
      }
    }
  }

  /// Strings are scanned eight bytes at a time: a quote's escape, a control character or a byte
  /// outside ASCII is found at every offset within and across words, in a skipped claim's value, a
  /// read claim's value and a member's name, and both readers decide alike.
  @Test(arguments: StopByte.allCases)
  func aStringsSpecialByteIsFoundAtEveryOffsetByBothReaders(stop: StopByte) throws {
    // Right before the closing quote (in the word that ends the string), or well before it.
    for offset in 0..<20 {
      for after in ["", "bcdefghijklmnop"] {
        let before = String(repeating: "a", count: offset)
        let (special, reads) = stop.bytes
        let text = Array(before.utf8) + special + Array(after.utf8)
        let expected = reads.map { before + $0 + after }
        let documents: [(json: [UInt8], check: (JWTClaims) -> Bool)] = [
          (Array(#"{"other":""#.utf8) + text + Array(#"","sub":"s"}"#.utf8), { $0.subject == "s" }),
          (Array(#"{"sub":""#.utf8) + text + Array(#""}"#.utf8), { $0.subject == expected }),
          (Array(#"{""#.utf8) + text + Array(#"":1,"sub":"s"}"#.utf8), { $0.raw[expected ?? ""] == .int(1) }),
        ]
        for (json, check) in documents {
          if expected == nil {
            expectXidError(.invalidJSON) { try JSONValue(parsing: json) }
            expectXidError(.invalidJSON) { try JWTClaims(payload: json) }
          } else {
            let claims = try JWTClaims(payload: json)
            #expect(check(claims), "\(stop) at offset \(offset), \(after.count) bytes before the quote")
            #expect(try claims.raw == JSONValue(parsing: json).objectValue)
          }
        }
      }
    }
  }

  /// Names are kept on the stack while they are few, plain and ASCII; past that they move to a set
  /// of strings, and a repeat is still refused, escaped or not.
  @Test(arguments: [31, 32, 33, 60])
  func aRepeatedNameIsRefusedWhereverTheObjectsNamesAreKept(members: Int) throws {
    let names = (0..<members).map { "claim\($0)" }
    let distinct = "{" + names.map { #""\#($0)":1"# }.joined(separator: ",") + "}"
    #expect(try JWTClaims(payload: Array(distinct.utf8)).raw.count == members)
    for repeated in [#""claim3""#, #""\u0063laim3""#, "\"claim\(members - 1)\""] {
      let json = String(distinct.dropLast()) + "," + repeated + ":2}"
      expectXidError(.invalidJSON) { try JSONValue(parsing: json) }
      expectXidError(.invalidJSON) { try JWTClaims(payload: Array(json.utf8)) }
    }
  }

  /// The names kept on the stack pass a filter first, and only a name the filter may have seen is
  /// compared with the others: every one of an object's names is still refused when it comes again,
  /// and long names that share their length and first fifteen bytes (one key) are not repeats.
  @Test func everyNameIsRefusedWhenItComesAgainAndNamesThatShareAKeyAreNot() throws {
    let short = (0..<12).map { "c\($0)" }
    let long = (0..<12).map { "a_claim_name_of_twenty_\(Character(UnicodeScalar(UInt8(ascii: "a") + UInt8($0))))" }
    let names = (short + long + ["exp", "iat", "nbf", "email", "given_name"]).shuffled()
    let distinct = "{" + names.map { #""\#($0)":1"# }.joined(separator: ",") + "}"
    #expect(try JWTClaims(payload: Array(distinct.utf8)).raw.count == names.count)
    for name in names {
      let json = String(distinct.dropLast()) + #","\#(name)":2}"#
      expectXidError(.invalidJSON) { try JWTClaims(payload: Array(json.utf8)) }
      expectXidError(.invalidJSON) { try JSONValue(parsing: json) }
    }
  }
}
