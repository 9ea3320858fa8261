extension ECDSASignatureDER {
  /// The 64-byte r ‖ s form (JWS ES256) of a DER P-256 ECDSA signature, as the Security framework and
  /// `LAPrivateKey` return it (X9.62); `nil` unless `der` is exactly one strict DER
  /// `SEQUENCE { INTEGER r, INTEGER s }` of positive, minimally encoded integers of at most 32 bytes.
  /// This is encoding only; whether the signature verifies is the platform's check.
  package static func rawP256(fromDER der: [UInt8]) -> [UInt8]? {
    der.withUnsafeBufferPointer { rawP256(fromDER: $0) }
  }

  /// ``rawP256(fromDER:)-([UInt8])`` of DER bytes in place, such as OpenSSL's output buffer.
  package static func rawP256(fromDER der: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
    // The sequence's content is at most 70 bytes, so its length is a single short-form byte.
    guard der.count >= 8, der[0] == 0x30, Int(der[1]) == der.count - 2 else { return nil }
    var raw = [UInt8](repeating: 0, count: 64)
    var index = 2
    for half in 0..<2 {
      guard index + 2 <= der.count, der[index] == 0x02 else { return nil }
      let length = Int(der[index + 1])
      var start = index + 2
      let end = start + length
      guard (1...33).contains(length), end <= der.count else { return nil }
      guard der[start] & 0x80 == 0 else { return nil }  // negative
      if length > 1 && der[start] == 0 {
        guard der[start + 1] & 0x80 != 0 else { return nil }  // not minimal
        start += 1
      }
      guard end - start <= 32, der[start..<end].contains(where: { $0 != 0 }) else { return nil }
      // Right-aligned in its 32 bytes: the leading zeros DER leaves out come back.
      for (offset, byte) in der[start..<end].enumerated() { raw[half * 32 + 32 - (end - start) + offset] = byte }
      index = end
    }
    return index == der.count ? raw : nil
  }
}

extension ECDSASignatureDER {
  /// The DER form of a 64-byte P-256 r ‖ s signature, as the Security framework returns signatures.
  package static func derP256(fromRaw raw: [UInt8]) -> [UInt8] {
    precondition(raw.count == 64, "a P-256 r ‖ s signature is 64 bytes")
    return [UInt8](unsafeUninitializedCapacity: maximumLength) { buffer, count in
      count = raw.withUnsafeBytes { encode(rawP256: $0, into: buffer) }
    }
  }
}
