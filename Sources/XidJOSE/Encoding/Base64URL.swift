/// base64url without padding, as RFC 7515 §2 uses it in every part of a JWS and JWK.
///
/// Decoding is strict: padding (`=`), whitespace, characters outside the URL-safe alphabet, an
/// impossible length, and non-zero trailing bits are all rejected, so every byte string has exactly
/// one accepted encoding.
public enum Base64URL {
  private static let alphabet: [UInt8] = Array(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

  /// 0xFF marks a byte outside the alphabet.
  private static let decodeTable: [UInt8] = {
    var table = [UInt8](repeating: 0xFF, count: 256)
    for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
    return table
  }()

  /// The four positions of a quantum in one table: entry `position * 256 + byte` holds the byte's six
  /// bits already shifted into their place among the quantum's 24, and 0xFF00_0000 for a byte outside
  /// the alphabet. A quantum is then four loads and three ORs, and one test of the top byte over the
  /// whole input finds any bad character.
  private static let quantumTable: [UInt32] = {
    var table = [UInt32](repeating: 0xFF00_0000, count: 4 * 256)
    for (index, byte) in alphabet.enumerated() {
      for position in 0..<4 { table[position * 256 + Int(byte)] = UInt32(index) << (18 - 6 * position) }
    }
    return table
  }()

  /// Encodes bytes as base64url without padding.
  @inlinable
  public static func encode(_ bytes: some Sequence<UInt8>) -> String {
    // Inlined, so that a caller's contiguous bytes are encoded where they are, with no copy.
    if let text = bytes.withContiguousStorageIfAvailable({ encode(contiguous: $0) }) { return text }
    return Array(bytes).withUnsafeBufferPointer { encode(contiguous: $0) }
  }

  /// Encodes the bytes of a buffer as base64url without padding.
  @usableFromInline
  static func encode(contiguous input: UnsafeBufferPointer<UInt8>) -> String {
    String(unsafeUninitializedCapacity: encodedCount(input.count)) { encode(input, into: $0) }
  }

  /// Appends the base64url of `bytes` to `output`, for callers that assemble a JWS in one buffer.
  package static func append(_ bytes: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
    // Encoded on the stack, then appended as one copy (growing the array by repeated zeros first
    // cost more than the encoding).
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: encodedCount(bytes.count)) { buffer in
      let count = encode(bytes, into: buffer)
      output.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<count]))
    }
  }

  /// How many characters the base64url of `count` bytes has.
  private static func encodedCount(_ count: Int) -> Int { (count * 4 + 2) / 3 }

  /// Writes the base64url of `input` to `out`, which has room for it, and returns its length.
  private static func encode(_ input: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableBufferPointer<UInt8>) -> Int {
    alphabet.withUnsafeBufferPointer { table in
      var o = 0
      var i = 0
      while i + 3 <= input.count {
        let v = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
        out[o] = table[Int(v >> 18)]
        out[o + 1] = table[Int(v >> 12 & 0x3F)]
        out[o + 2] = table[Int(v >> 6 & 0x3F)]
        out[o + 3] = table[Int(v & 0x3F)]
        i += 3
        o += 4
      }
      let rest = input.count - i
      if rest > 0 {
        let v = UInt32(input[i]) << 16 | (rest == 2 ? UInt32(input[i + 1]) << 8 : 0)
        out[o] = table[Int(v >> 18)]
        out[o + 1] = table[Int(v >> 12 & 0x3F)]
        o += 2
        if rest == 2 {
          out[o] = table[Int(v >> 6 & 0x3F)]
          o += 1
        }
      }
      return o
    }
  }

  /// Decodes base64url text without padding.
  ///
  /// - Throws: ``XidError`` with code ``XidError/Code/invalidEncoding`` for padding, whitespace, a
  ///   character outside the alphabet, an impossible length or non-zero trailing bits.
  public static func decode(_ text: some StringProtocol) throws -> [UInt8] {
    var utf8 = String(text)
    return try utf8.withUTF8 { try decode($0) }
  }

  /// Decodes base64url from UTF-8 bytes without padding. See ``decode(_:)-(StringProtocol)``.
  public static func decode(_ utf8: UnsafeBufferPointer<UInt8>) throws -> [UInt8] {
    try [UInt8](unsafeUninitializedCapacity: decodedCount(utf8.count)) { out, written in
      written = try decode(utf8, into: out)
    }
  }

  /// How many bytes the base64url text of `count` characters decodes to.
  ///
  /// - Throws: ``XidError/Code/invalidEncoding`` for a length no encoding has.
  package static func decodedCount(_ count: Int) throws -> Int {
    guard count % 4 != 1 else {
      throw XidError(.invalidEncoding, "base64url text has an impossible length (\(count) characters)")
    }
    return count / 4 * 3 + (count % 4 == 0 ? 0 : count % 4 - 1)
  }

  /// Decodes base64url from UTF-8 bytes into `out`, which has room for ``decodedCount(_:)`` bytes,
  /// and returns how many it wrote. See ``decode(_:)-(StringProtocol)``.
  package static func decode(_ utf8: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableBufferPointer<UInt8>) throws
    -> Int
  {
    let count = utf8.count
    let outputCount = try decodedCount(count)
    precondition(out.count >= outputCount, "Base64URL.decode(_:into:) needs room for \(outputCount) bytes")
    return try quantumTable.withUnsafeBufferPointer { quanta in
      try decodeTable.withUnsafeBufferPointer { table in
        /// The 24 bits of the quantum at `i`, with the top byte set by a bad character.
        @inline(__always) func quantum(at i: Int) -> UInt32 {
          quanta[Int(utf8[i])] | quanta[256 + Int(utf8[i + 1])] | quanta[512 + Int(utf8[i + 2])]
            | quanta[768 + Int(utf8[i + 3])]
        }
        var quantumBits: UInt32 = 0
        var i = 0
        var o = 0
        // While another quantum follows, its room takes the fourth byte of one 32-bit store.
        if let base = UnsafeMutableRawPointer(out.baseAddress) {
          // Two quanta at a time while a third follows: six bytes in one 64-bit store, whose last
          // two bytes the next store overwrites.
          while i + 12 <= count {
            let v = quantum(at: i)
            let w = quantum(at: i + 4)
            quantumBits |= v | w
            base.storeBytes(of: (UInt64(v) << 40 | UInt64(w) << 16).bigEndian, toByteOffset: o, as: UInt64.self)
            i += 8
            o += 6
          }
          while i + 8 <= count {
            let v = quantum(at: i)
            quantumBits |= v
            base.storeBytes(of: (v << 8).bigEndian, toByteOffset: o, as: UInt32.self)
            i += 4
            o += 3
          }
        }
        // The last whole quantum, byte by byte.
        if i + 4 <= count {
          let v = quantum(at: i)
          quantumBits |= v
          out[o] = UInt8(truncatingIfNeeded: v >> 16)
          out[o + 1] = UInt8(truncatingIfNeeded: v >> 8)
          out[o + 2] = UInt8(truncatingIfNeeded: v)
          i += 4
          o += 3
        }
        // A bad character sets the top byte of its quantum; the tail's entries are 0...63 or 0xFF.
        var bad = UInt8(truncatingIfNeeded: quantumBits >> 24)
        var trailingBits: UInt8 = 0
        switch count - i {
        case 2:
          let a = table[Int(utf8[i])], b = table[Int(utf8[i + 1])]
          bad |= a | b
          out[o] = a << 2 | b >> 4
          trailingBits = b & 0x0F
          o += 1
        case 3:
          let a = table[Int(utf8[i])], b = table[Int(utf8[i + 1])], c = table[Int(utf8[i + 2])]
          bad |= a | b | c
          out[o] = a << 2 | b >> 4
          out[o + 1] = b << 4 | c >> 2
          trailingBits = c & 0x03
          o += 2
        default:
          break
        }
        // Any bit above 0x3F marks a character outside the alphabet.
        guard bad & 0xC0 == 0 else {
          throw XidError(
            .invalidEncoding,
            "base64url text contains padding, whitespace or a character outside the URL-safe alphabet")
        }
        guard trailingBits == 0 else {
          throw XidError(.invalidEncoding, "base64url text has non-zero trailing bits (not canonical)")
        }
        return o
      }
    }
  }
}
