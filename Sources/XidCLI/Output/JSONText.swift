import Xid

/// JSON for people: indented by two spaces, members sorted.
enum JSONText {
  /// `value` pretty-printed.
  static func pretty(_ value: JSONValue, indent: String = "") -> String {
    let inner = indent + "  "
    switch value {
    case .array(let elements) where !elements.isEmpty:
      let items = elements.map { inner + pretty($0, indent: inner) }
      return "[\n" + items.joined(separator: ",\n") + "\n" + indent + "]"
    case .object(let members) where !members.isEmpty:
      let items = members.keys.sorted().map { key in
        inner + JSONValue.string(key).serialized() + ": " + pretty(members[key]!, indent: inner)
      }
      return "{\n" + items.joined(separator: ",\n") + "\n" + indent + "}"
    default:
      return value.serialized()
    }
  }

  /// A claim's value on one line: strings as they are, everything else as compact JSON.
  static func inline(_ value: JSONValue) -> String {
    if case .string(let text) = value { return text }
    if case .array(let elements) = value, elements.allSatisfy({ $0.stringValue != nil }) {
      return elements.compactMap(\.stringValue).joined(separator: " ")
    }
    return value.serialized(sortedKeys: true)
  }
}
