/// The UTF-8 names of an enumeration's cases, to recognise a JSON member name from its bytes without
/// making a string of it (tokens are parsed on every verification).
struct NameTable<Name: RawRepresentable & CaseIterable & Sendable>: Sendable where Name.RawValue == String {
  private let entries: [(key: NameKey, name: Name)]
  /// For each ``NameKey/filterBit``: 0 when no name has it, `1 + index` of the one entry that has it,
  /// or ``shared`` when several do. A name is then found with one comparison rather than one per
  /// case (an ID token's twenty members were each compared with all fifteen registered claims).
  private let slots: [UInt8]
  /// The slot of a filter bit that more than one name has: those entries are searched in turn.
  private static var shared: UInt8 { .max }

  /// - Precondition: every case's name fits a ``NameKey`` whole (at most 15 bytes), and there are
  ///   fewer than 255 cases.
  init(_: Name.Type) {
    let entries = Name.allCases.map { name in
      var utf8 = Array(name.rawValue.utf8)
      let key = utf8.withUnsafeMutableBufferPointer { NameKey(UnsafeBufferPointer($0)) }
      precondition(key.isWhole, "NameTable names have at most \(NameKey.wholeLength) bytes: \(name.rawValue)")
      return (key: key, name: name)
    }
    precondition(entries.count < Int(Self.shared), "a NameTable holds fewer than \(Self.shared) names")
    var slots = [UInt8](repeating: 0, count: NameKey.filterBitCount)
    for (index, entry) in entries.enumerated() {
      let bit = entry.key.filterBit
      slots[bit] = slots[bit] == 0 ? UInt8(index + 1) : Self.shared
    }
    self.entries = entries
    self.slots = slots
  }

  /// The case whose name has `key`, if any (a key that is not whole matches none).
  func match(_ key: NameKey) -> Name? {
    let slot = slots[key.filterBit]
    switch slot {
    case 0:
      return nil
    case Self.shared:
      for entry in entries where entry.key == key { return entry.name }
      return nil
    default:
      let entry = entries[Int(slot) - 1]
      return entry.key == key ? entry.name : nil
    }
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
