import Foundation
import Testing
import XidJOSE
import XidTestSupport

struct JSONParserTests {
  @Test func parsesEveryKindOfValue() throws {
    let value = try JSONValue(
      parsing:
        #" { "s": "a\"b\\c\/d\u00e9\ud83d\ude00\n", "i": -42, "d": 1.5e3, "t": true, "f": false, "n": null, "a": [1, [2, {}]], "o": {"k": []} } "#
    )
    #expect(value["s"] == .string("a\"b\\c/dé😀\n"))
    #expect(value["i"] == .int(-42))
    #expect(value["d"]?.doubleValue == 1500)
    #expect(value["d"]?.int64Value == 1500)
    #expect(value["t"] == .bool(true))
    #expect(value["f"] == .bool(false))
    #expect(value["n"] == .null)
    #expect(value["a"] == [1, [2, [:]]])
    #expect(value["o"]?["k"] == .array([]))
  }

  @Test func keepsLargeIntegersExact() throws {
    #expect(try JSONValue(parsing: "9007199254740993") == .int(9_007_199_254_740_993))
  }

  @Test(arguments: [
    "", "{", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "01", "1.", ".5", "-", "1e", "+1", "tru", "nul", "\"abc",
    "\"\\x\"", "\"\\u12\"", "\"\\ud800\"", "\"\\udc00\"", "\"a\u{01}b\"", "{\"a\":1}x", "[1] [2]", "'a'",
    "{a:1}", "1e400", "NaN",
  ])
  func rejectsInvalidDocuments(text: String) {
    expectXidError(.invalidJSON) { try JSONValue(parsing: text) }
  }

  @Test func rejectsDuplicateMemberNames() {
    let error = expectXidError(.invalidJSON) { try JSONValue(parsing: #"{"alg":"RS256","alg":"none"}"#) }
    #expect(error?.reason.contains("duplicate") == true)
  }

  /// The input that stopped `FuzzJSONDifferential` in the long run (Fuzz/README.md, "Findings"):
  /// Foundation reads only the duplicate it keeps and accepts it; Xid refuses the document, at
  /// whichever error it meets first.
  @Test func refusesADuplicateMemberThatFollowsAnOutOfRangeNumber() {
    expectXidError(.invalidJSON) {
      try JSONValue(parsing: #"{"iat":1800000000,"ex:p":1e00800000000,"ex:p":1e0}"#)
    }
  }

  @Test func rejectsInvalidUTF8() {
    expectXidError(.invalidJSON) { try JSONValue(parsing: [0x22, 0xC3, 0x28, 0x22]) }
    expectXidError(.invalidJSON) { try JSONValue(parsing: [0x22, 0xED, 0xA0, 0x80, 0x22]) }  // encoded surrogate
    expectXidError(.invalidJSON) { try JSONValue(parsing: [0x22, 0xC0, 0xAF, 0x22]) }  // overlong
  }

  @Test func rejectsNestingDeeperThan64Levels() throws {
    _ = try JSONValue(parsing: String(repeating: "[", count: 64) + String(repeating: "]", count: 64))
    expectXidError(.invalidJSON) {
      try JSONValue(parsing: String(repeating: "[", count: 65) + String(repeating: "]", count: 65))
    }
  }

  @Test func rejectsOversizedDocumentsBeforeParsing() {
    let huge = [UInt8](repeating: UInt8(ascii: " "), count: JSONValue.maximumDocumentSize + 1)
    expectXidError(.inputTooLarge) { try JSONValue(parsing: huge) }
  }

  @Test func serializesCompactlyAndRoundTrips() throws {
    let value: JSONValue = ["b": [1, 2.5, "x\"\n\u{01}"], "a": true, "c": nil]
    #expect(value.serialized(sortedKeys: true) == #"{"a":true,"b":[1,2.5,"x\"\n\u0001"],"c":null}"#)
    #expect(try JSONValue(parsing: value.serialized()) == value)
  }
}

/// Integers are read while their digits are checked; long ones and non-integers from their text.
struct JSONNumberTests {
  @Test(arguments: [
    ("0", JSONValue.int(0)), ("-0", .int(0)), ("7", .int(7)), ("-7", .int(-7)), ("1700000000", .int(1_700_000_000)),
    ("999999999999999999", .int(999_999_999_999_999_999)), ("-999999999999999999", .int(-999_999_999_999_999_999)),
    ("9223372036854775807", .int(.max)), ("-9223372036854775808", .int(.min)),
    ("12345678901234567890", .double(12_345_678_901_234_567_890)), ("1.5", .double(1.5)), ("-2e3", .double(-2000)),
    ("10E-1", .double(1)),
  ])
  func numbersReadToTheirValue(text: String, value: JSONValue) throws {
    #expect(try JSONValue(parsing: text) == value)
    #expect(try JSONValue(parsing: #"{"n":\#(text)}"#)["n"] == value)
  }

  @Test(arguments: ["01", "-", "1.", "1e", "+1", "--1", "1.e3", "0x10", "1e400"])
  func malformedOrOutOfRangeNumbersAreRefused(text: String) {
    #expect(throws: XidError.self) { try JSONValue(parsing: text) }
  }

  @Test func aNumericDateIsReadFromEveryDigitCount() throws {
    var digits = ""
    for count in 1...18 {
      digits += String(count % 10)
      let claims = try JWTClaims(payload: Array(#"{"exp":\#(digits)}"#.utf8))
      #expect(claims.expiresAt == Date(timeIntervalSince1970: Double(Int64(digits)!)), "\(digits)")
    }
  }
}
