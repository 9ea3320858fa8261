import XidJOSE

extension JSONValue {
  /// Whether two values are the same JSON: numbers are compared as values (`3` and `3.0` are the
  /// same number), strings as sequences of Unicode scalars (never by canonical equivalence), and
  /// objects by their member names, also as scalars.
  public func isSameJSON(as other: JSONValue) -> Bool {
    switch (self, other) {
    case (.null, .null): return true
    case (.bool(let a), .bool(let b)): return a == b
    case (.string(let a), .string(let b)): return a.unicodeScalars.elementsEqual(b.unicodeScalars)
    case (.array(let a), .array(let b)):
      return a.count == b.count && zip(a, b).allSatisfy { $0.isSameJSON(as: $1) }
    case (.object(let a), .object(let b)):
      guard a.count == b.count else { return false }
      for (name, value) in a {
        // Lookup is by canonical equivalence; the names found must also be the same scalars.
        guard let index = b.index(forKey: name), name.unicodeScalars.elementsEqual(b[index].key.unicodeScalars),
          value.isSameJSON(as: b[index].value)
        else { return false }
      }
      return true
    default:
      guard let a = numericValue, let b = other.numericValue else { return false }
      return a == b
    }
  }

  /// A number as a value, whichever case holds it.
  public var numericValue: JSONNumber? {
    switch self {
    case .int(let value): return .integer(Int128(value))
    case .double(let value): return JSONNumber(value)
    default: return nil
    }
  }
}

/// A JSON number as a value: an exact integer when it is one, a double otherwise.
public enum JSONNumber: Equatable, Sendable, CustomStringConvertible {
  /// A number without fractional part that fits in 128 bits.
  case integer(Int128)
  /// Any other number.
  case double(Double)

  /// The number `value`: an integer when it has no fractional part and fits.
  public init(_ value: Double) {
    if let exact = Int128(exactly: value) { self = .integer(exact) } else { self = .double(value) }
  }

  /// The value as a double (rounded for large integers).
  public var doubleValue: Double {
    switch self {
    case .integer(let value): Double(value)
    case .double(let value): value
    }
  }

  /// `-0.0` and `0` are the same value; so are `3` and `3.0`.
  public static func == (a: JSONNumber, b: JSONNumber) -> Bool {
    switch (a, b) {
    case (.integer(let x), .integer(let y)): x == y
    case (.double(let x), .double(let y)): x == y
    default: false
    }
  }

  public var description: String {
    switch self {
    case .integer(let value): String(value)
    case .double(let value): String(value)
    }
  }
}
