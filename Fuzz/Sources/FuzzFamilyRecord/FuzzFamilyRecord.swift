import Foundation
import FuzzSupport

@testable import XidProtocol
@testable import XidSession

/// An app family's stored record on arbitrary bytes (as the family's storage hands it over, a
/// string), read by `FamilyRecord(decoding:)`.
///
/// `FamilyRecord` is internal to XidSession, so this target uses `@testable import` (fuzz.sh builds
/// with `-enable-testing`).
///
/// Properties checked, besides "no crash, no hang, bounded memory":
/// - a record that reads is written and read back to the same record (its sign-in time within a
///   microsecond, as a token record's expiry);
/// - its description, its mirror and its account's description never hold the device secret or the
///   ID token.
@main
enum FuzzFamilyRecord {
  static func main() { LibFuzzer.run(LLVMFuzzerTestOneInput) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func LLVMFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let text = String(decoding: LibFuzzer.bytes(data, size), as: UTF8.self)
  guard let record = try? FamilyRecord(decoding: text) else { return 0 }
  guard var again = try? FamilyRecord(decoding: record.encoded()) else {
    fuzzCheck(false, "a family record that reads is not read back once written")
    return 0
  }
  let a = record.signedInAt.timeIntervalSince1970, b = again.signedInAt.timeIntervalSince1970
  fuzzCheck(abs(a - b) <= max(1e-6, abs(a) * 1e-15), "a family record's sign-in time moves when written and read")
  again.signedInAt = record.signedInAt
  fuzzCheck(again == record, "a family record changes when written and read back")
  var shown = record.description + record.account.description
  dump(record, to: &shown)
  // Only secrets long enough not to occur in the description by chance (the family's name, a client).
  for secret in [record.deviceSecret, record.idToken]
  where secret.count >= 24 && ![record.family, record.issuer, record.clientId].contains(where: { $0.contains(secret) })
    && !(record.name ?? "").contains(secret) && !(record.email ?? "").contains(secret)
    && !record.subject.contains(secret)
  {
    fuzzCheck(!shown.contains(secret), "a device secret or ID token in what a family record shows")
  }
  return 0
}
