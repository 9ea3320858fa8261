import Foundation
import XidCore

/// Writes an ``HTTPResponse`` as HTTP/1.1 bytes for the loopback server: the status line, the
/// handler's header fields, then `Content-Length` and `Connection: close` of its own.
enum HTTPResponseEncoder {
  /// The bytes of `response`.
  ///
  /// Fields the server sets itself (`Content-Length`, `Connection`, `Transfer-Encoding`) are replaced,
  /// and fields whose name is not a token or whose value holds CR, LF or NUL are dropped, so a handler
  /// cannot split the response. A status outside 200–599 becomes 500. 204 and 304 responses carry no
  /// body; `HEAD` responses carry the length of the body but not the body.
  static func encode(_ response: HTTPResponse, forMethod method: String) -> [UInt8] {
    let status = (200...599).contains(response.status) ? response.status : 500
    let bodyless = status == 204 || status == 304
    var head = "HTTP/1.1 \(status) \(reasonPhrase(for: status))\r\n"
    for field in response.headers where isAllowed(field) {
      head += "\(field.name): \(field.value)\r\n"
    }
    if !bodyless { head += "Content-Length: \(response.body.count)\r\n" }
    head += "Connection: close\r\n\r\n"
    var bytes = Array(head.utf8)
    if !bodyless && method != "HEAD" { bytes += response.body }
    return bytes
  }

  /// A plain-text response for a request the server refused.
  static func response(for rejection: HTTPRequestRejection) -> HTTPResponse {
    HTTPResponse(
      status: rejection.status, headers: ["Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store"],
      body: Data((rejection.reason + "\n").utf8))
  }

  /// The reason phrase of a status, for example `"Not Found"` for 404. Clients ignore it (RFC 9112 §4).
  static func reasonPhrase(for status: Int) -> String {
    switch status {
    case 200: "OK"
    case 201: "Created"
    case 204: "No Content"
    case 301: "Moved Permanently"
    case 302: "Found"
    case 303: "See Other"
    case 304: "Not Modified"
    case 307: "Temporary Redirect"
    case 308: "Permanent Redirect"
    case 400: "Bad Request"
    case 401: "Unauthorized"
    case 403: "Forbidden"
    case 404: "Not Found"
    case 405: "Method Not Allowed"
    case 408: "Request Timeout"
    case 410: "Gone"
    case 411: "Length Required"
    case 413: "Content Too Large"
    case 421: "Misdirected Request"
    case 429: "Too Many Requests"
    case 431: "Request Header Fields Too Large"
    case 500: "Internal Server Error"
    case 503: "Service Unavailable"
    case 505: "HTTP Version Not Supported"
    default: (200..<300).contains(status) ? "Success" : (400..<500).contains(status) ? "Client Error" : "Status"
    }
  }

  private static let serverFields: Set<String> = ["content-length", "connection", "transfer-encoding"]

  private static func isAllowed(_ field: (name: String, value: String)) -> Bool {
    !field.name.isEmpty && field.name.utf8.allSatisfy(HTTPCharacters.isToken)
      && !serverFields.contains(field.name.lowercased())
      && !field.value.utf8.contains { $0 == HTTPSyntax.cr || $0 == HTTPSyntax.lf || $0 == 0 }
  }
}
