import Foundation
import FuzzSupport

@testable import XidProtocol
@testable import XidSession

/// The stored token record on arbitrary bytes (as the storage hands it over, a string), read by
/// `TokenRecord(decoding:)`, the entry point every token storage goes through.
///
/// `TokenRecord` is internal to XidCore, so this target uses `@testable import` (fuzz.sh builds with
/// `-enable-testing`).
///
/// Properties checked, besides "no crash, no hang, bounded memory":
/// - a record that reads is written and read back to the same record (an expiry within a
///   microsecond: `Date` keeps its time from 2001, so a time from 1970 may move by a rounding step);
/// - its description never holds a token, sealed or not.
@main
enum FuzzTokenRecord {
  static func main() { LibFuzzer.run(LLVMFuzzerTestOneInput) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func LLVMFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let text = String(decoding: LibFuzzer.bytes(data, size), as: UTF8.self)
  guard let record = try? TokenRecord(decoding: text) else { return 0 }
  guard let again = try? TokenRecord(decoding: record.encoded()) else {
    fuzzCheck(false, "a record that reads is not read back once written")
    return 0
  }
  fuzzCheck(sameExceptExpiry(record, again), "a record changes when written and read back")
  switch (record.expiresAt, again.expiresAt) {
  case (nil, nil): break
  case (let a?, let b?):
    fuzzCheck(
      abs(a.timeIntervalSince1970 - b.timeIntervalSince1970) <= max(1e-6, abs(a.timeIntervalSince1970) * 1e-15),
      "a record's expiry moves when written and read back")
  default: fuzzCheck(false, "a record's expiry appears or disappears when written and read back")
  }
  let shown = record.description
  for token in [record.accessToken, record.refreshToken, record.sealedRefreshToken, record.idToken].compactMap({ $0 })
  where token.count >= 24 {
    fuzzCheck(!shown.contains(token), "a token in a record's description")
  }
  return 0
}

private func sameExceptExpiry(_ a: TokenRecord, _ b: TokenRecord) -> Bool {
  var b = b
  b.expiresAt = a.expiresAt
  return a == b
}
