import Testing
import XidTestSupport
import XidJOSE

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
}
