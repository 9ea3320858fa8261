import Foundation
import Testing
import Xid

extension GlewlwydInterop {
  /// A real browser: headless Chromium (scripts/interop/browser-login.py, Selenium) signs in on
  /// glewlwyd's own login page, opened by ``LoopbackUserAgent``, whose listener receives the redirect.
  @Suite(.interopProvider, .timeLimit(.minutes(2)))
  struct BrowserInteropTests {
    /// The package's root directory (this file is Tests/XidInteropTests/BrowserInteropTests.swift).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    static let script = packageRoot.appendingPathComponent("scripts/interop/browser-login.py")

    /// Why the browser test cannot run here, or `nil` when Chromium, its driver and the venv are there.
    static let browserMissing: String? = {
      let files = FileManager.default
      for path in ["/usr/bin/chromium", "/usr/bin/chromedriver"] where !files.isExecutableFile(atPath: path) {
        return "\(path) is missing"
      }
      let venv =
        ProcessInfo.processInfo.environment["XID_INTEROP_VENV"].flatMap { $0.isEmpty ? nil : $0 }
        ?? packageRoot.appendingPathComponent(".build/interop-venv").path
      let libraries = URL(fileURLWithPath: venv).appendingPathComponent("lib")
      let selenium = ((try? files.contentsOfDirectory(atPath: libraries.path)) ?? []).contains {
        files.fileExists(atPath: libraries.appendingPathComponent("\($0)/site-packages/selenium").path)
      }
      return selenium ? nil : "the venv \(venv) has no Selenium"
    }()

    @Test(
      .enabled(
        if: browserMissing == nil,
        Comment(rawValue: "no browser (\(browserMissing ?? "")): run scripts/interop/setup-browser.sh")))
    func aRealBrowserSignsInOnGlewlwydsLoginPageThroughTheLoopbackListener() async throws {
      let environment = try InteropEnvironment.require()
      let scratch = try TemporaryDirectory()
      let result = scratch.url.appendingPathComponent("browser-result")
      // BrowserLauncher.command splits on spaces and appends the listener's start link, which
      // Chromium follows to the authorization URL. The script writes
      // "ok" to --result once the browser has loaded the redirect URI's page from Xid's listener.
      let command = [
        Self.script.path, "--timeout", "60", "--result", result.path, "--username", environment.username,
        "--password", environment.password,
      ]
      let agent = LoopbackUserAgent(browser: .command(command.joined(separator: " ")), timeout: .seconds(90))
      let fixture = try InteropFixture(redirectUri: environment.browserRedirectURI, userAgent: agent)

      let session = try await fixture.xid.signIn()
      #expect(!session.subject.isEmpty)
      #expect(session.claims.audience.contains(fixture.clientId))
      #expect(try await fixture.xid.userInfo().subject == session.subject)
      #expect(try fixture.stored("refresh_token") != nil)

      // The browser got Xid's completion page, not a connection error (and Chromium has quit).
      let deadline = ContinuousClock.now + .seconds(30)
      while !FileManager.default.fileExists(atPath: result.path) && ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(50))
      }
      let outcome = (try? String(contentsOf: result, encoding: .utf8)) ?? "no result from browser-login.py"
      #expect(outcome == "ok\n", "browser-login.py: \(outcome)")
    }
  }
}
