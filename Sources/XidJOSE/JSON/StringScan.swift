extension JSONParser {
  /// Where a string's plain run of bytes ends: at the first `"`, `\` or control character at or
  /// after `start` (or at the end of the input), and whether any byte before it is outside ASCII.
  struct StringRun {
    /// The index of the byte that ends the run, or the input's count when nothing does.
    var end: Int
    /// Whether a byte of the run is 0x80 or above, so that it needs UTF-8 validation.
    var hasNonASCII: Bool
  }

  /// Scans a string's bytes eight at a time (the members of a token are mostly long plain strings:
  /// a byte-at-a-time loop was a fifth of parsing one).
  ///
  /// Each word is tested for the three bytes that end a run with the classic "has a zero byte"
  /// expression; its lowest flagged byte is exact, which is all a scan for the first one needs.
  func scanStringRun(from start: Int) -> StringRun { Self.scanStringRun(in: input, from: start) }

  /// ``scanStringRun(from:)`` over any bytes.
  static func scanStringRun(in input: UnsafeBufferPointer<UInt8>, from start: Int) -> StringRun {
    let count = input.count
    guard let base = input.baseAddress else { return StringRun(end: start, hasNonASCII: false) }
    let raw = UnsafeRawPointer(base)
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    var index = start
    var high: UInt64 = 0
    while index + 8 <= count {
      let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
      let quote = word ^ (ones &* 0x22)
      let backslash = word ^ (ones &* 0x5C)
      let stops =
        ((quote &- ones) & ~quote | (backslash &- ones) & ~backslash | (word &- ones &* 0x20) & ~word) & highs
      if stops != 0 {
        let bit = stops.trailingZeroBitCount
        // The bytes before the stop: those whose high bit lies below the stop's.
        high |= word & highs & ((1 << UInt64(bit & ~7)) &- 1)
        return StringRun(end: index + bit >> 3, hasNonASCII: high != 0)
      }
      high |= word & highs
      index += 8
    }
    while index < count {
      let byte = base[index]
      if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { break }
      high |= UInt64(byte & 0x80)
      index += 1
    }
    return StringRun(end: index, hasNonASCII: high != 0)
  }
}

/// What JSON text needs of a string's bytes, for code outside this module that writes JSON itself.
package enum JSONText {
  /// Whether `bytes` stand as they are between quotes in JSON: no quote, backslash or control
  /// character (RFC 8259 §7), exactly what ``JSONValue``'s serializer escapes. Scanned eight bytes at
  /// a time, as the parser scans strings.
  package static func isPlainString(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    JSONParser.scanStringRun(in: bytes, from: 0).end == bytes.count
  }
}
