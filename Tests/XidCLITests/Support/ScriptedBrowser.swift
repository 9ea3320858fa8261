import Foundation
import Testing
import Xid

/// The user's browser for `xid login --browser CMD`: CMD is a two-line shell script that hands the
/// URL it is given (the listener's start link) to the test through a file; the test then does what a
/// browser does, in process: loads the start link, which redirects to the authorization URL, loads
/// that on the provider without following the redirect, and loads the `Location`, Xid's loopback
/// listener, over real TCP.
struct ScriptedBrowser: Sendable {
  /// The script to pass as `--browser`.
  let script: URL
  private let inbox: URL

  init(in directory: URL) throws {
    script = directory.appendingPathComponent("browser.sh")
    inbox = directory.appendingPathComponent("browser-url")
    let text = """
      #!/bin/sh
      printf '%s' "$1" > '\(inbox.path).tmp' && mv '\(inbox.path).tmp' '\(inbox.path)'

      """
    try text.write(to: script, atomically: true, encoding: .utf8)
    try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: script.path)
  }

  /// Waits (up to 90 s: a bound for an `xid` that never opens it, not a speed goal; under a loaded
  /// CI machine, starting `xid` and its browser script took more than 20 s) for `xid` to open a URL,
  /// and returns it.
  func nextURL() async throws -> URL {
    let deadline = Date().addingTimeInterval(90)
    while !FileManager.default.fileExists(atPath: inbox.path) {
      guard Date() < deadline else { throw XidError(.timedOut, "xid never opened the browser") }
      try await Task.sleep(for: .milliseconds(20))
    }
    let text = try String(contentsOf: inbox, encoding: .utf8)
    try FileManager.default.removeItem(at: inbox)
    return try #require(URL(string: text))
  }

  /// Waits for `xid` to open its start link, which carries nothing of the sign-in (it is on the
  /// browser's command line), and follows it to the authorization URL.
  func nextAuthorizationURL() async throws -> URL {
    let start = try await nextURL()
    #expect(start.query == nil, "the browser's command line shows the sign-in's parameters")
    let page = try await URLSessionTransport(timeout: .seconds(10)).send(HTTPRequest(url: start))
    guard page.status == 303, let location = page.headers["Location"], let target = URL(string: location) else {
      throw XidError(.unexpectedResponse, "the start link answered \(page.status) instead of redirecting")
    }
    return target
  }

  /// Waits for `xid` to open the sign-in page, then signs in there as the provider's user.
  func signIn() async throws {
    let transport = URLSessionTransport(timeout: .seconds(10))
    let page = try await transport.send(HTTPRequest(url: try await nextAuthorizationURL()))
    guard page.status == 302, let location = page.headers["Location"], let target = URL(string: location) else {
      throw XidError(.unexpectedResponse, "the provider answered \(page.status) instead of redirecting")
    }
    let landing = try await transport.send(HTTPRequest(url: target))
    guard landing.status == 200 else {
      throw XidError(.unexpectedResponse, "the loopback listener answered \(landing.status)")
    }
  }
}
