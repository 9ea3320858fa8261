extension JSONValue {
  /// The value as compact JSON text (no insignificant whitespace).
  ///
  /// - Parameter sortedKeys: writes object members in lexicographic order of their UTF-8 names, as
  ///   RFC 7638 thumbprints and reproducible output need. Otherwise the order is unspecified.
  public func serialized(sortedKeys: Bool = false) -> String {
    var output = ""
    write(to: &output, sortedKeys: sortedKeys)
    return output
  }

  /// The value as compact JSON in UTF-8 bytes. See ``serialized(sortedKeys:)``.
  public func serializedBytes(sortedKeys: Bool = false) -> [UInt8] {
    Array(serialized(sortedKeys: sortedKeys).utf8)
  }

  private func write(to output: inout String, sortedKeys: Bool) {
    switch self {
    case .null: output += "null"
    case .bool(let value): output += value ? "true" : "false"
    case .int(let value): output += String(value)
    case .double(let value):
      if let exact = Int64(exactly: value) { output += String(exact) } else { output += "\(value)" }
    case .string(let value): Self.writeString(value, to: &output)
    case .array(let elements):
      output += "["
      for (index, element) in elements.enumerated() {
        if index > 0 { output += "," }
        element.write(to: &output, sortedKeys: sortedKeys)
      }
      output += "]"
    case .object(let members):
      output += "{"
      let keys = sortedKeys ? members.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) } : Array(members.keys)
      for (index, key) in keys.enumerated() {
        if index > 0 { output += "," }
        Self.writeString(key, to: &output)
        output += ":"
        members[key]!.write(to: &output, sortedKeys: sortedKeys)
      }
      output += "}"
    }
  }

  private static func writeString(_ string: String, to output: inout String) {
    output += "\""
    for scalar in string.unicodeScalars {
      switch scalar {
      case "\"": output += "\\\""
      case "\\": output += "\\\\"
      case "\n": output += "\\n"
      case "\r": output += "\\r"
      case "\t": output += "\\t"
      case "\u{08}": output += "\\b"
      case "\u{0C}": output += "\\f"
      case "\u{00}"..."\u{1F}":
        let hex = String(scalar.value, radix: 16)
        output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: output.unicodeScalars.append(scalar)
      }
    }
    output += "\""
  }
}
