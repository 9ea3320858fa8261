extension JSONParser {
  /// Reads a JSON document that must be one object, member by member, without building it: `member`
  /// gets each name (unescaped UTF-8) and consumes its value with ``parseValue()`` or ``skipValue()``.
  ///
  /// The document is held to the same rules as ``parse(_:)``: unique member names (compared after
  /// unescaping), valid UTF-8 and escapes in every string, nothing after the object. Tokens use it
  /// to read their registered claims without building a dictionary of every claim.
  static func visitObject(
    _ input: UnsafeBufferPointer<UInt8>, _ member: (UnsafeBufferPointer<UInt8>, inout JSONParser) throws -> Void
  ) throws {
    var parser = JSONParser(input: input)
    parser.skipWhitespace()
    guard parser.position < input.count, input[parser.position] == UInt8(ascii: "{") else {
      throw parser.error("expected a JSON object")
    }
    parser.position += 1
    // The object is a level of nesting, as it is for parse(_:): 64 levels in all.
    try parser.enter()
    var names = MemberNames()
    parser.skipWhitespace()
    if parser.position < input.count, input[parser.position] == UInt8(ascii: "}") {
      parser.position += 1
    } else {
      while true {
        parser.skipWhitespace()
        guard parser.position < input.count, input[parser.position] == UInt8(ascii: "\"") else {
          throw parser.error("expected a member name")
        }
        let name = try parser.parseNameBytes()
        guard names.insert(name, in: input) else { throw parser.error("duplicate member name") }
        parser.skipWhitespace()
        guard parser.position < input.count, input[parser.position] == UInt8(ascii: ":") else {
          throw parser.error("expected ':'")
        }
        parser.position += 1
        parser.skipWhitespace()
        try names.withBytes(name, in: input) { try member($0, &parser) }
        parser.skipWhitespace()
        guard parser.position < input.count else { throw parser.error("unterminated object") }
        if input[parser.position] == UInt8(ascii: ",") {
          parser.position += 1
          continue
        }
        guard input[parser.position] == UInt8(ascii: "}") else { throw parser.error("expected ',' or '}'") }
        parser.position += 1
        break
      }
    }
    parser.skipWhitespace()
    guard parser.position == input.count else { throw parser.error("unexpected data after the JSON value") }
  }

  /// A member name: a range of the input when it has no escapes (the usual case), else its bytes.
  enum NameBytes {
    case range(Range<Int>)
    case unescaped([UInt8])
  }

  /// Reads a member name (the opening quote is at `position`), validating it like any string.
  mutating func parseNameBytes() throws -> NameBytes {
    let start = position + 1
    var index = start
    // The bits of every byte, so that an all-ASCII name (every claim and header name) needs no UTF-8
    // validation.
    var bits: UInt8 = 0
    while index < input.count, input[index] != UInt8(ascii: "\""), input[index] != UInt8(ascii: "\\"),
      input[index] >= 0x20
    {
      bits |= input[index]
      index += 1
    }
    if index < input.count, input[index] == UInt8(ascii: "\"") {
      let range = start..<index
      guard bits < 0x80 || validatedUTF8String(UnsafeBufferPointer(rebasing: input[range])) != nil else {
        throw error("invalid UTF-8 in a string")
      }
      position = index + 1
      return .range(range)
    }
    // Escapes (or an error): take the general path, which validates and unescapes.
    return .unescaped(Array(try parseString().utf8))
  }

  /// Skips a value, validating it as ``parseValue()`` would but building nothing for strings,
  /// numbers and literals (the common unknown claims).
  mutating func skipValue() throws {
    guard position < input.count else { throw error("unexpected end of input") }
    guard input[position] == UInt8(ascii: "\"") else {
      _ = try parseValue()
      return
    }
    position += 1
    let start = position
    var ascii = true
    while position < input.count {
      let byte = input[position]
      switch byte {
      case UInt8(ascii: "\""):
        if !ascii, validatedUTF8String(UnsafeBufferPointer(rebasing: input[start..<position])) == nil {
          throw error("invalid UTF-8 in a string")
        }
        position += 1
        return
      case UInt8(ascii: "\\"):
        // Escapes are rare in claims; validate this string the general way.
        position = start - 1
        _ = try parseString()
        return
      case 0..<0x20:
        throw error("control character in a string")
      default:
        if byte >= 0x80 { ascii = false }
        position += 1
      }
    }
    throw error("unterminated string")
  }
}

/// The member names of one object seen so far, to refuse a repeated one without hashing strings
/// while they are all ASCII (as claim and header names are).
///
/// Names are the same when ``parse(_:)`` would take them for the same key of a `[String: JSONValue]`:
/// equal bytes, or canonically equivalent strings (`"é"` and `"e\u0301"`, `"K"` and `"\u212A"`), which
/// takes a character outside ASCII. So both readers accept and refuse the same documents.
private struct MemberNames {
  /// The names so far, each with its key, while they are all ASCII.
  private var seen: [(key: NameKey, name: JSONParser.NameBytes)] = {
    var seen: [(key: NameKey, name: JSONParser.NameBytes)] = []
    // An ID token has some twenty members: room for them without growing.
    seen.reserveCapacity(32)
    return seen
  }()
  /// Every name so far as a string (whose equality and hash are canonical equivalence), from the
  /// first name outside ASCII on.
  private var strings: Set<String>?

  /// Records `name`; `false` when the object already has it.
  mutating func insert(_ name: JSONParser.NameBytes, in input: UnsafeBufferPointer<UInt8>) -> Bool {
    if strings == nil {
      let key = withBytes(name, in: input) { bytes in bytes.contains { $0 >= 0x80 } ? nil : NameKey(bytes) }
      if let key {
        // Keys hold a name's length and first bytes: only a long name needs its bytes compared.
        for other in seen where other.key == key {
          if key.isWhole
            || withBytes(other.name, in: input, { a in withBytes(name, in: input) { a.elementsEqual($0) } })
          {
            return false
          }
        }
        seen.append((key, name))
        return true
      }
      strings = Set(seen.map { string($0.name, in: input) })
    }
    return strings!.insert(string(name, in: input)).inserted
  }

  private func string(_ name: JSONParser.NameBytes, in input: UnsafeBufferPointer<UInt8>) -> String {
    withBytes(name, in: input) { String(decoding: $0, as: UTF8.self) }
  }

  func withBytes<R>(
    _ name: JSONParser.NameBytes, in input: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) throws -> R
  ) rethrows -> R {
    switch name {
    case .range(let range): return try body(UnsafeBufferPointer(rebasing: input[range]))
    case .unescaped(let bytes): return try bytes.withUnsafeBufferPointer(body)
    }
  }
}
