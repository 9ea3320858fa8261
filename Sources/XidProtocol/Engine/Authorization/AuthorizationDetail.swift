import Foundation

/// One element of `authorization_details` (RFC 9396 §2): an authorization for exactly what a call
/// needs, such as one payment, described by its `type` and that type's own fields.
///
/// The fields RFC 9396 §2.2 defines for every type have properties; the type's own fields
/// (`instructedAmount`, `creditorName`, …) are in ``fields``, as JSON:
///
/// ```swift
/// let payment = try AuthorizationDetail(
///   type: "payment_initiation", actions: ["initiate"], locations: [URL(string: "https://bank.example/payments")!],
///   fields: ["instructedAmount": ["currency": "EUR", "amount": "123.50"], "creditorName": "Merchant A"])
/// var options = SignInOptions()
/// options.authorizationDetails = [payment]
/// ```
///
/// The details the provider granted come back in the token response and stay with the session
/// (``TokenResponse/authorizationDetails``).
public struct AuthorizationDetail: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
  /// `type`: which kind of authorization this is, and so which fields it has.
  public let type: String
  /// Every member, `type` and the common fields included, as sent or received.
  public let json: [String: JSONValue]

  /// The longest `authorization_details` array Xid reads from a token response, and the most
  /// members an element may have: a bound on what a hostile answer costs to keep.
  public static let maximumCount = 64

  /// Creates a detail of `type` with the common fields of RFC 9396 §2.2 and the type's own `fields`.
  ///
  /// - Throws: ``XidError/Code/invalidConfiguration`` when `type` is empty, a location is not an
  ///   absolute URI, or `fields` sets `type` or a common field.
  public init(
    type: String, locations: [URL]? = nil, actions: [String]? = nil, datatypes: [String]? = nil,
    identifier: String? = nil, privileges: [String]? = nil, fields: [String: JSONValue] = [:]
  ) throws {
    if let clash = fields.keys.filter(Self.commonMembers.contains).sorted().first {
      throw XidError(
        .invalidConfiguration,
        "an authorization detail's fields may not set \"\(clash)\"; pass it as the initializer's parameter")
    }
    var json = fields
    json["type"] = .string(type)
    if let locations {
      if let relative = locations.first(where: { $0.scheme == nil }) {
        throw XidError(
          .invalidConfiguration,
          "the authorization detail's location \"\(SafeText.short(relative.absoluteString, limit: 64))\" is not an absolute URI (RFC 9396 §2.2)"
        )
      }
      json["locations"] = .array(locations.map { .string($0.absoluteString) })
    }
    func strings(_ values: [String]?) -> JSONValue? { values.map { .array($0.map(JSONValue.string)) } }
    json["actions"] = strings(actions)
    json["datatypes"] = strings(datatypes)
    json["identifier"] = identifier.map(JSONValue.string)
    json["privileges"] = strings(privileges)
    try self.init(json: json, of: "authorization detail", code: .invalidConfiguration)
  }

  /// Reads one element of an `authorization_details` array, as an app's JSON (`xid login
  /// --authorization-details`) gives it.
  ///
  /// - Throws: ``XidError/Code/invalidConfiguration`` when the element has no non-empty string
  ///   `type`, a common field of the wrong shape (RFC 9396 §2.2: `locations`, `actions`, `datatypes`
  ///   and `privileges` are arrays of strings, `identifier` a string), or more than
  ///   ``maximumCount`` members.
  public init(json: [String: JSONValue]) throws {
    try self.init(json: json, of: "authorization detail", code: .invalidConfiguration)
  }

  /// Reads one element as ``init(json:)`` does, with `code` for a bad one and `what` naming it.
  init(json: [String: JSONValue], of what: String, code: XidError.Code) throws {
    guard let type = json["type"]?.stringValue, !type.isEmpty else {
      throw XidError(code, "the \(what) has no string \"type\" (RFC 9396 §2)")
    }
    for name in ["locations", "actions", "datatypes", "privileges"] {
      guard let value = json[name] else { continue }
      guard let items = value.arrayValue, items.allSatisfy({ $0.stringValue != nil }) else {
        throw XidError(code, "the \(what)'s \"\(name)\" is not an array of strings (RFC 9396 §2.2)")
      }
    }
    if let identifier = json["identifier"], identifier.stringValue == nil {
      throw XidError(code, "the \(what)'s \"identifier\" is not a string (RFC 9396 §2.2)")
    }
    guard json.count <= Self.maximumCount else {
      throw XidError(code, "the \(what) has \(json.count) members; Xid reads at most \(Self.maximumCount)")
    }
    self.type = type
    self.json = json
  }

  /// `locations`: the resources the authorization is for.
  public var locations: [String]? { strings("locations") }
  /// `actions`: what may be done, such as `read` or `initiate`.
  public var actions: [String]? { strings("actions") }
  /// `datatypes`: the kinds of data asked for.
  public var datatypes: [String]? { strings("datatypes") }
  /// `identifier`: the one resource the authorization is for.
  public var identifier: String? { json["identifier"]?.stringValue }
  /// `privileges`: the level of access asked for.
  public var privileges: [String]? { strings("privileges") }
  /// The members of the type's own, beside `type` and the common fields.
  public var fields: [String: JSONValue] { json.filter { !Self.commonMembers.contains($0.key) } }

  /// `type` and the fields RFC 9396 §2.2 defines for every type.
  private static let commonMembers: Set<String> = [
    "type", "locations", "actions", "datatypes", "identifier", "privileges",
  ]

  private func strings(_ name: String) -> [String]? { json[name]?.arrayValue?.compactMap(\.stringValue) }

  /// `AuthorizationDetail(type: …)`: only the type, since the fields may describe a payment or a
  /// patient's record.
  public var description: String { "AuthorizationDetail(type: \(SafeText.short(type, limit: 64)))" }

  /// The type only, as ``description``, so that `dump` does not show the fields either.
  public var customMirror: Mirror { Mirror(self, children: ["type": type]) }
}

