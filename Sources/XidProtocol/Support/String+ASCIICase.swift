extension String {
  /// Whether this string and `other` have the same bytes but for the case of ASCII letters: how
  /// HTTP field names (RFC 9110 §5.1) and URL schemes (RFC 3986 §3.1) compare.
  ///
  /// Byte by byte: Foundation's `caseInsensitiveCompare` costs about 0.5 µs a comparison on Linux,
  /// and a header lookup compares every field.
  package func equalsIgnoringASCIICase(_ other: String) -> Bool {
    guard utf8.count == other.utf8.count else { return false }
    // Native strings compare as two buffers; the generic comparison of two views costs several
    // times more, and a response's fields are looked up on every request.
    let contiguous = utf8.withContiguousStorageIfAvailable { lhs in
      other.utf8.withContiguousStorageIfAvailable { rhs in
        lhs.indices.allSatisfy { Self.asciiCaseEqual(lhs[$0], rhs[$0]) }
      }
    }
    if let contiguous, let equal = contiguous { return equal }
    return utf8.elementsEqual(other.utf8, by: Self.asciiCaseEqual)
  }

  /// Whether two bytes are equal but for the case of an ASCII letter.
  private static func asciiCaseEqual(_ x: UInt8, _ y: UInt8) -> Bool { x.asciiLowercased == y.asciiLowercased }
}

extension UInt8 {
  /// This byte with an ASCII capital letter made small; any other byte as it is.
  package var asciiLowercased: UInt8 { self >= UInt8(ascii: "A") && self <= UInt8(ascii: "Z") ? self | 0x20 : self }
}
