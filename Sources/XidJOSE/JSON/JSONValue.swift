/// A JSON value (RFC 8259), as JOSE headers, JWT claims, JWKs and OpenID metadata carry them.
///
/// Xid parses JSON with its own small parser (``init(parsing:)-(Collection<UInt8>)``) because tokens are parsed on every
/// verification and their JSON must be read strictly: duplicate member names, invalid UTF-8, lone
/// surrogates, trailing data and nesting deeper than 64 levels are rejected.
public enum JSONValue: Sendable, Hashable {
  /// `null`.
  case null
  /// `true` or `false`.
  case bool(Bool)
  /// A number written without fraction or exponent that fits in 64 bits.
  case int(Int64)
  /// Any other number.
  case double(Double)
  /// A string.
  case string(String)
  /// An array.
  case array([JSONValue])
  /// An object. Member order is not kept; member names are unique.
  case object([String: JSONValue])

  /// The string, when this is a string.
  public var stringValue: String? {
    if case .string(let value) = self { return value }
    return nil
  }

  /// The Boolean, when this is `true` or `false`.
  public var boolValue: Bool? {
    if case .bool(let value) = self { return value }
    return nil
  }

  /// The number as an integer, when this is an integer or a double with no fractional part that fits.
  public var int64Value: Int64? {
    switch self {
    case .int(let value): return value
    case .double(let value):
      guard value.rounded(.towardZero) == value, let exact = Int64(exactly: value) else { return nil }
      return exact
    default: return nil
    }
  }

  /// The number as a double, when this is a number.
  public var doubleValue: Double? {
    switch self {
    case .int(let value): return Double(value)
    case .double(let value): return value
    default: return nil
    }
  }

  /// The elements, when this is an array.
  public var arrayValue: [JSONValue]? {
    if case .array(let value) = self { return value }
    return nil
  }

  /// The members, when this is an object.
  public var objectValue: [String: JSONValue]? {
    if case .object(let value) = self { return value }
    return nil
  }

  /// The member named `key`, when this is an object that has it.
  public subscript(key: String) -> JSONValue? {
    if case .object(let members) = self { return members[key] }
    return nil
  }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
  ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral,
  ExpressibleByFloatLiteral
{
  /// A string value.
  public init(stringLiteral value: String) { self = .string(value) }
  /// An integer value.
  public init(integerLiteral value: Int64) { self = .int(value) }
  /// A double value.
  public init(floatLiteral value: Double) { self = .double(value) }
  /// A Boolean value.
  public init(booleanLiteral value: Bool) { self = .bool(value) }
  /// An array value.
  public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
  /// An object value; a repeated key keeps its last value.
  public init(dictionaryLiteral elements: (String, JSONValue)...) {
    self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
  }
  /// `null`.
  public init(nilLiteral: ()) { self = .null }
}
