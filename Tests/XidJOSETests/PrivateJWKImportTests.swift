import Testing
import XidJOSE
import XidTestSupport

/// Importing a private JWK: its public members must be those of its private key, or a key would
/// sign what its own public JWK never verifies (found by the FuzzJWK fuzz target: on Linux, an
/// Ed25519 private JWK with one character of `x` changed was imported).
struct PrivateJWKImportTests {
  /// RFC 8037 A.1.
  static let ed25519: JSONValue = [
    "kty": "OKP", "crv": "Ed25519", "d": "nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A",
    "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo",
  ]
  /// RFC 7517 A.2.
  static let p256: JSONValue = [
    "kty": "EC", "crv": "P-256", "d": "870MB6gfuTJ4HtUnUvYMyJpr5eUZNP4Bk43bVdj3eAE",
    "x": "MKBCTNIcKUSDii11ySs3526iDZ8AiTo7Tu6KPAqv7D4", "y": "4Etl6SRW2YiLUrN5vfvVHuhp7x8PxltmWWlbbM4IFyM",
  ]

  static func with(_ base: JSONValue, _ changes: [String: JSONValue]) -> JSONValue {
    .object(base.objectValue!.merging(changes) { _, new in new })
  }

  @Test(arguments: [ed25519, p256])
  func anImportedPrivateJWKSignsWhatItsPublicJWKVerifies(json: JSONValue) throws {
    let signer = try JWSSigningKey(privateJWK: json)
    let jws = try CompactJWS(parsing: signer.sign(Array("payload".utf8)))
    #expect(try jws.verify(with: signer.verificationKey(), allowedAlgorithms: [signer.algorithm]) == signer.algorithm)
    #expect(signer.publicJWK.members["x"] == json["x"])
  }

  @Test func anEd25519PrivateJWKWithAChangedPublicKeyIsRefused() {
    // The fuzzer's input: one character of x changed, still a valid Ed25519 public key.
    let changed = Self.with(Self.ed25519, ["x": "11qYAYKxCrfVS_7TyWQHOj7hcvPapiMlrwIaaPcHURo"])
    #expect(throws: Never.self) { try JWK(json: .object(changed.objectValue!.filter { $0.key != "d" })) }
    expectXidError(.invalidKey) { try JWSSigningKey(privateJWK: changed) }
  }

  @Test(arguments: [JWSAlgorithm.edDSA, .es256])
  func aPrivateJWKWithThePublicKeyOfAnotherKeyIsRefused(algorithm: JWSAlgorithm) throws {
    let other = try JWSSigningKey.generate(for: algorithm).publicJWK.members
    let json =
      algorithm == .edDSA
      ? Self.with(Self.ed25519, ["x": other["x"]!])
      : Self.with(Self.p256, ["x": other["x"]!, "y": other["y"]!])
    expectXidError(.invalidKey) { try JWSSigningKey(privateJWK: json) }
  }
}
