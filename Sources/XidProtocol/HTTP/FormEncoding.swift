import Foundation

/// `application/x-www-form-urlencoded` (the WHATWG URL standard's form encoding, as OAuth 2.0 uses it
/// for token requests, RFC 6749 Appendix B) and URL query strings.
package enum FormEncoding {
  /// Characters left as they are: RFC 3986 unreserved.
  private static let unreserved = CharacterSet(
    charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

  /// Percent-encodes one name or value: everything outside the unreserved set, spaces included, as `%XX`.
  package static func escape(_ text: String) -> String {
    text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
  }

  /// Encodes parameters in order as `name=value&…`.
  package static func encode(_ parameters: [(String, String)]) -> String {
    parameters.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&")
  }

  /// Decodes `name=value&…`, turning `+` into a space and percent escapes into UTF-8. Pairs whose
  /// escapes are invalid are dropped.
  package static func decode(_ text: String) -> [(String, String)] {
    text.split(separator: "&", omittingEmptySubsequences: true).compactMap { pair in
      let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      func unescape(_ part: Substring) -> String? {
        String(part).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
      }
      guard let name = unescape(parts[0]), let value = parts.count > 1 ? unescape(parts[1]) : "" else { return nil }
      return (name, value)
    }
  }
}

extension URL {
  /// This URL with `parameters` appended to its query, form-encoded.
  public func appendingQuery(_ parameters: [(String, String)]) -> URL {
    guard !parameters.isEmpty, var components = URLComponents(url: self, resolvingAgainstBaseURL: false) else {
      return self
    }
    let added = FormEncoding.encode(parameters)
    components.percentEncodedQuery =
      components.percentEncodedQuery.map { $0.isEmpty ? added : $0 + "&" + added } ?? added
    return components.url ?? self
  }

  /// The query parameters of this URL, decoded, in order.
  public var queryParameters: [(String, String)] {
    guard let query = URLComponents(url: self, resolvingAgainstBaseURL: false)?.percentEncodedQuery else { return [] }
    return FormEncoding.decode(query)
  }

  /// Whether the host is a loopback address: `localhost`, `127.0.0.0/8` or `[::1]`.
  public var isLoopback: Bool {
    guard var host = host?.lowercased() else { return false }
    if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
    if host == "localhost" || host == "::1" { return true }
    let octets = host.split(separator: ".", omittingEmptySubsequences: false)
    return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
  }
}

extension URL {
  /// Checks that this URL may carry OAuth traffic: `https`, or `http` to a loopback host only.
  ///
  /// - Parameter purpose: what the URL is for, named in the error (for example `"token endpoint"`).
  /// - Throws: ``XidError`` with ``XidError/Code/insecureURL``.
  public func requireSecure(for purpose: String) throws {
    // Checked for every request: no lowercased copies, and the host is not percent-decoded.
    let scheme = self.scheme ?? ""
    if scheme.equalsIgnoringASCIICase("https"), host(percentEncoded: true)?.isEmpty == false { return }
    if scheme.equalsIgnoringASCIICase("http"), isLoopback { return }
    throw XidError(
      .insecureURL,
      "the \(purpose) \(self.scheme.map { "uses \($0)://" } ?? "has no scheme"); Xid requires https (http only for loopback hosts)"
    )
  }
}
