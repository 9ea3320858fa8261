/// A JSON member name's length and first 15 bytes, packed in two words, so that names compare as
/// two integers (tokens are parsed on every verification, and their names are short).
///
/// Two names of at most ``wholeLength`` bytes are equal exactly when their keys are. Longer names
/// with equal keys share their first 15 bytes and their length; their bytes decide.
struct NameKey: Equatable, Sendable {
  /// The longest name a key holds whole.
  static let wholeLength = 15

  private var low: UInt64 = 0
  private var high: UInt64 = 0

  init(_ bytes: UnsafeBufferPointer<UInt8>) {
    let count = bytes.count
    guard let base = bytes.baseAddress else { return }
    let raw = UnsafeRawPointer(base)
    if count >= 8 {
      low = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))
      // The next up to 7 bytes; a name of 16 or more bytes fills them too.
      let rest = Swift.min(count - 8, 7)
      if rest == 7 {
        // Bytes 7...14 read as one word, shifted right by a byte: byte 7 is low's already.
        high = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 7, as: UInt64.self)) >> 8
      } else {
        for index in 0..<rest { high |= UInt64(base[8 + index]) << (8 * index) }
      }
    } else {
      for index in 0..<count { low |= UInt64(base[index]) << (8 * index) }
    }
    high |= UInt64(Swift.min(count, 255)) << 56
  }

  /// How many values ``filterBit`` takes.
  static let filterBitCount = 128

  /// A number from 0 to 127 that equal keys share, spread over the range for different ones: the
  /// bit a name takes in a filter of the names seen (a multiplicative hash of both words' bits).
  var filterBit: Int {
    Int(truncatingIfNeeded: ((low ^ (high &* 0x9E37_79B9_7F4A_7C15)) &* 0xBF58_476D_1CE4_E5B9) >> 57)
  }

  /// Whether the key holds the whole name, so that equal keys mean equal names.
  var isWhole: Bool { high >> 56 <= UInt64(Self.wholeLength) }
}
