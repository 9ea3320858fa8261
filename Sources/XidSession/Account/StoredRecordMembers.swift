import Foundation

/// The members of a record Xid stores as one JSON object with a format number (a token record, a
/// family record), read with the rules both follow: text that is not such an object is
/// ``XidError/Code/corruptRecord``, and another format is ``XidError/Code/unsupportedRecordFormat``,
/// reported and left alone, since another version of Xid that shares the storage wrote it.
struct StoredRecordMembers {
  /// The record's members.
  let members: [String: JSONValue]
  /// What the record is, for messages: "token record", "family record".
  let kind: String

  /// Reads `text` as a record of `kind` in `format`.
  ///
  /// - Parameter writers: who may have written a record of another format, for its message ("another
  ///   version of the app or of an extension sharing the storage").
  init(decoding text: String, kind: String, format: Int64, writers: String) throws {
    try self.init(decoding: text, kind: kind, formats: format...format, writers: writers)
  }

  /// Reads `text` as a record of `kind` in one of `formats`.
  init(decoding text: String, kind: String, formats: ClosedRange<Int64>, writers: String) throws {
    guard let members = (try? JSONValue(parsing: text))?.objectValue else {
      throw XidError(.corruptRecord, "the stored \(kind) is not a JSON object")
    }
    guard let stored = members["format"]?.int64Value else {
      throw XidError(.corruptRecord, "the stored \(kind) has no format number")
    }
    guard formats.contains(stored) else {
      let readable =
        formats.count == 1 ? "format \(formats.upperBound)" : "formats \(formats.lowerBound) to \(formats.upperBound)"
      throw XidError(
        .unsupportedRecordFormat,
        "the stored \(kind) has format \(stored), which this version of Xid (\(readable)) cannot read; \(writers) wrote it. It was left as it is: update this app or extension"
      )
    }
    self.members = members
    self.kind = kind
  }

  /// The string member `name`, which the record must have.
  func string(_ name: String) throws -> String {
    guard let value = members[name]?.stringValue else { throw missing(name) }
    return value
  }

  /// The integer member `name`, which the record must have.
  func int64(_ name: String) throws -> Int64 {
    guard let value = members[name]?.int64Value else { throw missing(name) }
    return value
  }

  private func missing(_ name: String) -> XidError {
    XidError(.corruptRecord, "the stored \(kind) lacks \"\(name)\"")
  }
}
