import Foundation
import Xid
import XidLoopback

/// Plays the user's browser in `xid demo`: loads the listener's start link, which redirects to the
/// authorization URL, loads that on the provider with `URLSession` (through ``URLSessionTransport``,
/// which never follows redirects), then loads the `Location` it is sent to, so that Xid's loopback
/// listener receives the real redirect over TCP.
struct DemoBrowser: Sendable {
  let console: Console
  let transport = URLSessionTransport(timeout: .seconds(10))

  /// The ``BrowserLauncher`` a ``LoopbackUserAgent`` calls with its start link.
  var launcher: BrowserLauncher { BrowserLauncher { start in try await visit(try await follow(start)) } }

  /// Loads the listener's start link (the one URL a browser's command line shows, good once) and
  /// returns the authorization URL it redirects to.
  func follow(_ start: URL) async throws -> URL {
    // Its random path is shown as … all the same: it would look like a secret.
    let shown = "http://\(start.host ?? "127.0.0.1"):\(start.port.map(String.init) ?? "")/xid-sign-in/…"
    console.out("   browser   GET  \(shown)  (the start link: no secret, good once)")
    let page = try await transport.send(HTTPRequest(url: start, headers: ["Accept": "text/html"]))
    guard page.status == 303, let location = page.headers["Location"],
      let target = URL(string: location, relativeTo: start)?.absoluteURL
    else {
      throw XidError(
        .unexpectedResponse, "the listener answered HTTP \(page.status) to its start link instead of redirecting",
        httpStatus: page.status)
    }
    console.out("   listener  303  Location: the authorization URL")
    return target
  }

  /// Follows the provider's redirect to the loopback listener, narrating each hop.
  func visit(_ url: URL) async throws {
    if let redirect = url.queryParameters.first(where: { $0.0 == "redirect_uri" })?.1 {
      console.out("   Xid listens at \(redirect); the browser (played by URLSession) opens:")
    }
    console.out("   browser   GET  \(Redaction.describe(url, wrappingAt: 100, indent: 18))")
    let page = try await transport.send(HTTPRequest(url: url, headers: ["Accept": "text/html"]))
    guard (300..<400).contains(page.status), let location = page.headers["Location"],
      let target = URL(string: location, relativeTo: url)?.absoluteURL
    else {
      throw XidError(
        .unexpectedResponse, "the provider answered HTTP \(page.status) instead of redirecting the browser",
        httpStatus: page.status)
    }
    console.out("   provider  \(page.status)  Location: \(Redaction.describe(target))")
    console.out("   browser   GET  \(Redaction.describe(target))")
    let landing = try await transport.send(HTTPRequest(url: target, headers: ["Accept": "text/html"]))
    console.out("   listener  \(landing.status)  \(Self.title(of: landing) ?? "(no title)")")
  }

  /// The `<h1>` of a page, which Xid's listener sets to "Signed in".
  private static func title(of response: HTTPResponse) -> String? {
    let page = String(decoding: response.body, as: UTF8.self)
    guard let start = page.range(of: "<h1>"), let end = page.range(of: "</h1>", range: start.upperBound..<page.endIndex)
    else { return nil }
    return "“" + page[start.upperBound..<end.lowerBound] + "”"
  }
}

/// URLs as the demo shows them: the values that are secrets, or look like them, replaced by `…`.
enum Redaction {
  /// Query parameters whose values are never shown.
  static let secretParameters: Set<String> = [
    "code", "state", "nonce", "code_challenge", "code_verifier", "request_uri", "session_state", "id_token_hint",
    "access_token", "refresh_token", "id_token", "user_code", "device_code",
  ]

  /// `url` with its secret query values replaced by `…` and the others decoded; with `wrappingAt`,
  /// the query continues on lines indented by `indent` spaces.
  static func describe(_ url: URL, wrappingAt width: Int = .max, indent: Int = 0) -> String {
    var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
    let parameters = url.queryParameters
    components?.query = nil
    let base = components?.string ?? "\(url.scheme ?? "")://\(url.host ?? "")"
    guard !parameters.isEmpty else { return base }
    let query = parameters.map { name, value in
      name + "=" + (secretParameters.contains(name) ? "…" : value)
    }
    var lines = [base + "?" + query[0]]
    for pair in query.dropFirst() {
      if lines[lines.count - 1].count + pair.count + 1 > width - indent {
        lines[lines.count - 1] += "&"
        lines.append(pair)
      } else {
        lines[lines.count - 1] += "&" + pair
      }
    }
    return lines.joined(separator: "\n" + String(repeating: " ", count: indent))
  }
}
