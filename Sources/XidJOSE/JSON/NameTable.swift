/// The UTF-8 names of an enumeration's cases, to recognise a JSON member name from its bytes without
/// making a string of it (tokens are parsed on every verification).
struct NameTable<Name: RawRepresentable & CaseIterable & Sendable>: Sendable where Name.RawValue == String {
  private let entries: [(key: NameKey, name: Name)]

  /// - Precondition: every case's name fits a ``NameKey`` whole (at most 15 bytes).
  init(_: Name.Type) {
    entries = Name.allCases.map { name in
      var utf8 = Array(name.rawValue.utf8)
      let key = utf8.withUnsafeMutableBufferPointer { NameKey(UnsafeBufferPointer($0)) }
      precondition(key.isWhole, "NameTable names have at most \(NameKey.wholeLength) bytes: \(name.rawValue)")
      return (key, name)
    }
  }

  /// The case whose name has `key`, if any (a key that is not whole matches none).
  func match(_ key: NameKey) -> Name? {
    for entry in entries where entry.key == key { return entry.name }
    return nil
  }
}

/// An enumeration of member names with a ``NameTable``.
protocol NameMatchable: RawRepresentable, CaseIterable, Sendable where RawValue == String {
  static var names: NameTable<Self> { get }
}

extension NameMatchable {
  /// The case named by `name`, if any.
  static func match(_ name: JSONParser.MemberName) -> Self? { names.match(name.key) }
}
