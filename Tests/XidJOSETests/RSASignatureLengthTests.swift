import Testing
import XidTestSupport

@testable import XidJOSE

/// An RSA signature is exactly as long as the modulus (RFC 8017 §8.1.2, §8.2.2), on every platform:
/// a valid signature with a leading zero byte stripped, or with one prepended, does not verify.
struct RSASignatureLengthTests {
  /// A token signed by `signer` whose signature starts with a zero byte: about one in 128 to 256 is.
  static func tokenWithLeadingZero(signedBy signer: JWSSigningKey) throws -> (input: String, signature: [UInt8]) {
    for attempt in 0..<5_000 {
      let token = try signer.sign(Array(#"{"sub":"alice","n":\#(attempt)}"#.utf8))
      let parts = token.split(separator: ".")
      let signature = try Base64URL.decode(parts[2])
      if signature.first == 0 { return (parts[0] + "." + parts[1], signature) }
    }
    Issue.record("no signature of 5000 started with a zero byte")
    throw XidError(.cryptoFailure, "no signature with a leading zero")
  }

  @Test(arguments: [JWSAlgorithm.rs256, .ps256])
  func aValidRSASignatureOfAnotherLengthThanTheModulusIsRefused(algorithm: JWSAlgorithm) throws {
    let signer = try JWSSigningKey.generate(for: algorithm)
    let key = try signer.verificationKey()
    let (input, signature) = try Self.tokenWithLeadingZero(signedBy: signer)
    #expect(signature.count == 256)
    let valid = try CompactJWS(parsing: input + "." + Base64URL.encode(signature))
    #expect(try valid.verify(with: key, allowedAlgorithms: [algorithm]) == algorithm)
    // Stripped of its leading zero, and padded with one.
    for bad in [Array(signature.dropFirst()), [0] + signature] {
      let jws = try CompactJWS(parsing: input + "." + Base64URL.encode(bad))
      expectXidError(.invalidSignature) { try jws.verify(with: key, allowedAlgorithms: [algorithm]) }
    }
  }
}
