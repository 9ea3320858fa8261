import Testing
import XidJOSE
import XidTestSupport

struct Base64URLTests {
  @Test(arguments: [
    ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"),
    ("foobar", "Zm9vYmFy"),
  ])
  func encodesRFC4648VectorsWithoutPadding(plain: String, encoded: String) throws {
    #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
    #expect(try Base64URL.decode(encoded) == Array(plain.utf8))
  }

  @Test func usesTheURLSafeAlphabet() throws {
    let bytes: [UInt8] = [0xFB, 0xFF, 0xBF]
    #expect(Base64URL.encode(bytes) == "-_-_")
    #expect(try Base64URL.decode("-_-_") == bytes)
  }

  @Test func roundTripsEveryLengthAndByteValue() throws {
    for length in 0..<70 {
      let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ length) }
      #expect(try Base64URL.decode(Base64URL.encode(bytes)) == bytes)
    }
    let all = (0...255).map(UInt8.init)
    #expect(try Base64URL.decode(Base64URL.encode(all)) == all)
  }

  @Test(arguments: ["Zg==", "Zm8=", "Zm9v\n", " Zm9v", "Zm 9v", "Zm+v", "Zm/v", "Zm9v!", "Z", "Zm9vY", "é"])
  func rejectsPaddingWhitespaceForeignCharactersAndImpossibleLengths(text: String) {
    expectXidError(.invalidEncoding) { try Base64URL.decode(text) }
  }

  @Test(arguments: ["Zh", "Zm9", "Zm9vYh"])
  func rejectsNonZeroTrailingBits(text: String) {
    expectXidError(.invalidEncoding) { try Base64URL.decode(text) }
  }

  /// The decoder tests whole quanta at once and writes some of them with one wider store: a bad
  /// character is found wherever it stands, and the bytes around it never leak into a result.
  @Test func aCharacterOutsideTheAlphabetIsRefusedAtEveryPositionOfEveryLength() {
    for length in 2..<40 where length % 4 != 1 {
      let text = Array(String(repeating: "QUJD", count: 10).utf8.prefix(length))
      for position in 0..<length {
        for bad in [UInt8(ascii: "="), UInt8(ascii: "+"), UInt8(ascii: "/"), 0x20, 0x00, 0x80, 0xFF] {
          var broken = text
          broken[position] = bad
          let error = broken.withUnsafeBufferPointer { bytes in
            expectXidError(.invalidEncoding) { try Base64URL.decode(bytes) }
          }
          #expect(error != nil, "length \(length), byte \(bad) at \(position)")
        }
      }
    }
  }

  @Test func decodesEveryLengthToTheBytesEncoded() throws {
    for length in 0..<100 {
      let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 151 &+ 7) }
      let text = Base64URL.encode(bytes)
      #expect(try Base64URL.decode(text) == bytes, "length \(length)")
    }
  }
}
