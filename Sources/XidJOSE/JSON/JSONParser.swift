extension JSONValue {
  /// The largest JSON document Xid parses: 1 MiB. Tokens have a tighter limit of their own.
  public static let maximumDocumentSize = 1 << 20

  /// Parses a JSON document.
  ///
  /// - Throws: ``XidError`` with code ``XidError/Code/invalidJSON`` for anything that is not strict
  ///   RFC 8259 JSON (with unique member names and at most 64 levels of nesting), and
  ///   ``XidError/Code/inputTooLarge`` above ``maximumDocumentSize``.
  public init(parsing bytes: some Collection<UInt8>) throws {
    guard bytes.count <= Self.maximumDocumentSize else {
      throw XidError(
        .inputTooLarge, "JSON document of \(bytes.count) bytes exceeds \(Self.maximumDocumentSize)")
    }
    if let parsed = try bytes.withContiguousStorageIfAvailable({ try JSONParser.parse($0) }) {
      self = parsed
    } else {
      self = try Array(bytes).withUnsafeBufferPointer { try JSONParser.parse($0) }
    }
  }

  /// Parses a JSON document from text. See ``init(parsing:)-(Collection<UInt8>)``.
  public init(parsing text: String) throws {
    try self.init(parsing: text.utf8)
  }
}

/// A strict, non-recursive-descent-bounded JSON parser over UTF-8 bytes.
struct JSONParser {
  let input: UnsafeBufferPointer<UInt8>
  var position = 0
  private var depth = 0
  private static let maximumDepth = 64

  static func parse(_ input: UnsafeBufferPointer<UInt8>) throws -> JSONValue {
    var parser = JSONParser(input: input)
    parser.skipWhitespace()
    let value = try parser.parseValue()
    parser.skipWhitespace()
    guard parser.position == input.count else { throw parser.error("unexpected data after the JSON value") }
    return value
  }

  init(input: UnsafeBufferPointer<UInt8>) { self.input = input }

  func error(_ what: String) -> XidError {
    XidError(.invalidJSON, "invalid JSON at byte \(position): \(what)")
  }

  mutating func skipWhitespace() {
    while position < input.count {
      switch input[position] {
      case 0x20, 0x09, 0x0A, 0x0D: position += 1
      default: return
      }
    }
  }

  mutating func parseValue() throws -> JSONValue {
    guard position < input.count else { throw error("unexpected end of input") }
    switch input[position] {
    case UInt8(ascii: "{"): return try parseObject()
    case UInt8(ascii: "["): return try parseArray()
    case UInt8(ascii: "\""): return .string(try parseString())
    case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
    case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
    case UInt8(ascii: "n"): try expectLiteral("null"); return .null
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
    default: throw error("unexpected character")
    }
  }

  private mutating func expectLiteral(_ literal: StaticString) throws {
    let count = literal.utf8CodeUnitCount
    guard input.count - position >= count,
      memcmpEqual(input.baseAddress! + position, literal.utf8Start, count)
    else { throw error("invalid literal") }
    position += count
  }

  private func memcmpEqual(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int) -> Bool {
    for i in 0..<count where a[i] != b[i] { return false }
    return true
  }

  /// Counts one more level of nesting; the object of ``visitObject(_:_:)`` counts as one too.
  mutating func enter() throws {
    depth += 1
    guard depth <= Self.maximumDepth else { throw error("nesting deeper than \(Self.maximumDepth) levels") }
  }

  private mutating func parseObject() throws -> JSONValue {
    try enter()
    defer { depth -= 1 }
    position += 1
    // Headers and claims sets have a few to a few dozen members; start with room for the usual.
    var members = [String: JSONValue](minimumCapacity: 16)
    skipWhitespace()
    if position < input.count, input[position] == UInt8(ascii: "}") {
      position += 1
      return .object(members)
    }
    while true {
      skipWhitespace()
      guard position < input.count, input[position] == UInt8(ascii: "\"") else {
        throw error("expected a member name")
      }
      let name = try parseString()
      skipWhitespace()
      guard position < input.count, input[position] == UInt8(ascii: ":") else { throw error("expected ':'") }
      position += 1
      skipWhitespace()
      let value = try parseValue()
      guard members.updateValue(value, forKey: name) == nil else {
        throw error("duplicate member name")
      }
      skipWhitespace()
      guard position < input.count else { throw error("unterminated object") }
      switch input[position] {
      case UInt8(ascii: ","): position += 1
      case UInt8(ascii: "}"):
        position += 1
        return .object(members)
      default: throw error("expected ',' or '}'")
      }
    }
  }

  private mutating func parseArray() throws -> JSONValue {
    try enter()
    defer { depth -= 1 }
    position += 1
    var elements: [JSONValue] = []
    skipWhitespace()
    if position < input.count, input[position] == UInt8(ascii: "]") {
      position += 1
      return .array(elements)
    }
    while true {
      skipWhitespace()
      elements.append(try parseValue())
      skipWhitespace()
      guard position < input.count else { throw error("unterminated array") }
      switch input[position] {
      case UInt8(ascii: ","): position += 1
      case UInt8(ascii: "]"):
        position += 1
        return .array(elements)
      default: throw error("expected ',' or ']'")
      }
    }
  }

