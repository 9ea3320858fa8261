extension ECDSASignatureDER {
  /// The 64-byte r ‖ s form (JWS ES256) of a DER P-256 ECDSA signature, as the Security framework and
  /// `LAPrivateKey` return it (X9.62); `nil` unless `der` is exactly one strict DER
  /// `SEQUENCE { INTEGER r, INTEGER s }` of positive, minimally encoded integers of at most 32 bytes.
  /// This is encoding only; whether the signature verifies is the platform's check.
  package static func rawP256(fromDER der: [UInt8]) -> [UInt8]? {
    // The sequence's content is at most 70 bytes, so its length is a single short-form byte.
    guard der.count >= 8, der[0] == 0x30, Int(der[1]) == der.count - 2 else { return nil }
    var index = 2
    var raw: [UInt8] = []
    for _ in 0..<2 {
      guard index + 2 <= der.count, der[index] == 0x02 else { return nil }
      let length = Int(der[index + 1])
      let start = index + 2
      guard (1...33).contains(length), start + length <= der.count else { return nil }
      var value = der[start..<(start + length)]
      guard value.first! & 0x80 == 0 else { return nil }  // negative
      if value.count > 1 && value.first == 0 {
        guard value[value.startIndex + 1] & 0x80 != 0 else { return nil }  // not minimal
        value = value.dropFirst()
      }
      guard value.count <= 32, value.contains(where: { $0 != 0 }) else { return nil }
      raw += [UInt8](repeating: 0, count: 32 - value.count) + value
      index = start + length
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
