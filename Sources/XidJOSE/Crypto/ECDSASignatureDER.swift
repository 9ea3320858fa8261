/// The DER form of an ECDSA signature (`SEQUENCE { INTEGER r, INTEGER s }`, SEC 1 / RFC 3279), made
/// from the r ‖ s form JWS uses. This is encoding only; the signature check is the platform's.
package enum ECDSASignatureDER {
  /// The longest P-256 signature in DER: two 33-byte integers with their headers, and the sequence's.
  static let maximumLength = 2 + 2 * (2 + 33)

  /// Writes the DER of a 64-byte P-256 r ‖ s into `output` (at least ``maximumLength`` bytes) and
  /// returns its length.
  static func encode(rawP256 signature: UnsafeRawBufferPointer, into output: UnsafeMutableBufferPointer<UInt8>) -> Int {
    precondition(signature.count == 64 && output.count >= maximumLength)
    var length = 2
    for half in [0..<32, 32..<64] {
      var start = half.lowerBound
      // DER integers are minimal: no leading zero bytes, except one before a set high bit.
      while start < half.upperBound - 1 && signature[start] == 0 { start += 1 }
      let padded = signature[start] >= 0x80
      let count = half.upperBound - start + (padded ? 1 : 0)
      output[length] = 0x02
      output[length + 1] = UInt8(count)
      length += 2
      if padded {
        output[length] = 0
        length += 1
      }
      for index in start..<half.upperBound {
        output[length] = signature[index]
        length += 1
      }
    }
    output[0] = 0x30
    output[1] = UInt8(length - 2)
    return length
  }
}
