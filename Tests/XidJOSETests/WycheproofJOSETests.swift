import Testing
import XidJOSE

/// Wycheproof's JWS and JWK files: every case for an algorithm Xid supports gives its expected result,
/// and every other case (HMAC, RS384, PS512, JSON serialization, …) is rejected.
@Suite("Wycheproof JWS and JWK", .requiresTestVectors)
struct WycheproofJOSETests {
  static let supported = Set(JWSAlgorithm.allCases)

  /// Verifies `jws` with the group's public keys (or, where the group has none, its private ones,
  /// which Xid must refuse to use).
  static func accepts(_ jws: String, keys: JSONValue) -> Bool {
    let set: JWKSet
    do {
      let document: JSONValue = keys["keys"] == nil ? ["keys": [keys]] : keys
      set = try JWKSet(parsing: document.serializedBytes())
      try CompactJWS(parsing: jws).verify(using: set, allowedAlgorithms: supported)
      return true
    } catch {
      return false
    }
  }

  /// The `alg` the case's header names, when it can be read at all.
  static func headerAlgorithm(_ jws: String) -> String? {
    guard let first = jws.split(separator: ".", omittingEmptySubsequences: false).first,
      let bytes = try? Base64URL.decode(first), let header = try? JSONValue(parsing: bytes)
    else { return nil }
    return header["alg"]?.stringValue
  }

  func run(_ file: String) throws -> (supported: Int, other: Int) {
    let document = try TestVectors.json("wycheproof/\(file)")
    var counts = (supported: 0, other: 0)
    for group in document["testGroups"]?.arrayValue ?? [] {
      let keys = group["public"] ?? group["private"]!
      for test in group["tests"]?.arrayValue ?? [] {
        let jws = test["jws"]!.stringValue!
        let id = test["tcId"]!.int64Value!
        let comment = "\(group["comment"]?.stringValue ?? "") tcId \(id) (\(test["comment"]?.stringValue ?? ""))"
        let accepted = Self.accepts(jws, keys: keys)
        let isSupported = Self.headerAlgorithm(jws).flatMap(JWSAlgorithm.init(rawValue:)) != nil
        if isSupported {
          counts.supported += 1
          if test["result"]?.stringValue == "valid" {
            #expect(accepted, "\(file) \(comment) is valid but was rejected")
          } else {
            #expect(!accepted, "\(file) \(comment) is invalid but was accepted")
          }
        } else {
          counts.other += 1
          #expect(!accepted, "\(file) \(comment) uses an unsupported algorithm but was accepted")
        }
      }
    }
    return counts
  }

  @Test func jsonWebSignatureCasesGiveTheirExpectedResults() throws {
    let counts = try run("json_web_signature_test.json")
    #expect(counts.supported + counts.other == 401)
    #expect(counts.supported > 250)
  }

  @Test func jsonWebKeyCasesGiveTheirExpectedResults() throws {
    let counts = try run("json_web_key_test.json")
    #expect(counts.supported + counts.other == 26)
  }
}
