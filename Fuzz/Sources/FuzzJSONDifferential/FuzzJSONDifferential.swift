import Foundation
import FuzzSupport
import XidJOSE

/// Xid's JSON parser against Foundation's `JSONSerialization` (with `.fragmentsAllowed`, since Xid
/// reads any JSON value at the top level): the same bytes to both, and a crash on any disagreement
/// about accepting or rejecting them, or about the values (numbers compared as values, strings and
/// member names as Unicode scalars).
///
/// The deliberate differences of ``DeliberateDifference`` (Fuzz/README.md says why each exists) are
/// recognized from the input, or from Xid's reason for refusing it, and such inputs are skipped.
@main
enum FuzzJSONDifferential {
  static func main() { LibFuzzer.run(LLVMFuzzerTestOneInput) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func LLVMFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let input = LibFuzzer.bytes(data, size)
  let xid: Result<JSONValue, XidError> = Result { try JSONValue(parsing: input) }.mapError { $0 as! XidError }
  let foundation = Result {
    try JSONSerialization.jsonObject(with: Data(buffer: input), options: [.fragmentsAllowed])
  }
  switch (xid, foundation) {
  case (.failure, .failure):
    break
  case (.failure(let error), .success):
    fuzzCheck(
      DeliberateDifference.explainingRejection(by: error, of: input) != nil,
      "Xid rejects JSON that Foundation accepts (\(error.code)), for no documented reason")
  case (.success, .failure):
    fuzzCheck(false, "Foundation rejects JSON that Xid accepts")
  case (.success(let value), .success(let object)):
    if let difference = Comparison.difference(value, object) {
      fuzzCheck(
        DeliberateDifference.explainingValues(of: input) != nil,
        "Xid and Foundation read different values: \(difference)")
    }
  }
  return 0
}

/// The documented differences between Xid's parser and Foundation's, each recognized on its own.
enum DeliberateDifference: String, CaseIterable {
  /// Xid refuses documents above `JSONValue.maximumDocumentSize` (1 MiB) before reading them.
  case documentSize
  /// Foundation detects UTF-16 and UTF-32 (from NUL bytes among the first four) and skips a byte
  /// order mark; Xid reads UTF-8 only, without a byte order mark (RFC 8259 §8.1).
  case encodingDetection
  /// Xid refuses nesting deeper than 64 levels; Foundation allows 512.
  case depth
  /// Xid refuses an object with two members of the same name (or of canonically equivalent names,
  /// which a `String` key cannot tell apart); Foundation keeps the last.
  case duplicateMembers
  /// Xid refuses a `\u` escape of an unpaired surrogate; Foundation too, so far (kept so that a
  /// Foundation that repairs them does not read as an Xid bug).
  case loneSurrogate
  /// Foundation accepts a comma before `]` or `}`; RFC 8259 does not, nor does Xid.
  case trailingComma
  /// Foundation drops a U+FEFF (ZERO WIDTH NO-BREAK SPACE, the byte order mark) written as is at
  /// the start of a string or member name, as if it were a byte order mark; written `\ufeff`, it
  /// keeps it. Xid keeps the character either way: it is part of the string.
  case byteOrderMarkInString
  /// Foundation reads numbers with many digits as `NSDecimalNumber` (38 significant digits), whose
  /// conversion to `Double` is not correctly rounded; Xid's is. Such values are compared within a
  /// relative 1e-12 (see ``Comparison``).
  case decimalRounding
  /// Xid reads integers beyond 64 bits as the nearest `Double`; Foundation keeps those that fit
  /// `UInt64` exact. They are compared after the same rounding (see ``Comparison``).
  case largeIntegers

