import Foundation

/// What the descriptions and mirrors of ``HTTPHeaders``, ``HTTPRequest`` and ``HTTPResponse`` hide,
/// so that a transport or an app that logs them leaks no credential: the values of credential header
/// fields, and the values of secret parameters in URLs, form bodies and JSON bodies. Everything else
/// stays, so the text still says what was sent and what came back.
enum HTTPRedaction {
  /// What a secret value is shown as.
  static let placeholder = "[redacted]"

  /// The most characters of a body a description shows.
  static let bodyLimit = 2_000

  /// Header fields whose values are credentials, in lower case.
  static let secretHeaders: Set<String> = [
    "authorization", "proxy-authorization", "cookie", "set-cookie", "dpop", "x-api-key", "api-key",
  ]

  /// Parameters and JSON members whose values are secret, besides those ending in `_token` or naming
  /// a secret or password (see ``isSecretParameter(_:)``).
  static let secretParameters: Set<String> = [
    "code", "code_verifier", "client_secret", "client_assertion", "device_code", "user_code", "token", "assertion",
    "state", "nonce", "id_token_hint", "password", "private_key",
  ]

  /// Whether a header field's value is a credential: the fields above, and any whose name speaks of
  /// a token, a secret, a password, a session or a cookie (`X-Auth-Token`, `X-Session-Id`, …).
  static func isSecretHeader(_ name: String) -> Bool {
    let name = name.lowercased()
    return secretHeaders.contains(name)
      || ["token", "secret", "password", "session", "cookie", "credential", "apikey"].contains { name.contains($0) }
  }

  /// Whether a parameter's or JSON member's value is secret: the names above, and any that ends in
  /// `_token` (`access_token`, `refresh_token`, `subject_token`, …) or speaks of a secret or password.
  static func isSecretParameter(_ name: String) -> Bool {
    let name = name.lowercased()
    return secretParameters.contains(name) || name.hasSuffix("_token") || name.contains("secret")
      || name.contains("password")
  }

  /// A header field's value as shown: a credential replaced, keeping the scheme of an `Authorization`
  /// value (`Bearer [redacted]`), so the text still tells which kind of credential was sent.
  static func headerValue(name: String, value: String) -> String {
    guard isSecretHeader(name) else { return value }
    let lowered = name.lowercased()
    if lowered == "authorization" || lowered == "proxy-authorization",
      let space = value.firstIndex(of: " "), value[..<space].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" })
    {
      return value[..<space] + " " + placeholder
    }
    return placeholder
  }

  /// `name=value&…` text (a query, a fragment or a form body) with the values of secret parameters
  /// replaced. Names and other values stay as they were written.
  static func parameters(_ text: Substring) -> String {
    text.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
      guard let equals = pair.firstIndex(of: "=") else { return String(pair) }
      let rawName = pair[..<equals]
      let name = String(rawName).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(rawName)
      return isSecretParameter(name) ? rawName + "=" + placeholder : String(pair)
    }.joined(separator: "&")
  }

  /// A URL as shown: a password in it, and the values of secret parameters in its query and fragment,
  /// replaced.
  static func url(_ url: URL) -> String {
    let text = url.absoluteString
    guard var components = URLComponents(string: text) else {
      let base = text.prefix { $0 != "?" && $0 != "#" }
      return base.count == text.count ? cut(text) : base + "?" + placeholder
    }
    if components.percentEncodedPassword != nil { components.percentEncodedPassword = "redacted" }
    var shown = components
    shown.percentEncodedQuery = nil
    shown.percentEncodedFragment = nil
    var result = shown.string ?? ""
    if let query = components.percentEncodedQuery { result += "?" + parameters(query[...]) }
    if let fragment = components.percentEncodedFragment { result += "#" + parameters(fragment[...]) }
    return result
  }

  /// A body as shown: a form with its secret values replaced, JSON with its secret members replaced,
  /// and anything else as its size and type only (it may be anything, and is the app's business).
  static func body(_ body: Data, headers: HTTPHeaders) -> String {
    guard !body.isEmpty else { return "empty" }
    let type = headers["Content-Type"]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
    if type == "application/x-www-form-urlencoded", let text = String(data: body, encoding: .utf8) {
      return cut(parameters(text[...]), limit: bodyLimit)
    }
    if type == "application/json" || type?.hasSuffix("+json") == true,
      let value = try? JSONValue(parsing: Array(body))
    {
      return cut(json(value).serialized(sortedKeys: true), limit: bodyLimit)
    }
    return "\(body.count) bytes" + (type.map { " of \($0)" } ?? "")
  }

  /// JSON with the values of secret members replaced, at any depth.
  static func json(_ value: JSONValue) -> JSONValue {
    switch value {
    case .object(let members):
      var shown: [String: JSONValue] = [:]
      for (name, member) in members {
        shown[name] = isSecretParameter(name) ? .string(placeholder) : json(member)
      }
      return .object(shown)
    case .array(let elements):
      return .array(elements.map(json))
    default:
      return value
    }
  }

  /// `text`, cut to `limit` characters with `…` when longer.
  static func cut(_ text: String, limit: Int = bodyLimit) -> String {
    text.count > limit ? text.prefix(limit) + "…" : text
  }
}