  mutating func parseString() throws -> String {
    position += 1  // opening quote
    let start = position
    // Fast path: no escapes.
    let run = scanStringRun(from: start)
    position = run.end
    if position < input.count, input[position] == UInt8(ascii: "\"") {
      let utf8 = UnsafeBufferPointer(rebasing: input[start..<position])
      let string = run.hasNonASCII ? try makeString(utf8) : String(decoding: utf8, as: UTF8.self)
      position += 1
      return string
    }
    if position < input.count, input[position] < 0x20 { throw error("control character in a string") }
    var bytes = Array(input[start..<position])
    while position < input.count {
      let byte = input[position]
      switch byte {
      case UInt8(ascii: "\""):
        position += 1
        return try bytes.withUnsafeBufferPointer { try makeString($0) }
      case UInt8(ascii: "\\"):
        position += 1
        try parseEscape(into: &bytes)
      case 0..<0x20:
        throw error("control character in a string")
      default:
        bytes.append(byte)
        position += 1
      }
    }
    throw error("unterminated string")
  }

  private mutating func parseEscape(into bytes: inout [UInt8]) throws {
    guard position < input.count else { throw error("unterminated escape") }
    let byte = input[position]
    position += 1
    switch byte {
    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): bytes.append(byte)
    case UInt8(ascii: "b"): bytes.append(0x08)
    case UInt8(ascii: "f"): bytes.append(0x0C)
    case UInt8(ascii: "n"): bytes.append(0x0A)
    case UInt8(ascii: "r"): bytes.append(0x0D)
    case UInt8(ascii: "t"): bytes.append(0x09)
    case UInt8(ascii: "u"):
      var scalar = UInt32(try parseHex4())
      if (0xD800..<0xDC00).contains(scalar) {
        guard input.count - position >= 6, input[position] == UInt8(ascii: "\\"),
          input[position + 1] == UInt8(ascii: "u")
        else { throw error("lone surrogate in \\u escape") }
        position += 2
        let low = UInt32(try parseHex4())
        guard (0xDC00..<0xE000).contains(low) else { throw error("invalid surrogate pair") }
        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
      } else if (0xDC00..<0xE000).contains(scalar) {
        throw error("lone surrogate in \\u escape")
      }
      guard let unicode = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
      bytes.append(contentsOf: UTF8.encode(unicode)!)
    default:
      throw error("invalid escape")
    }
  }

  private mutating func parseHex4() throws -> UInt16 {
    guard input.count - position >= 4 else { throw error("truncated \\u escape") }
    var value: UInt16 = 0
    for _ in 0..<4 {
      let byte = input[position]
      let digit: UInt8
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
      default: throw error("invalid hex digit in \\u escape")
      }
      value = value << 4 | UInt16(digit)
      position += 1
    }
    return value
  }

  private func makeString(_ utf8: UnsafeBufferPointer<UInt8>) throws -> String {
    guard let string = validatedUTF8String(utf8) else { throw error("invalid UTF-8 in a string") }
    return string
  }

  private mutating func parseNumber() throws -> JSONValue {
    let start = position
    let negative = input[position] == UInt8(ascii: "-")
    if negative { position += 1 }
    guard position < input.count else { throw error("truncated number") }
    // The integer part's value is read as its digits are checked: every NumericDate is an integer,
    // and reading its digits a second time cost a fifth of parsing it.
    var magnitude: UInt64 = 0
    if input[position] == UInt8(ascii: "0") {
      position += 1
    } else if (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(input[position]) {
      while position < input.count, case let digit = input[position] &- UInt8(ascii: "0"), digit < 10 {
        // Wraps past 19 digits; such an integer is read from its text below.
        magnitude = magnitude &* 10 &+ UInt64(digit)
        position += 1
      }
    } else {
      throw error("invalid number")
    }
    var isInteger = true
    if position < input.count, input[position] == UInt8(ascii: ".") {
      isInteger = false
      position += 1
      guard skipDigits() > 0 else { throw error("invalid fraction") }
    }
    if position < input.count, input[position] | 0x20 == UInt8(ascii: "e") {
      isInteger = false
      position += 1
      if position < input.count, input[position] == UInt8(ascii: "+") || input[position] == UInt8(ascii: "-") {
        position += 1
      }
      guard skipDigits() > 0 else { throw error("invalid exponent") }
    }
    // Up to 18 digits an integer fits an Int64 whatever they are.
    if isInteger, position - start - (negative ? 1 : 0) <= 18 {
      let value = Int64(magnitude)
      return .int(negative ? -value : value)
    }
    let text = String(decoding: UnsafeBufferPointer(rebasing: input[start..<position]), as: UTF8.self)
    if isInteger, let value = Int64(text) { return .int(value) }
    guard let value = Double(text), value.isFinite else { throw error("number out of range") }
    return .double(value)
  }

  @discardableResult
  private mutating func skipDigits() -> Int {
    let start = position
    while position < input.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(input[position]) {
      position += 1
    }
    return position - start
  }
}

/// Makes a String from bytes only when they are valid UTF-8 (never repairing them).
func validatedUTF8String(_ utf8: UnsafeBufferPointer<UInt8>) -> String? {
  // ASCII, the common case in tokens, is valid UTF-8 by construction.
  if !utf8.contains(where: { $0 >= 0x80 }) { return String(decoding: utf8, as: UTF8.self) }
  var iterator = utf8.makeIterator()
  var decoder = UTF8()
  var scalars = String.UnicodeScalarView()
  while true {
    switch decoder.decode(&iterator) {
    case .scalarValue(let scalar): scalars.append(scalar)
    case .emptyInput: return String(scalars)
    case .error: return nil
    }
  }
}
