import Foundation
import XidCore

/// The parameters of a request: its form-encoded body or its URL query, with OAuth's rules: a
/// parameter sent without a value counts as omitted (RFC 6749 §3.1), and none may repeat.
struct FormParameters {
  let pairs: [(String, String)]

  init(_ pairs: [(String, String)]) { self.pairs = pairs }

  /// The query parameters of `request`'s URL.
  static func query(of request: HTTPRequest) -> FormParameters { FormParameters(request.url.queryParameters) }

  /// The form body of a `POST`; refuses another content type.
  static func form(of request: HTTPRequest) throws -> FormParameters {
    let mediaType = request.headers["Content-Type"]?.split(separator: ";").first?
      .trimmingCharacters(in: .whitespaces).lowercased()
    guard mediaType == "application/x-www-form-urlencoded" else {
      throw OAuthFailure.invalidRequest("the body must be application/x-www-form-urlencoded")
    }
    return FormParameters(FormEncoding.decode(String(decoding: request.body, as: UTF8.self)))
  }

  /// The parameters of `request`: the form body of a `POST`, the query of any other method.
  static func of(_ request: HTTPRequest) throws -> FormParameters {
    request.method == "POST" ? try form(of: request) : query(of: request)
  }

  /// The value of `name`, or `nil` when it is absent or empty.
  subscript(name: String) -> String? {
    guard let value = pairs.first(where: { $0.0 == name })?.1, !value.isEmpty else { return nil }
    return value
  }

  /// The value of `name`, or `invalid_request` when it is absent.
  func required(_ name: String) throws -> String {
    guard let value = self[name] else { throw OAuthFailure.invalidRequest("the \(name) parameter is missing") }
    return value
  }

  /// Every non-empty value of `name`, in order: for the parameters that may repeat (`audience` and
  /// `resource` of a token exchange).
  func values(_ name: String) -> [String] { pairs.filter { $0.0 == name && !$0.1.isEmpty }.map(\.1) }

  /// Refuses a parameter that appears more than once, except those named in `repeatable`.
  func requireNoRepeats(except repeatable: Set<String> = []) throws {
    var seen = Set<String>()
    for (name, _) in pairs where !repeatable.contains(name) && !seen.insert(name).inserted {
      throw OAuthFailure.invalidRequest("the \(name) parameter appears more than once")
    }
  }

  /// The space-separated `scope`, in order, without repeats.
  var scopes: [String] {
    var seen = Set<String>()
    return (self["scope"] ?? "").split(separator: " ").map(String.init).filter { seen.insert($0).inserted }
  }
}