extension AuthorizationDetail {
  /// Reads an `authorization_details` array: an app's JSON (a string, as `xid login
  /// --authorization-details` takes it) or a provider's.
  ///
  /// - Throws: ``XidError/Code/invalidConfiguration`` when the text is not a JSON array of
  ///   authorization details, or has more than ``maximumCount``.
  public static func array(parsing text: String) throws -> [AuthorizationDetail] {
    guard let value = try? JSONValue(parsing: text) else {
      throw XidError(.invalidConfiguration, "the authorization details are not JSON")
    }
    return try array(value, of: "authorization details", code: .invalidConfiguration)
  }

  /// The details of `value`, an `authorization_details` array; `code` is the error of a bad one.
  package static func array(_ value: JSONValue, of what: String, code: XidError.Code) throws -> [AuthorizationDetail] {
    guard let items = value.arrayValue else {
      throw XidError(code, "the \(what) are not a JSON array (RFC 9396 §2)")
    }
    guard items.count <= maximumCount else {
      throw XidError(code, "the \(what) have \(items.count) elements; Xid reads at most \(maximumCount)")
    }
    return try items.enumerated().map { index, item in
      guard let object = item.objectValue else {
        throw XidError(code, "element \(index) of the \(what) is not a JSON object (RFC 9396 §2)")
      }
      return try AuthorizationDetail(json: object, of: "element \(index) of the \(what)", code: code)
    }
  }

  /// `details` as the JSON array `authorization_details` is.
  package static func json(_ details: [AuthorizationDetail]) -> JSONValue { .array(details.map { .object($0.json) }) }

  /// The `authorization_details` parameter for `details`: a JSON array, keys sorted.
  static func parameter(_ details: [AuthorizationDetail]) -> String { json(details).serialized(sortedKeys: true) }

  /// The types among `granted` that are not in `asked` (each once, in order): details the provider
  /// granted that nobody asked for.
  package static func unrequestedTypes(in granted: [AuthorizationDetail], asked: [String]) -> [String] {
    types(of: granted).filter { !asked.contains($0) }
  }

  /// The types of `details`, each once, in their order.
  package static func types(of details: [AuthorizationDetail]) -> [String] {
    var seen = Set<String>()
    return details.map(\.type).filter { seen.insert($0).inserted }
  }
}
