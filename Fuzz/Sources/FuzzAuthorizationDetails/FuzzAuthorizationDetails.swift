import Foundation
import FuzzSupport

@testable import XidProtocol

/// `authorization_details` (RFC 9396) on arbitrary bytes: as an app's JSON
/// (`AuthorizationDetail.array(parsing:)`, what `xid login --authorization-details` reads) and as the
/// member of a token response (`TokenResponse(json:receivedAt:)`).
///
/// Properties checked, besides "no crash, no hang, bounded memory":
/// - both readers accept and refuse the same arrays, and read the same details;
/// - details that read have a non-empty type, at most `maximumCount` of them and of their members,
///   and common fields of the shapes RFC 9396 §2.2 gives;
/// - the `authorization_details` parameter Xid sends for them reads back as the same details;
/// - a description shows the type only: no other member's string.
@main
enum FuzzAuthorizationDetails {
  static func main() { LibFuzzer.run(LLVMFuzzerTestOneInput) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func LLVMFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let text = String(decoding: LibFuzzer.bytes(data, size), as: UTF8.self)
  let details = try? AuthorizationDetail.array(parsing: text)
  if let value = try? JSONValue(parsing: text) {
    let members: [String: JSONValue] = ["access_token": "a", "token_type": "Bearer", "authorization_details": value]
    let response = try? TokenResponse(json: members, receivedAt: Date(timeIntervalSince1970: 0))
    // `null` is "none" in a response; anything else reads as the app's JSON does.
    if value != .null {
      fuzzCheck((response != nil) == (details != nil), "the readers disagree on authorization details")
      fuzzCheck(response?.authorizationDetails == details, "the readers read different authorization details")
    }
  }
  guard let details else { return 0 }
  fuzzCheck(details.count <= AuthorizationDetail.maximumCount, "more authorization details than the bound")
  for detail in details {
    fuzzCheck(!detail.type.isEmpty, "an authorization detail without a type")
    fuzzCheck(detail.json.count <= AuthorizationDetail.maximumCount, "an authorization detail over the bound")
    fuzzCheck(detail.json["type"] == .string(detail.type), "an authorization detail's type is not its member")
    for name in ["locations", "actions", "datatypes", "privileges"] {
      if let value = detail.json[name] {
        fuzzCheck(value.arrayValue?.allSatisfy { $0.stringValue != nil } == true, "a common field of another shape")
      }
    }
    let shown = detail.description
    for case .string(let field) in detail.fields.values where field.count >= 12 && !detail.type.contains(field) {
      fuzzCheck(!shown.contains(field), "a field's value in an authorization detail's description")
    }
  }
  let again = try? AuthorizationDetail.array(parsing: AuthorizationDetail.parameter(details))
  fuzzCheck(again == details, "the authorization_details parameter does not read back as the same details")
  return 0
}
