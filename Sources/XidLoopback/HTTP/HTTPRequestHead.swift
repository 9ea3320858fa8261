import Foundation
import XidCore

/// A request the loopback server refuses, with the status it answers and a short text for the body.
///
/// The text describes the rule that was broken and never echoes any part of the request.
struct HTTPRequestRejection: Error, Equatable {
  /// The status of the response, for example 400 or 431.
  let status: Int
  /// What was wrong, for the response body.
  let reason: String
}

/// The request line and header fields of an HTTP/1.1 request (RFC 9112 §2–5), parsed strictly:
/// lines end in CRLF, the target is in origin form, header names are tokens, no obsolete line folding.
struct HTTPRequestHead: Equatable {
  /// The method, for example `"GET"`.
  var method: String
  /// The request target in origin form: the path and query, starting with `/`.
  var target: String
  /// The minor version: 1 for HTTP/1.1, 0 for HTTP/1.0.
  var minorVersion: Int
  /// The header fields, in order.
  var headers: HTTPHeaders

  /// Parses a head: the bytes before the CRLF CRLF that ends it.
  ///
  /// The bytes must hold no CR or LF outside CRLF pairs (``HTTPHeadScanner`` checks that as they arrive).
  static func parse(_ bytes: ArraySlice<UInt8>, maxHeaderFields: Int) throws -> Self {
    var lines: [ArraySlice<UInt8>] = []
    var start = bytes.startIndex
    while let lf = bytes[start...].firstIndex(of: HTTPSyntax.lf) {
      lines.append(bytes[start..<(lf > start && bytes[lf - 1] == HTTPSyntax.cr ? lf - 1 : lf)])
      start = lf + 1
    }
    lines.append(bytes[start...])
    let requestLine = lines[0]
    let fieldLines = lines.dropFirst()
    guard fieldLines.count <= maxHeaderFields else {
      throw HTTPRequestRejection(status: 431, reason: "more than \(maxHeaderFields) header fields")
    }
    var head = try parseRequestLine(requestLine)
    for line in fieldLines { try head.headers.append(parseField(line)) }
    return head
  }

  /// The length of the body from `Content-Length`; 0 when there is none.
  ///
  /// Refuses `Transfer-Encoding` (411: the server reads bodies by `Content-Length` only), malformed or
  /// conflicting lengths (400), and lengths over `maxBodyBytes` (413).
  func bodyLength(maxBodyBytes: Int) throws -> Int {
    if headers["Transfer-Encoding"] != nil {
      throw HTTPRequestRejection(status: 411, reason: "Transfer-Encoding is not supported; send Content-Length")
    }
    var length: Int?
    for field in headers where field.name.equalsIgnoringASCIICase("Content-Length") {
      for item in field.value.split(separator: ",", omittingEmptySubsequences: false) {
        let digits = item.trimmingCharacters(in: .whitespaces)
        guard !digits.isEmpty, digits.count <= 18, digits.utf8.allSatisfy(HTTPSyntax.isDigit), let value = Int(digits)
        else { throw HTTPRequestRejection.badRequest("Content-Length is not a decimal number") }
        guard length == nil || length == value else {
          throw HTTPRequestRejection.badRequest("Content-Length values disagree")
        }
        length = value
      }
    }
    guard let length else { return 0 }
    guard length <= maxBodyBytes else {
      throw HTTPRequestRejection(status: 413, reason: "the body is larger than \(maxBodyBytes) bytes")
    }
    return length
  }

  /// Checks the `Host` field: exactly one in HTTP/1.1 (400 otherwise), naming `127.0.0.1` or
  /// `localhost` at `port` (421 otherwise). Refusing other names keeps web pages that rebind their
  /// own domain name to 127.0.0.1 (DNS rebinding) from reaching the server.
  func checkHost(port: UInt16) throws {
    let hosts = headers.filter { $0.name.equalsIgnoringASCIICase("Host") }
    guard hosts.count <= 1 else { throw HTTPRequestRejection.badRequest("more than one Host field") }
    guard let host = hosts.first?.value.lowercased() else {
      if minorVersion == 0 { return }
      throw HTTPRequestRejection.badRequest("the Host field is missing")
    }
    let parts = host.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
    let name = parts[0]
    let hostPort = parts.count == 2 ? UInt16(parts[1]) : 80
    guard name == "127.0.0.1" || name == "localhost", hostPort == port else {
      throw HTTPRequestRejection(status: 421, reason: "this server answers only for 127.0.0.1:\(port)")
    }
  }

  private static func parseRequestLine(_ line: ArraySlice<UInt8>) throws -> Self {
    let parts = line.split(separator: HTTPSyntax.space, omittingEmptySubsequences: false)
    guard parts.count == 3 else {
      throw HTTPRequestRejection.badRequest("the request line is not `method target version`")
    }
    let (method, target, version) = (parts[0], parts[1], parts[2])
    guard !method.isEmpty, method.allSatisfy(HTTPCharacters.isToken) else {
      throw HTTPRequestRejection.badRequest("the method is not a token")
    }
    guard target.first == HTTPSyntax.slash, target.allSatisfy({ (0x21...0x7E).contains($0) }) else {
      throw HTTPRequestRejection.badRequest("the request target is not an absolute path")
    }
    let versionBytes = Array(version)
    guard versionBytes.count == 8, versionBytes.starts(with: "HTTP/".utf8), versionBytes[6] == HTTPSyntax.dot,
      let major = HTTPSyntax.digitValue(versionBytes[5]), let minor = HTTPSyntax.digitValue(versionBytes[7])
    else { throw HTTPRequestRejection.badRequest("the HTTP version is malformed") }
    guard major == 1, minor <= 1 else {
      throw HTTPRequestRejection(status: 505, reason: "only HTTP/1.1 and HTTP/1.0 are supported")
    }
    return Self(
      method: String(decoding: method, as: UTF8.self), target: String(decoding: target, as: UTF8.self),
      minorVersion: minor, headers: [:])
  }

  private static func parseField(_ line: ArraySlice<UInt8>) throws -> (String, String) {
    guard let colon = line.firstIndex(of: HTTPSyntax.colon) else {
      throw HTTPRequestRejection.badRequest("a header field has no colon")
    }
    let name = line[..<colon]
    guard !name.isEmpty, name.allSatisfy(HTTPCharacters.isToken) else {
      throw HTTPRequestRejection.badRequest(
        "a header field name is not a token (obsolete line folding is not supported)")
    }
    // The value without surrounding whitespace, found by index: long values (a DPoP proof is 600
    // bytes) stay cheap.
    var start = colon + 1
    var end = line.endIndex
    while start < end && HTTPCharacters.isWhitespace(line[start]) { start += 1 }
    while end > start && HTTPCharacters.isWhitespace(line[end - 1]) { end -= 1 }
    let value = line[start..<end]
    guard value.allSatisfy({ $0 == HTTPSyntax.tab || $0 >= HTTPSyntax.space && $0 != 0x7F }) else {
      throw HTTPRequestRejection.badRequest("a header field value holds a control character")
    }
    return (String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
  }
}

extension HTTPHeaders {
  fileprivate mutating func append(_ field: (String, String)) { append(name: field.0, value: field.1) }
}

extension HTTPRequestRejection {
  /// A 400 Bad Request.
  static func badRequest(_ reason: String) -> Self { Self(status: 400, reason: reason) }
}