  /// The difference that explains why Xid rejects `input` when Foundation accepts it, if any.
  static func explainingRejection(by error: XidError, of input: UnsafeBufferPointer<UInt8>) -> Self? {
    if error.code == .inputTooLarge, input.count > JSONValue.maximumDocumentSize { return .documentSize }
    if hasByteOrderMarkOrNUL(input) { return .encodingDetection }
    let structure = Structure(input)
    if structure.maximumDepth > 64 { return .depth }
    if structure.hasTrailingComma { return .trailingComma }
    // Found in the long run: `{"a":1e800,"a":1}`. Xid stops at the first error it meets, the number
    // out of range; Foundation checks only the value it keeps, the last. Xid would refuse the
    // duplicate anyway, so the input is told by its structure, not only by Xid's reason.
    if structure.hasDuplicateMember || error.reason.hasSuffix("duplicate member name") { return .duplicateMembers }
    if error.reason.hasSuffix("lone surrogate in \\u escape") || error.reason.hasSuffix("invalid surrogate pair") {
      return .loneSurrogate
    }
    return nil
  }

  /// The difference that explains why Xid and Foundation read different values from `input`, if
  /// any: the values are the same once every U+FEFF written as is (which can only be in strings,
  /// since Xid accepted the input) is written `\ufeff` instead.
  static func explainingValues(of input: UnsafeBufferPointer<UInt8>) -> Self? {
    let mark: [UInt8] = [0xEF, 0xBB, 0xBF]
    var rewritten: [UInt8] = []
    var index = 0
    while index < input.count {
      if input[index...].starts(with: mark) {
        rewritten += Array(#"\ufeff"#.utf8)
        index += mark.count
      } else {
        rewritten.append(input[index])
        index += 1
      }
    }
    guard rewritten.count != input.count, let value = try? JSONValue(parsing: rewritten),
      let object = try? JSONSerialization.jsonObject(with: Data(rewritten), options: [.fragmentsAllowed]),
      Comparison.difference(value, object) == nil
    else { return nil }
    return .byteOrderMarkInString
  }

  /// A UTF-8, UTF-16 or UTF-32 byte order mark at the start, or a NUL among the first four bytes:
  /// what Foundation's encoding detection looks at. No UTF-8 JSON text has either.
  private static func hasByteOrderMarkOrNUL(_ input: UnsafeBufferPointer<UInt8>) -> Bool {
    if input.starts(with: [0xEF, 0xBB, 0xBF]) || input.starts(with: [0xFE, 0xFF]) || input.starts(with: [0xFF, 0xFE]) {
      return true
    }
    return input.prefix(4).contains(0)
  }
}

/// Nesting depth and trailing commas, found by scanning outside strings (no parsing).
struct Structure {
  private(set) var maximumDepth = 0
  private(set) var hasTrailingComma = false
  /// Whether an object has two members whose names are written with the same bytes (names that
  /// are equal only once unescaped are not seen; Xid's own reason covers those it reaches).
  private(set) var hasDuplicateMember = false

