import Foundation
import Testing
import XidCore
import XidLoopback
import XidTestSupport
import XidURLSession

/// What other users of the machine can see of a sign-in: a browser's command line is public
/// (`/proc/PID/cmdline`, `ps`), so it must carry nothing that signs anyone in, only a link to the
/// listener that works once.
struct BrowserCommandLineTests {
  /// A browser command, as `--browser CMD` and `$BROWSER` scripts are: it writes its arguments, one
  /// a line, where the test reads them, as any user of the machine reads a process's command line.
  struct ArgumentRecordingBrowser: Sendable {
    let directory: URL
    let script: URL
    let record: URL

    init() throws {
      directory = FileManager.default.temporaryDirectory.appendingPathComponent("xid-browser-\(UUID().uuidString)")
      try FileManager.default.createDirectory(
        at: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
      script = directory.appendingPathComponent("browser.sh")
      record = directory.appendingPathComponent("arguments")
      let text = """
        #!/bin/sh
        for argument in "$@"; do printf '%s\\n' "$argument"; done > '\(record.path).tmp' && mv '\(record.path).tmp' '\(record.path)'

        """
      try text.write(to: script, atomically: true, encoding: .utf8)
      try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: script.path)
    }

    /// The arguments the browser was started with, once it has run (a bound of 60 s for a launcher
    /// that never starts it, not a speed goal).
    func arguments() async throws -> [String] {
      let deadline = ContinuousClock.now + .seconds(60)
      while !FileManager.default.fileExists(atPath: record.path) {
        guard ContinuousClock.now < deadline else { throw XidError(.timedOut, "the browser command never ran") }
        try await Task.sleep(for: .milliseconds(20))
      }
      return try textFile(at: record).split(separator: "\n").map(String.init)
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }
  }

  /// The parameters of an authorization request that let whoever knows them finish someone's sign-in.
  static func secrets() -> [(String, String)] {
    [
      ("state", "state-\(UUID().uuidString)"), ("nonce", "nonce-\(UUID().uuidString)"),
      ("code_challenge", "challenge-\(UUID().uuidString)"), ("dpop_jkt", "jkt-\(UUID().uuidString)"),
      ("request_uri", "urn:ietf:params:oauth:request_uri:\(UUID().uuidString)"),
    ]
  }

  /// An "authorization URL" on the listener itself, carrying `secrets`: the test plays the provider.
  static func authorizationURL(_ redirectUri: URL, _ secrets: [(String, String)]) -> URL {
    var components = URLComponents(url: redirectUri, resolvingAgainstBaseURL: false)!
    components.path = "/authorize"
    components.queryItems = secrets.map { URLQueryItem(name: $0.0, value: $0.1) }
    return components.url!
  }

  @Test func theBrowsersCommandLineCarriesNothingThatSignsAnyoneIn() async throws {
    let browser = try ArgumentRecordingBrowser()
    defer { browser.remove() }
    let agent = LoopbackUserAgent(browser: .command(browser.script.path), timeout: .seconds(120))
    let signIn = try await agent.prepare(redirectUri: URL(string: "http://127.0.0.1:0/callback")!)
    let secrets = Self.secrets()
    let state = secrets[0].1
    let authorization = Self.authorizationURL(signIn.redirectUri, secrets)
    async let callback = signIn.authorize(authorization, state: state)

    let arguments = try await browser.arguments()
    let commandLine = arguments.joined(separator: " ")
    for (name, value) in secrets {
      #expect(!commandLine.contains(value), "the browser's command line shows the \(name)")
      #expect(!commandLine.contains(name + "="), "the browser's command line shows the \(name)")
    }
    #expect(!commandLine.contains("/authorize"))
    // The one argument is a link to the listener: no query, no fragment.
    try #require(arguments.count == 1)
    let start = try #require(URL(string: arguments[0]))
    #expect(start.scheme == "http" && start.host == "127.0.0.1" && start.port == signIn.redirectUri.port)
    #expect(start.query == nil && start.fragment == nil)
    #expect(start.path != signIn.redirectUri.path)

    // The browser loads it and is sent on to the authorization URL, which nothing caches.
    let transport = URLSessionTransport(timeout: .seconds(30))
    let first = try await transport.send(HTTPRequest(url: start))
    #expect((300..<400).contains(first.status), "\(first.status)")
    #expect(first.headers["Location"] == authorization.absoluteString)
    #expect(first.headers["Cache-Control"] == "no-store")
    // The provider sends the browser back with a code: the sign-in goes on as before.
    let answer = URL(string: "\(signIn.redirectUri.absoluteString)?state=\(state)&code=c")!
    #expect(try await transport.send(HTTPRequest(url: answer)).status == 200)
    #expect(try await callback.queryParameters.contains { $0 == ("code", "c") })
    await signIn.finish()
  }

