import Foundation
import Xid

/// What the API says about the user's account.
///
/// The demo provider's protected resource (`GET ISSUER/resource`) answers with the grant it was
/// given (`sub`, `client_id`, `scope`) and a `message`; it has no balance. A real API would answer
/// with one: ``amount`` is read when the answer has a `balance` member.
public struct Balance: Sendable, Hashable {
  /// Whose account it is (`sub`).
  public var subject: String
  /// The `balance` member, when the API sends one.
  public var amount: String?
  /// The `message` member, when the API sends one.
  public var message: String?

  /// Creates a balance.
  public init(subject: String, amount: String? = nil, message: String? = nil) {
    self.subject = subject
    self.amount = amount
    self.message = message
  }

  /// One sentence for the user.
  public var summary: String {
    if let amount { return "\(subject)'s balance is \(amount)." }
    return "The API answered for \(subject): \(message ?? "no balance")."
  }
}

/// The call to the API: built here, sent with `Xid.shared.send(_:)` by the caller, in whatever process
/// it runs (the app, an App Intent, a widget).
public enum BalanceAPI {
  /// `GET ISSUER/resource`, the demo provider's protected resource. Point it at your API.
  public static func request(issuer: URL) -> HTTPRequest {
    HTTPRequest(url: issuer.appendingPathComponent("resource"), headers: ["Accept": "application/json"])
  }

  /// The request for the issuer in this target's Info.plist.
  ///
  /// - Throws: `XidError.Code.invalidConfiguration` when the Info.plist has no usable issuer.
  public static func request() throws -> HTTPRequest {
    request(issuer: try ExampleSettings.fromMainBundle().issuer)
  }

  /// Reads the API's answer.
  ///
  /// - Throws: ``BalanceError`` when the API did not answer with a JSON object of a user.
  public static func balance(from response: HTTPResponse) throws -> Balance {
    guard response.isSuccess else { throw BalanceError.status(response.status) }
    guard let object = (try? JSONValue(parsing: response.body))?.objectValue,
      let subject = object["sub"]?.stringValue
    else { throw BalanceError.unreadable }
    let amount = object["balance"].flatMap { $0.stringValue ?? $0.doubleValue.map { "\($0)" } }
    return Balance(subject: subject, amount: amount, message: object["message"]?.stringValue)
  }
}

/// The API answered, but not with a balance. The user is still signed in.
public enum BalanceError: Error, Hashable, CustomLocalizedStringResourceConvertible {
  /// An HTTP status other than 2xx (a 401 that a refresh could not cure arrives as an `XidError`).
  case status(Int)
  /// A body that is not a JSON object with a `sub`.
  case unreadable

  /// The message for the user (App Intents shows it as the intent's dialog).
  public var localizedStringResource: LocalizedStringResource {
    switch self {
    case .status(let status): "The server answered with an error (HTTP \(status)). Try again later."
    case .unreadable: "The server's answer could not be read. Try again later."
    }
  }
}