  init(_ input: UnsafeBufferPointer<UInt8>) {
    var depth = 0
    var inString = false
    var escaped = false
    var lastSignificant: UInt8 = 0
    // The member names of each open object; `nil` for an open array.
    var names: [Set<[UInt8]>?] = []
    var name: [UInt8]?
    for byte in input {
      if inString {
        if escaped {
          escaped = false
        } else if byte == UInt8(ascii: "\\") {
          escaped = true
        } else if byte == UInt8(ascii: "\"") {
          inString = false
          lastSignificant = byte
          if let complete = name, !names.isEmpty, names[names.count - 1] != nil {
            if names[names.count - 1]!.insert(complete).inserted == false { hasDuplicateMember = true }
          }
          name = nil
          continue
        }
        name?.append(byte)
        continue
      }
      switch byte {
      case 0x20, 0x09, 0x0A, 0x0D:
        continue
      case UInt8(ascii: "\""):
        inString = true
        // A name starts an object's member: right after `{` or `,` inside an object.
        let inObject = names.last.map { $0 != nil } ?? false
        name = inObject && (lastSignificant == UInt8(ascii: "{") || lastSignificant == UInt8(ascii: ",")) ? [] : nil
      case UInt8(ascii: "["), UInt8(ascii: "{"):
        depth += 1
        maximumDepth = max(maximumDepth, depth)
        names.append(byte == UInt8(ascii: "{") ? [] : nil)
      case UInt8(ascii: "]"), UInt8(ascii: "}"):
        if lastSignificant == UInt8(ascii: ",") { hasTrailingComma = true }
        depth -= 1
        if !names.isEmpty { names.removeLast() }
      default:
        break
      }
      lastSignificant = byte
    }
  }
}

/// Compares a value Xid read with the object Foundation read from the same bytes.
enum Comparison {
  /// What differs, at which path, or `nil` when the two are the same JSON (up to the
  /// `decimalRounding` and `largeIntegers` differences). Never contains the values themselves.
  static func difference(_ value: JSONValue, _ object: Any, path: String = "$") -> String? {
    switch value {
    case .null:
      return object is NSNull ? nil : "\(path): null against \(kind(of: object))"
    case .bool(let bool):
      guard let number = object as? NSNumber, isBoolean(number) else {
        return "\(path): a Boolean against \(kind(of: object))"
      }
      return number.boolValue == bool ? nil : "\(path): another Boolean"
    case .int, .double:
      guard let number = object as? NSNumber, !isBoolean(number) else {
        return "\(path): a number against \(kind(of: object))"
      }
      return sameNumber(value, number) ? nil : "\(path): another number"
    case .string(let string):
      guard let other = object as? String else { return "\(path): a string against \(kind(of: object))" }
      return string.unicodeScalars.elementsEqual(other.unicodeScalars) ? nil : "\(path): another string"
    case .array(let elements):
      guard let others = object as? [Any] else { return "\(path): an array against \(kind(of: object))" }
      guard elements.count == others.count else { return "\(path): arrays of different lengths" }
      for (index, (element, other)) in zip(elements, others).enumerated() {
        if let difference = difference(element, other, path: "\(path)[\(index)]") { return difference }
      }
      return nil
    case .object(let members):
      guard let others = object as? [String: Any] else { return "\(path): an object against \(kind(of: object))" }
      guard members.count == others.count else { return "\(path): objects with different member counts" }
      for (offset, (name, member)) in members.enumerated() {
        guard let index = others.index(forKey: name),
          others[index].key.unicodeScalars.elementsEqual(name.unicodeScalars)
        else { return "\(path): member #\(offset) is missing" }
        if let difference = difference(member, others[index].value, path: "\(path).#\(offset)") { return difference }
      }
      return nil
    }
  }

  /// `true` and `false` are a distinct class of NSNumber (objCType `c`), as JSONSerialization makes them.
  private static func isBoolean(_ number: NSNumber) -> Bool {
    let type = String(cString: number.objCType)
    return type == "c" || type == "B"
  }

  private static func sameNumber(_ value: JSONValue, _ number: NSNumber) -> Bool {
    guard let xid = value.numericValue else { return false }
    if number is NSDecimalNumber {
      // decimalRounding: NSDecimalNumber.doubleValue is not correctly rounded.
      let a = xid.doubleValue, b = number.doubleValue
      return a == b || abs(a - b) <= 1e-12 * max(abs(a), abs(b))
    }
    let foundation: JSONNumber
    switch String(cString: number.objCType) {
    case "Q": foundation = .integer(Int128(number.uint64Value))
    case "q", "l", "i", "s", "c": foundation = .integer(Int128(number.int64Value))
    default: foundation = JSONNumber(number.doubleValue)
    }
    if xid == foundation { return true }
    // largeIntegers: Xid keeps an integer beyond Int64 as the nearest Double.
    if case .integer(let exact) = foundation, Int64(exactly: exact) == nil, case .double = value {
      return Double(exact) == xid.doubleValue
    }
    return false
  }

  private static func kind(of object: Any) -> String {
    switch object {
    case is NSNull: "null"
    case let number as NSNumber: isBoolean(number) ? "a Boolean" : "a number"
    case is String: "a string"
    case is [Any]: "an array"
    case is [String: Any]: "an object"
    default: "a \(type(of: object))"
    }
  }
}
