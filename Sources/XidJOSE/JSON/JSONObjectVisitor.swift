extension JSONParser {
  /// A member's name, unescaped UTF-8, with its ``NameKey`` computed once for both the check for
  /// repeated names and the reader's match.
  struct MemberName {
    /// The name's bytes.
    let bytes: UnsafeBufferPointer<UInt8>
    /// The name's key.
    let key: NameKey
  }

  /// Reads a JSON document that must be one object, member by member, without building it: `member`
  /// gets each name and consumes its value with ``parseValue()`` or ``skipValue()``.
  ///
  /// The document is held to the same rules as ``parse(_:)``: unique member names (compared after
  /// unescaping), valid UTF-8 and escapes in every string, nothing after the object. Tokens use it
  /// to read their registered claims without building a dictionary of every claim.
  static func visitObject(
    _ input: UnsafeBufferPointer<UInt8>, _ member: (MemberName, inout JSONParser) throws -> Void
  ) throws {
    var parser = JSONParser(input: input)
    parser.skipWhitespace()
    guard parser.position < input.count, input[parser.position] == UInt8(ascii: "{") else {
      throw parser.error("expected a JSON object")
    }
    parser.position += 1
    // The object is a level of nesting, as it is for parse(_:): 64 levels in all.
    try parser.enter()
    parser.skipWhitespace()
    if parser.position < input.count, input[parser.position] == UInt8(ascii: "}") {
      parser.position += 1
    } else {
      // An ID token has some twenty members: their names fit on the stack.
      try withUnsafeTemporaryAllocation(of: MemberNames.Entry.self, capacity: MemberNames.stackCapacity) {
        var names = MemberNames(storage: $0)
        while true {
          parser.skipWhitespace()
          guard parser.position < input.count, input[parser.position] == UInt8(ascii: "\"") else {
            throw parser.error("expected a member name")
          }
          switch try parser.parseNameBytes() {
          case .range(let range, let isASCII):
            try parser.visitMember(
              UnsafeBufferPointer(rebasing: input[range]), plain: isASCII ? range : nil, names: &names, member)
          case .unescaped(let bytes):
            try bytes.withUnsafeBufferPointer { try parser.visitMember($0, plain: nil, names: &names, member) }
          }
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
    }
    parser.skipWhitespace()
    guard parser.position == input.count else { throw parser.error("unexpected data after the JSON value") }
  }

  /// Records a member's name (refusing a repeat), reads the `:` and hands the value to `member`.
  private mutating func visitMember(
    _ bytes: UnsafeBufferPointer<UInt8>, plain range: Range<Int>?, names: inout MemberNames,
    _ member: (MemberName, inout JSONParser) throws -> Void
  ) throws {
    let name = MemberName(bytes: bytes, key: NameKey(bytes))
    guard names.insert(name, plain: range, in: input) else { throw error("duplicate member name") }
    skipWhitespace()
    guard position < input.count, input[position] == UInt8(ascii: ":") else { throw error("expected ':'") }
    position += 1
    skipWhitespace()
    try member(name, &self)
  }

  /// A member name: a range of the input when it has no escapes (the usual case), else its bytes.
  enum NameBytes {
    /// The name as it stands in the input, and whether it is all ASCII.
    case range(Range<Int>, isASCII: Bool)
    /// The name's bytes after unescaping.
    case unescaped([UInt8])
  }

  /// Reads a member name (the opening quote is at `position`), validating it like any string.
  mutating func parseNameBytes() throws -> NameBytes {
    let start = position + 1
    // Every claim and header name is ASCII, so the scan's verdict spares it UTF-8 validation.
    let run = scanStringRun(from: start)
    if run.end < input.count, input[run.end] == UInt8(ascii: "\"") {
      let range = start..<run.end
      guard !run.hasNonASCII || validatedUTF8String(UnsafeBufferPointer(rebasing: input[range])) != nil else {
        throw error("invalid UTF-8 in a string")
      }
      position = run.end + 1
      return .range(range, isASCII: !run.hasNonASCII)
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
    let start = position + 1
    let run = scanStringRun(from: start)
    guard run.end < input.count else {
      position = run.end
      throw error("unterminated string")
    }
    switch input[run.end] {
    case UInt8(ascii: "\""):
      position = run.end
      if run.hasNonASCII, validatedUTF8String(UnsafeBufferPointer(rebasing: input[start..<run.end])) == nil {
        throw error("invalid UTF-8 in a string")
      }
      position += 1
    case UInt8(ascii: "\\"):
      // Escapes are rare in claims; validate this string the general way.
      _ = try parseString()
    default:
      position = run.end
      throw error("control character in a string")
    }
  }
}

/// The member names of one object seen so far, to refuse a repeated one without hashing strings
/// while they are all plain ASCII (as claim and header names are).
///
/// Names are the same when ``JSONParser/parse(_:)`` would take them for the same key of a
/// `[String: JSONValue]`: equal bytes, or canonically equivalent strings (`"é"` and `"e\u0301"`,
/// `"K"` and `"\u212A"`), which takes a character outside ASCII. So both readers accept and refuse
/// the same documents.
private struct MemberNames {
  /// A plain ASCII name: its key, and where it stands in the input.
  typealias Entry = (key: NameKey, range: Range<Int>)
  /// How many plain names the caller's stack storage holds; more move to ``strings``.
  static let stackCapacity = 32

  /// The names so far, while every one is plain ASCII and they fit.
  private let entries: UnsafeMutableBufferPointer<Entry>
  private var count = 0
  /// One bit per name kept in `entries`, chosen by its key (``NameKey/filterBit``): a name whose bit
  /// is clear is new without a look at the others, so the entries are compared only on a possible
  /// repeat (one or two of an ID token's twenty names, rather than each with every earlier one).
  /// Names made to share bits cost at most that comparison for each, as before the filter.
  private var seen: (UInt64, UInt64) = (0, 0)
  /// Every name so far as a string (whose equality and hash are canonical equivalence), from the
  /// first name that is escaped, outside ASCII or beyond the storage on.
  private var strings: Set<String>?

  /// Names kept in `storage` (uninitialized memory of trivial entries) while they fit.
  init(storage: UnsafeMutableBufferPointer<Entry>) { entries = storage }

  /// Records `name`, which stands at `range` of `input` when it is plain ASCII; `false` when the
  /// object already has it.
  mutating func insert(
    _ name: JSONParser.MemberName, plain range: Range<Int>?, in input: UnsafeBufferPointer<UInt8>
  ) -> Bool {
    if strings == nil {
      if let range, count < entries.count {
        let bit = name.key.filterBit
        let word = bit < 64 ? seen.0 : seen.1
        let mask = UInt64(1) << (bit & 63)
        if word & mask != 0 {
          // Keys hold a name's length and first bytes: only a long name needs its bytes compared.
          for index in 0..<count where entries[index].key == name.key {
            if name.key.isWhole
              || UnsafeBufferPointer(rebasing: input[entries[index].range]).elementsEqual(name.bytes)
            {
              return false
            }
          }
        } else if bit < 64 {
          seen.0 |= mask
        } else {
          seen.1 |= mask
        }
        entries[count] = (name.key, range)
        count += 1
        return true
      }
      strings = Set(entries[..<count].map { String(decoding: input[$0.range], as: UTF8.self) })
    }
    return strings!.insert(String(decoding: name.bytes, as: UTF8.self)).inserted
  }
}
