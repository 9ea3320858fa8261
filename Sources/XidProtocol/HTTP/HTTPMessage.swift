import Foundation

/// HTTP header fields: ordered, with case-insensitive lookup (RFC 9110 §5.1).
///
/// Its `description` and mirror hide the values of credential fields (`Authorization`, `Cookie`,
/// `Set-Cookie`, `DPoP`, `Proxy-Authorization`, and fields named after tokens, secrets or sessions),
/// so headers can be logged.
public struct HTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible,
  CustomReflectable
{
  /// The fields in the order they were added.
  public private(set) var fields: [(name: String, value: String)]

  /// Creates headers from name–value pairs.
  public init(_ fields: [(name: String, value: String)] = []) { self.fields = fields }

  /// Creates headers from a literal such as `["Accept": "application/json"]`.
  public init(dictionaryLiteral elements: (String, String)...) { fields = elements.map { ($0, $1) } }

  /// The first value of the field `name`, compared without regard to the case of ASCII letters (RFC
  /// 9110 §5.1). Setting replaces every field of that name; setting `nil` removes them.
  public subscript(name: String) -> String? {
    get { fields.first { $0.name.equalsIgnoringASCIICase(name) }?.value }
    set {
      fields.removeAll { $0.name.equalsIgnoringASCIICase(name) }
      if let newValue { fields.append((name, newValue)) }
    }
  }

  /// Adds a field, keeping any others of the same name.
  public mutating func append(name: String, value: String) { fields.append((name, value)) }

  /// Sets several fields at once, each replacing the fields of its name: one new list of fields
  /// rather than one per field (a DPoP request sets two on every send).
  package mutating func replace(with newFields: [(name: String, value: String)]) {
    var kept: [(name: String, value: String)] = []
    kept.reserveCapacity(fields.count + newFields.count)
    for field in fields where !newFields.contains(where: { $0.name.equalsIgnoringASCIICase(field.name) }) {
      kept.append(field)
    }
    kept.append(contentsOf: newFields)
    fields = kept
  }

  /// Iterates over the fields in order.
  public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }

  public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
    lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
  }

  public func hash(into hasher: inout Hasher) {
    for field in fields {
      hasher.combine(field.name)
      hasher.combine(field.value)
    }
  }

  /// The fields as `Name: value`, credentials replaced by `[redacted]`.
  var redactedFields: [String] {
    fields.map { "\($0.name): \(HTTPRedaction.headerValue(name: $0.name, value: $0.value))" }
  }

  /// `[Accept: application/json, Authorization: Bearer [redacted]]`; never a credential.
  public var description: String { "[" + redactedFields.joined(separator: ", ") + "]" }

  /// The fields as `Name: value`, so that `dump` shows no credential.
  public var customMirror: Mirror { Mirror(self, unlabeledChildren: redactedFields, displayStyle: .collection) }
}

/// An HTTP request as Xid sends it: to a provider, a resource server, or the test provider.
///
/// Its `description` and mirror show the method, the URL, the headers and the body with every
/// credential and secret parameter replaced by `[redacted]` (see ``HTTPHeaders``), so a transport can
/// log requests. A body other than a form or JSON shows as its size only.
public struct HTTPRequest: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
  /// The method, for example `"GET"` or `"POST"`.
  public var method: String
  /// The absolute URL.
  public var url: URL
  /// The header fields.
  public var headers: HTTPHeaders
  /// The body, empty for none.
  public var body: Data

  /// Creates a request.
  public init(method: String = "GET", url: URL, headers: HTTPHeaders = [:], body: Data = Data()) {
    self.method = method
    self.url = url
    self.headers = headers
    self.body = body
  }

  /// A `POST` of `application/x-www-form-urlencoded` parameters, as OAuth endpoints take them.
  public static func form(_ url: URL, _ parameters: [(String, String)], headers: HTTPHeaders = [:]) -> HTTPRequest {
    var request = HTTPRequest(
      method: "POST", url: url, headers: headers, body: Data(FormEncoding.encode(parameters).utf8))
    request.headers["Content-Type"] = "application/x-www-form-urlencoded"
    if request.headers["Accept"] == nil { request.headers["Accept"] = "application/json" }
    return request
  }

  /// `HTTPRequest(POST https://…, headers: […], body: …)`, with no credential or secret parameter.
  public var description: String {
    "HTTPRequest(\(method) \(HTTPRedaction.url(url)), headers: \(headers), body: \(HTTPRedaction.body(body, headers: headers)))"
  }

  /// The method, URL, headers and body as in ``description``, so that `dump` shows no secret.
  public var customMirror: Mirror {
    Mirror(
      self,
      children: [
        "method": method, "url": HTTPRedaction.url(url), "headers": headers,
        "body": HTTPRedaction.body(body, headers: headers),
      ])
  }
}

/// An HTTP response.
///
/// Its `description` and mirror show the status, the headers and the body with every credential and
/// secret member replaced by `[redacted]` (a token response's tokens, a `Set-Cookie`), so a transport
/// can log responses. A body other than a form or JSON shows as its size only.
public struct HTTPResponse: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
  /// The status code.
  public var status: Int
  /// The header fields.
  public var headers: HTTPHeaders
  /// The body.
  public var body: Data

  /// Creates a response.
  public init(status: Int, headers: HTTPHeaders = [:], body: Data = Data()) {
    self.status = status
    self.headers = headers
    self.body = body
  }

  /// A response with a JSON body and `Content-Type: application/json`.
  public static func json(_ value: JSONValue, status: Int = 200, headers: HTTPHeaders = [:]) -> HTTPResponse {
    var response = HTTPResponse(status: status, headers: headers, body: Data(value.serializedBytes()))
    response.headers["Content-Type"] = "application/json"
    if response.headers["Cache-Control"] == nil { response.headers["Cache-Control"] = "no-store" }
    return response
  }

  /// Whether the status is 2xx.
  public var isSuccess: Bool { (200..<300).contains(status) }

  /// `HTTPResponse(200, headers: […], body: …)`, with no credential or token.
  public var description: String {
    "HTTPResponse(\(status), headers: \(headers), body: \(HTTPRedaction.body(body, headers: headers)))"
  }

  /// The status, headers and body as in ``description``, so that `dump` shows no secret.
  public var customMirror: Mirror {
    Mirror(
      self, children: ["status": status, "headers": headers, "body": HTTPRedaction.body(body, headers: headers)])
  }
}

/// Sends HTTP requests. Xid's protocol code talks to the network only through this protocol, so tests
/// and apps can put their own transport in its place (the test provider's in-memory one, a proxy, a
/// pinned `URLSession`).
public protocol HTTPTransport: Sendable {
  /// Sends `request` and returns the response, whatever its status.
  ///
  /// - Throws: ``XidError`` with ``XidError/Code/networkFailure`` when no response arrived.
  func send(_ request: HTTPRequest) async throws -> HTTPResponse
}
