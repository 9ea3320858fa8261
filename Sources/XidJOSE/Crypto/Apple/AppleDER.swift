#if canImport(CryptoKit) && canImport(Security)
  /// The little DER the Security framework's RSA key format needs: a PKCS#1 `RSAPublicKey`,
  /// `SEQUENCE { INTEGER n, INTEGER e }` (RFC 8017 §A.1.1), written to import a key and read back to
  /// export one.
  enum AppleDER {
    /// The DER `RSAPublicKey` of a big-endian modulus and exponent.
    static func rsaPublicKey(modulus: [UInt8], exponent: [UInt8]) -> [UInt8] {
      let body = integer(modulus) + integer(exponent)
      return [0x30] + length(body.count) + body
    }

    /// The modulus and exponent of a DER `RSAPublicKey`, big-endian without leading zero bytes; `nil`
    /// unless `der` is exactly one well-formed `RSAPublicKey` with positive integers.
    static func parseRSAPublicKey(_ der: [UInt8]) -> (modulus: [UInt8], exponent: [UInt8])? {
      var outer = Reader(der[...])
      guard var sequence = outer.read(tag: 0x30), outer.isAtEnd,
        let n = sequence.readPositiveInteger(), let e = sequence.readPositiveInteger(), sequence.isAtEnd
      else { return nil }
      return (n, e)
    }

    /// An INTEGER of a non-negative big-endian number: minimal, with a 0x00 byte in front when the
    /// high bit is set so that it does not read as negative.
    private static func integer(_ bytes: [UInt8]) -> [UInt8] {
      var content = Array(bytes.drop { $0 == 0 })
      if content.isEmpty || content[0] & 0x80 != 0 { content.insert(0, at: 0) }
      return [0x02] + length(content.count) + content
    }

    /// A definite length: one byte below 128, else 0x80 | the count of big-endian length bytes.
    private static func length(_ count: Int) -> [UInt8] {
      guard count >= 0x80 else { return [UInt8(count)] }
      var bytes: [UInt8] = []
      var rest = count
      while rest > 0 {
        bytes.insert(UInt8(rest & 0xFF), at: 0)
        rest >>= 8
      }
      return [0x80 | UInt8(bytes.count)] + bytes
    }

    /// A bounds-checked reader of DER tag-length-value items.
    private struct Reader {
      private var bytes: ArraySlice<UInt8>

      init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

      var isAtEnd: Bool { bytes.isEmpty }

      /// A reader of the next item's contents if its tag is `tag` and its length is definite, minimal
      /// and within the input; the item is consumed.
      mutating func read(tag: UInt8) -> Reader? {
        guard bytes.first == tag, let first = bytes.dropFirst().first else { return nil }
        var rest = bytes.dropFirst(2)
        var length = Int(first)
        if first >= 0x80 {
          let count = Int(first & 0x7F)
          guard (1...4).contains(count), rest.count >= count, rest.first != 0 else { return nil }
          length = rest.prefix(count).reduce(0) { $0 << 8 | Int($1) }
          guard length >= 0x80 else { return nil }
          rest = rest.dropFirst(count)
        }
        guard rest.count >= length else { return nil }
        bytes = rest.dropFirst(length)
        return Reader(rest.prefix(length))
      }

      /// The next INTEGER as big-endian bytes without leading zeros; `nil` unless it is positive.
      mutating func readPositiveInteger() -> [UInt8]? {
        guard let item = read(tag: 0x02), let top = item.bytes.first, top & 0x80 == 0 else { return nil }
        let value = Array(item.bytes.drop { $0 == 0 })
        return value.isEmpty ? nil : value
      }
    }
  }
#endif
