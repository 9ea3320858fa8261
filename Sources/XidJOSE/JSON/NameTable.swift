/// The UTF-8 names of an enumeration's cases, to recognise a JSON member name from its bytes without
/// making a string of it (tokens are parsed on every verification).
struct NameTable<Name: RawRepresentable & CaseIterable & Sendable>: Sendable where Name.RawValue == String {
  private let entries: [(bytes: [UInt8], name: Name)]

  init(_: Name.Type) { entries = Name.allCases.map { (Array($0.rawValue.utf8), $0) } }

  /// The case whose name is `bytes`, if any.
  func match(_ bytes: UnsafeBufferPointer<UInt8>) -> Name? {
    for entry in entries where entry.bytes.count == bytes.count {
      if entry.bytes.withUnsafeBufferPointer({ $0.elementsEqual(bytes) }) { return entry.name }
    }
    return nil
  }
}

/// An enumeration of member names with a ``NameTable``.
protocol NameMatchable: RawRepresentable, CaseIterable, Sendable where RawValue == String {
  static var names: NameTable<Self> { get }
}

extension NameMatchable {
  /// The case named by `bytes`, if any.
  static func match(_ bytes: UnsafeBufferPointer<UInt8>) -> Self? { names.match(bytes) }
}
