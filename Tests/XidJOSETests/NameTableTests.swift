import Testing

@testable import XidJOSE

/// Member names are recognised from their bytes through a table indexed by the name key's filter
/// bit; names that share a bit are looked up one by one.
struct NameTableTests {
  /// Names chosen so that two pairs share a filter bit: `av` and `da`, `aw` and `db`.
  private enum Sample: String, CaseIterable, NameMatchable {
    case av, da, aw, db, iss, longestWhole = "fifteen-bytes-x"
    static let names = NameTable(Self.self)
  }

  private static func key(_ name: String) -> NameKey {
    var bytes = Array(name.utf8)
    return bytes.withUnsafeMutableBufferPointer { NameKey(UnsafeBufferPointer($0)) }
  }

  @Test func everyCaseIsFoundByItsNameEvenWhenNamesShareAFilterBit() {
    // The premise: without the shared slots this test would not reach the search by comparison.
    #expect(Self.key("av").filterBit == Self.key("da").filterBit)
    #expect(Self.key("aw").filterBit == Self.key("db").filterBit)
    for name in Sample.allCases {
      #expect(Sample.names.match(Self.key(name.rawValue)) == name, "\(name.rawValue)")
    }
  }

  @Test(arguments: ["", "a", "avv", "Av", "da ", "is", "isss", "fifteen-bytes-xy", "fifteen-bytes-", "ss"])
  func aNameThatIsNoCaseMatchesNone(name: String) {
    #expect(Sample.names.match(Self.key(name)) == nil)
  }

  @Test func namesThatShareAFilterBitWithACaseAreNotTakenForIt() throws {
    // Every two-letter name that shares a bit with a case and is not one is refused.
    let letters = "abcdefghijklmnopqrstuvwxyz".map(String.init)
    let caseBits = Set(Sample.allCases.map { Self.key($0.rawValue).filterBit })
    var checked = 0
    for first in letters {
      for second in letters {
        let name = first + second
        guard Sample(rawValue: name) == nil, caseBits.contains(Self.key(name).filterBit) else { continue }
        #expect(Sample.names.match(Self.key(name)) == nil, "\(name)")
        checked += 1
      }
    }
    #expect(checked > 0)
  }

  @Test func algorithmsAreReadFromTheirExactRegisteredNames() {
    for algorithm in JWSAlgorithm.allCases {
      #expect(JWSAlgorithm(rawValue: algorithm.rawValue) == algorithm)
    }
    let near = [
      "es256", "ES256 ", " ES256", "ES2560", "ES25", "EDDSA", "eddsa", "RS256\0", "", "none", "HS256", "ES384",
    ]
    for name in near { #expect(JWSAlgorithm(rawValue: name) == nil, "\(name)") }
    // A name longer than a key holds is never a registered one.
    #expect(JWSAlgorithm(rawValue: "ES256ES256ES256ES256") == nil)
  }
}
