import Testing

@testable import XidJOSE

/// Every case of the Wycheproof signature files gives its expected result through Xid's own key
/// preparation and verification: `valid` accepted, `invalid` rejected, `acceptable` reported.
@Suite("Wycheproof signatures", .requiresTestVectors)
struct WycheproofSignatureTests {
  struct Outcome {
    var checked = 0
    var acceptable: [String] = []
  }

  /// Runs every test of a Wycheproof file with a key made per group.
  func run(
    _ file: String, algorithm: JWSAlgorithm, key: (JSONValue) throws -> JWSVerificationKey
  ) throws -> Outcome {
    let document = try TestVectors.json("wycheproof/\(file)")
    var outcome = Outcome()
    for group in document["testGroups"]?.arrayValue ?? [] {
      let verificationKey = try key(group)
      for test in group["tests"]?.arrayValue ?? [] {
        let id = test["tcId"]?.int64Value ?? -1
        let message = hexBytes(test["msg"]?.stringValue ?? "")
        let signature = hexBytes(test["sig"]?.stringValue ?? "")
        let accepted = signature.withUnsafeBytes { sig in
          message.withUnsafeBytes { msg in
            verificationKey.platformKey.isValidSignature(sig, for: msg, algorithm: algorithm)
          }
        }
        let comment = test["comment"]?.stringValue ?? ""
        switch test["result"]?.stringValue {
        case "valid": #expect(accepted, "\(file) tcId \(id) (\(comment)) is valid but was rejected")
        case "invalid": #expect(!accepted, "\(file) tcId \(id) (\(comment)) is invalid but was accepted")
        default:
          let flags = test["flags"]?.arrayValue?.compactMap(\.stringValue).joined(separator: ",") ?? ""
          outcome.acceptable.append("tcId \(id) [\(flags)]: \(accepted ? "accepted" : "rejected")")
        }
        outcome.checked += 1
      }
    }
    for line in outcome.acceptable { print("Wycheproof \(file) acceptable case \(line)") }
    return outcome
  }

  @Test func ecdsaP256P1363CasesGiveTheirExpectedResults() throws {
    let outcome = try run("ecdsa_secp256r1_sha256_p1363_test.json", algorithm: .es256) { group in
      let key = group["publicKey"]!
      return try JWSVerificationKey(json: [
        "kty": "EC", "crv": "P-256",
        "x": .string(Base64URL.encode(integerBytes(key["wx"]!.stringValue!, length: 32))),
        "y": .string(Base64URL.encode(integerBytes(key["wy"]!.stringValue!, length: 32))),
      ])
    }
    #expect(outcome.checked == 262)
  }

  @Test func rsaPKCS1CasesGiveTheirExpectedResults() throws {
    let outcome = try run("rsa_signature_2048_sha256_test.json", algorithm: .rs256, key: Self.rsaKey)
    #expect(outcome.checked == 259)
    #expect(outcome.acceptable.count == 1)
  }

  @Test func rsaPSSCasesGiveTheirExpectedResults() throws {
    let outcome = try run("rsa_pss_2048_sha256_mgf1_32_test.json", algorithm: .ps256, key: Self.rsaKey)
    #expect(outcome.checked == 108)
  }

  @Test func ed25519CasesGiveTheirExpectedResults() throws {
    let outcome = try run("ed25519_test.json", algorithm: .edDSA) { group in
      let x = hexBytes(group["publicKey"]!["pk"]!.stringValue!)
      return try JWSVerificationKey(json: ["kty": "OKP", "crv": "Ed25519", "x": .string(Base64URL.encode(x))])
    }
    #expect(outcome.checked == 151)
  }

  /// Wycheproof's PSS file refuses signatures padded or truncated (tcId 104, 106), but neither file
  /// has a valid signature stripped of its leading zero: made here from every valid case, stripped
  /// when it starts with a zero byte (PKCS #1 tcId 258 does) and padded with one otherwise.
  @Test(arguments: [
    ("rsa_signature_2048_sha256_test.json", JWSAlgorithm.rs256), ("rsa_pss_2048_sha256_mgf1_32_test.json", .ps256),
  ])
  func validRSASignaturesStrippedOrPaddedAreRefused(file: String, algorithm: JWSAlgorithm) throws {
    let document = try TestVectors.json("wycheproof/\(file)")
    var stripped = 0
    var padded = 0
    for group in document["testGroups"]?.arrayValue ?? [] {
      let key = try Self.rsaKey(group)
      for test in group["tests"]?.arrayValue ?? [] where test["result"]?.stringValue == "valid" {
        let id = test["tcId"]?.int64Value ?? -1
        let message = hexBytes(test["msg"]?.stringValue ?? "")
        let signature = hexBytes(test["sig"]?.stringValue ?? "")
        var variants = [[0] + signature]
        if signature.first == 0 { variants.append(Array(signature.dropFirst())) }
        for variant in variants {
          let accepted = variant.withUnsafeBytes { sig in
            message.withUnsafeBytes { key.platformKey.isValidSignature(sig, for: $0, algorithm: algorithm) }
          }
          #expect(!accepted, "\(file) tcId \(id): a valid signature of \(variant.count) bytes was accepted")
          if variant.count < signature.count { stripped += 1 } else { padded += 1 }
        }
      }
    }
    #expect(padded > 0)
    #expect(stripped == (algorithm == .rs256 ? 1 : 0))
  }

  static func rsaKey(_ group: JSONValue) throws -> JWSVerificationKey {
    let key = group["publicKey"]!
    return try JWSVerificationKey(json: [
      "kty": "RSA",
      "n": .string(Base64URL.encode(integerBytes(key["modulus"]!.stringValue!))),
      "e": .string(Base64URL.encode(integerBytes(key["publicExponent"]!.stringValue!))),
    ])
  }
}
