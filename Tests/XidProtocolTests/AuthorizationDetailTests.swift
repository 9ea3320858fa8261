import Foundation
import Testing
import XidTestSupport

@testable import XidProtocol

/// `authorization_details` (RFC 9396) as an app writes them and as a provider answers them.
struct AuthorizationDetailTests {
  @Test func aDetailKeepsItsTypeCommonFieldsAndTheTypesOwn() throws {
    let detail = try AuthorizationDetail(
      type: "payment_initiation", locations: [URL(string: "https://bank.example/pay")!], actions: ["initiate"],
      identifier: "p-1", fields: ["instructedAmount": ["currency": "EUR", "amount": "1.00"]])
    #expect(detail.type == "payment_initiation")
    #expect(detail.locations == ["https://bank.example/pay"])
    #expect(detail.actions == ["initiate"])
    #expect(detail.identifier == "p-1")
    #expect(detail.datatypes == nil)
    #expect(detail.fields.keys.sorted() == ["instructedAmount"])
    #expect(detail.description == "AuthorizationDetail(type: payment_initiation)")
    #expect(Mirror(reflecting: detail).children.map(\.label) == ["type"], "dump shows the type only")
    let parameter = AuthorizationDetail.parameter([detail])
    #expect(try AuthorizationDetail.array(parsing: parameter) == [detail])
  }

  @Test func fieldsCannotSetTheTypeOrACommonField() {
    for name in ["type", "actions", "locations"] {
      let error = expectXidError(.invalidConfiguration) {
        try AuthorizationDetail(type: "t", fields: [name: "x"])
      }
      #expect(error?.reason.contains("\"\(name)\"") == true)
    }
  }

  @Test func aLocationMustBeAnAbsoluteURI() {
    expectXidError(.invalidConfiguration) { try AuthorizationDetail(type: "t", locations: [URL(string: "pay")!]) }
  }

  @Test(arguments: [
    (#"{"type":"t"}"#, "not a JSON array"),
    (#"[1]"#, "element 0 of the authorization details is not a JSON object"),
    (#"[{"actions":["a"]}]"#, "has no string \"type\""),
    (#"[{"type":""}]"#, "has no string \"type\""),
    (#"[{"type":"t","actions":"read"}]"#, "\"actions\" is not an array of strings"),
    (#"[{"type":"t","locations":[1]}]"#, "\"locations\" is not an array of strings"),
    (#"[{"type":"t","identifier":7}]"#, "\"identifier\" is not a string"),
    ("[{", "not JSON"),
  ])
  func aMalformedArrayIsRefusedWithWhatIsWrong(text: String, says: String) {
    let error = expectXidError(.invalidConfiguration) { try AuthorizationDetail.array(parsing: text) }
    #expect(error?.reason.contains(says) == true, "\(error?.reason ?? "")")
  }

  @Test func aHostileAnswerIsBounded() {
    let many =
      "[" + Array(repeating: #"{"type":"t"}"#, count: AuthorizationDetail.maximumCount + 1).joined(separator: ",") + "]"
    expectXidError(.invalidConfiguration) { try AuthorizationDetail.array(parsing: many) }
  }

  @Test func aTokenResponsesDetailsAreReadOrRefusedAsAnInvalidResponse() throws {
    let base: [String: JSONValue] = ["access_token": "at", "token_type": "Bearer"]
    var good = base
    good["authorization_details"] = [["type": "account_information", "actions": ["read"]]]
    let tokens = try TokenResponse(json: good, receivedAt: Date())
    #expect(tokens.authorizationDetails?.map(\.type) == ["account_information"])
    #expect(tokens.description.contains("authorizationDetails: account_information"))
    #expect(try TokenResponse(json: base, receivedAt: Date()).authorizationDetails == nil)

    var bad = base
    bad["authorization_details"] = [["actions": ["read"]]]
    let error = expectXidError(.invalidTokenResponse) { try TokenResponse(json: bad, receivedAt: Date()) }
    #expect(error?.reason.contains("token response's authorization_details") == true)
  }

  @Test func typesNotAskedForAreFound() throws {
    let granted = try [AuthorizationDetail(type: "a"), AuthorizationDetail(type: "b"), AuthorizationDetail(type: "b")]
    #expect(AuthorizationDetail.unrequestedTypes(in: granted, asked: ["a"]) == ["b"])
    #expect(AuthorizationDetail.unrequestedTypes(in: granted, asked: ["a", "b"]).isEmpty)
  }
}
