import Testing

@testable import XidJOSE

/// The DER form of P-256 signatures, both ways: ES256 signing reads OpenSSL's DER back into r ‖ s.
struct ECDSASignatureDERTests {
  static func roundTrip(_ raw: [UInt8]) -> [UInt8]? {
    var der = [UInt8](repeating: 0, count: ECDSASignatureDER.maximumLength)
    let length = raw.withUnsafeBytes { raw in
      der.withUnsafeMutableBufferPointer { ECDSASignatureDER.encode(rawP256: raw, into: $0) }
    }
    return der.withUnsafeBufferPointer { ECDSASignatureDER.decodeP256(UnsafeBufferPointer(rebasing: $0[..<length])) }
  }

  @Test func leadingZerosAndHighBitsSurviveTheRoundTrip() {
    let cases: [[UInt8]] = [
      [UInt8](repeating: 0x7F, count: 64),
      [UInt8](repeating: 0xFF, count: 64),
      [0, 0, 0] + [UInt8](repeating: 0x80, count: 29) + [0] + [UInt8](repeating: 1, count: 31),
      [UInt8](repeating: 0, count: 31) + [1] + [UInt8](repeating: 0, count: 31) + [0x80],
    ]
    for raw in cases { #expect(Self.roundTrip(raw) == raw) }
  }

  @Test(
    arguments: [
      [0x31, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01],  // not a sequence
      [0x30, 0x07, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01],  // wrong length
      [0x30, 0x06, 0x02, 0x01, 0x81, 0x02, 0x01, 0x01],  // negative r
      [0x30, 0x06, 0x02, 0x00, 0x02, 0x02, 0x01, 0x01],  // empty r
      [0x30, 0x06, 0x02, 0x01, 0x01, 0x03, 0x01, 0x01],  // s not an integer
    ] as [[UInt8]])
  func malformedSignaturesAreRefused(_ der: [UInt8]) {
    #expect(der.withUnsafeBufferPointer { ECDSASignatureDER.decodeP256($0) } == nil)
  }

  @Test func anIntegerLongerThan32BytesIsRefused() {
    let der: [UInt8] = [0x30, 0x26, 0x02, 0x21, 0x01] + [UInt8](repeating: 0x22, count: 32) + [0x02, 0x01, 0x01]
    #expect(der.withUnsafeBufferPointer { ECDSASignatureDER.decodeP256($0) } == nil)
  }
}