  @Test func aSecondFetchOfTheStartLinkIsRefusedAndEndsTheSignIn() async throws {
    let (opened, browserGot) = AsyncStream.makeStream(of: URL.self)
    let agent = LoopbackUserAgent(browser: BrowserLauncher { browserGot.yield($0) }, timeout: .seconds(120))
    let signIn = try await agent.prepare(redirectUri: URL(string: "http://127.0.0.1:0/callback")!)
    let secrets = Self.secrets()
    let state = secrets[0].1
    let authorization = Self.authorizationURL(signIn.redirectUri, secrets)
    let ending = Task { try await signIn.authorize(authorization, state: state) }
    var browser = opened.makeAsyncIterator()
    let start = try #require(await browser.next())

    let transport = URLSessionTransport(timeout: .seconds(30))
    let first = try await transport.send(HTTPRequest(url: start))
    #expect(first.headers["Location"] == authorization.absoluteString)
    let second = try await transport.send(HTTPRequest(url: start))
    #expect(second.status == 410, "\(second.status)")
    #expect(second.headers["Location"] == nil)
    let page = String(decoding: second.body, as: UTF8.self)
    for (_, value) in secrets { #expect(!page.contains(value)) }
    // (Without a refusal there is no end to wait for but the sign-in's timeout.)
    if second.status != 410 { ending.cancel() }

    // Whoever opened it first may not be the user's browser: the sign-in ends, and its redirect is
    // turned away from now on.
    let error = await expectXidError(.stateMismatch) { try await ending.value }
    #expect(error?.reason.contains("twice") == true, "\(error?.reason ?? "")")
    let answer = URL(string: "\(signIn.redirectUri.absoluteString)?state=\(state)&code=c")!
    #expect(try await transport.send(HTTPRequest(url: answer)).status == 404)
    await signIn.finish()
  }

  @Test func aRedirectBeforeTheStartLinkWasOpenedIsStray() async throws {
    let (opened, browserGot) = AsyncStream.makeStream(of: URL.self)
    let agent = LoopbackUserAgent(browser: BrowserLauncher { browserGot.yield($0) }, timeout: .seconds(120))
    let signIn = try await agent.prepare(redirectUri: URL(string: "http://127.0.0.1:0/callback")!)
    let secrets = Self.secrets()
    let state = secrets[0].1
    let ending = Task {
      try await signIn.authorize(Self.authorizationURL(signIn.redirectUri, secrets), state: state)
    }
    var browser = opened.makeAsyncIterator()
    let start = try #require(await browser.next())
    let transport = URLSessionTransport(timeout: .seconds(30))
    // Nobody who did not load the start link knows the state; an answer before it is not the user's.
    let early = URL(string: "\(signIn.redirectUri.absoluteString)?state=\(state)&code=early")!
    #expect(try await transport.send(HTTPRequest(url: early)).status == 404)
    #expect((300..<400).contains(try await transport.send(HTTPRequest(url: start)).status))
    let answer = URL(string: "\(signIn.redirectUri.absoluteString)?state=\(state)&code=c")!
    #expect(try await transport.send(HTTPRequest(url: answer)).status == 200)
    #expect(try await ending.value.queryParameters.contains { $0 == ("code", "c") })
    await signIn.finish()
  }
}
