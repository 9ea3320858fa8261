/// The members of a metadata document (a provider's, a protected resource's), read by type: a member
/// whose value is `null` counts as absent, and one of the wrong type fails with the document's own
/// error code and name.
struct MetadataMembers {
  /// The document's members.
  let members: [String: JSONValue]
  /// The code of a member of the wrong type.
  let code: XidError.Code
  /// The document's name in reasons: `"provider metadata"`.
  let document: String

  /// The member `name`, unless it is absent or `null`.
  subscript(name: String) -> JSONValue? {
    guard let value = members[name], value != .null else { return nil }
    return value
  }

  /// The array of strings `name`, or `nil` when it is absent.
  func strings(_ name: String) throws -> [String]? {
    guard let value = self[name] else { return nil }
    guard let array = value.arrayValue, case let strings = array.compactMap(\.stringValue),
      strings.count == array.count
    else { throw XidError(code, "the \(document)'s \"\(name)\" is not an array of strings") }
    return strings
  }

  /// The boolean `name`, `false` when it is absent.
  func flag(_ name: String) throws -> Bool {
    guard let value = self[name] else { return false }
    guard let flag = value.boolValue else { throw XidError(code, "the \(document)'s \"\(name)\" is not a boolean") }
    return flag
  }
}
