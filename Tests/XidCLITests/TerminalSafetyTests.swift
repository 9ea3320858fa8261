import Foundation
import Testing
import Xid
import XidTestSupport
import XidTesting

@testable import XidCLI

/// What a provider controls (`sub`, `name` and every other claim, the user code and verification
/// address, error descriptions) reaches the terminal with no control character in it: no escape
/// sequence can retitle the window, clear the screen, move the cursor or reorder text.
@Suite(.workerProcessesOneAtATime)
struct TerminalSafetyTests {
  /// C0 controls (ESC, BEL, backspace, carriage return), DEL, C1 controls (CSI, OSC) and bidi
  /// controls, as a hostile provider would put them in a claim.
  static let hostile =
    "\u{1B}]0;owned\u{07}\u{1B}[2J\u{8}\r\u{7F}\u{9B}31m\u{9D}0;t\u{9C}\u{202E}gnp.exe\u{2066}x\u{2069}"

  /// The scalars no output may carry: C0 but newline and tab, DEL, C1, and the bidi controls.
  static func unsafeScalars(in text: String) -> [String] {
    var found: [String] = []
    let scalars = Array(text.unicodeScalars)
    for (index, scalar) in scalars.enumerated() {
      let value = scalar.value
      let isCarriageReturnOfCRLF = value == 0x0D && index + 1 < scalars.count && scalars[index + 1] == "\n"
      let unsafe =
        (value < 0x20 && value != 0x0A && value != 0x09 && !isCarriageReturnOfCRLF) || (0x7F...0x9F).contains(value)
        || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value) || value == 0x200E
        || value == 0x200F || value == 0x061C
      if unsafe { found.append(String(format: "U+%04X", value)) }
    }
    return found
  }

  @Test func everyControlCharacterIsEscapedBeforeItReachesTheTerminal() {
    let capture = RunnerTests.Capture()
    let console = capture.console
    console.out("sub \(Self.hostile)")
    console.err("name \(Self.hostile)")
    console.writeOut("HTTP 200\r\nX-Evil: \(Self.hostile)\r\n\r\n")
    #expect(Self.unsafeScalars(in: capture.stdout + capture.stderr).isEmpty, "\(capture.stdout + capture.stderr)")
    // Printable text, newlines, tabs and CRLF line ends stay as they are.
    let plain = "✓ Signed in as Zoë 山田 🙂\tok"
    console.out(plain)
    #expect(capture.stdout.contains(plain + "\n"))
    #expect(capture.stdout.contains("HTTP 200\r\n"))
    // What was there is still told: each control character as its code.
    #expect(capture.stdout.contains(#"\u001B]0;owned\u0007"#))
    #expect(capture.stdout.contains(#"\u202Egnp.exe"#))
  }

  @Test func escapedJSONStillParsesToWhatTheProviderSent() throws {
    let capture = RunnerTests.Capture()
    let claims: JSONValue = ["sub": .string(Self.hostile), "name": .string("Zoë \u{202E}x\u{7F}\u{85}")]
    capture.console.out(JSONText.pretty(claims))
    #expect(Self.unsafeScalars(in: capture.stdout).isEmpty)
    #expect(try JSONValue(parsing: capture.stdout) == claims)
  }

  @Test func aHostileUserCodeAndAddressAreShownEscaped() {
    let capture = RunnerTests.Capture()
    let authorization = DeviceAuthorization(
      deviceCode: "device", userCode: "ABCD\u{1B}[2J\u{9B}1mEFGH",
      verificationURI: URL(string: "https://op.example/d")!,
      verificationURIComplete: URL(string: "https://op.example/d?user_code=ABCD"), expiresAt: Date(),
      interval: .seconds(5),
      scopes: ["openid"])
    DeviceCodePrompt.show(authorization, console: capture.console, environment: [:])
    #expect(Self.unsafeScalars(in: capture.stderr).isEmpty, "\(capture.stderr)")
    #expect(capture.stderr.contains("ABCD"))
    #expect(capture.stderr.contains("EFGH"))
  }

  @Test func argumentsEchoedInUsageErrorsAreEscaped() async {
    let capture = RunnerTests.Capture()
    let context = CLIContext(
      environment: [:], console: capture.console, currentDirectory: FileManager.default.temporaryDirectory)
    let code = await XidCommandLine.run(["login", "--x\(Self.hostile)"], context: context)
    #expect(code == .usage)
    #expect(Self.unsafeScalars(in: capture.stderr).isEmpty, "\(capture.stderr)")
  }

  /// A whole session with a provider whose user has control characters in `sub`, `name` and another
  /// claim: login (device code), status, whoami and whoami --json print none of them.
  @Test func aHostileProvidersClaimsNeverReachTheTerminalRaw() async throws {
    var configuration = TestProvider.Configuration()
    configuration.devicePollingInterval = .seconds(1)
    configuration.includesScopeClaimsInIDToken = true
    let provider = try await TestProvider.startLoopback(configuration: configuration)
    await provider.setUser(
      TestUser(
        subject: "mallory\(Self.hostile)",
        claims: ["name": .string("Eve\(Self.hostile)\nxid: fake line"), "nickname": .string(Self.hostile)]))
    let state = FileManager.default.temporaryDirectory.appendingPathComponent("xid-terminal-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: state) }
    func run(_ arguments: [String]) async -> (ExitCode, RunnerTests.Capture) {
      let capture = RunnerTests.Capture()
      let context = CLIContext(
        environment: ["XID_STATE_DIR": state.path, "PATH": "/nonexistent"], console: capture.console,
        currentDirectory: state)
      return (await XidCommandLine.run(arguments, context: context), capture)
    }

    let login = RunnerTests.Capture()
    let loginContext = CLIContext(
      environment: ["XID_STATE_DIR": state.path, "PATH": "/nonexistent"], console: login.console,
      currentDirectory: state)
    async let signingIn = XidCommandLine.run(
      ["login", "--device", "--issuer", provider.issuer.absoluteString, "--client-id", "xid-example"],
      context: loginContext)
    var userCode: String?
    let deadline = Date().addingTimeInterval(30)
    while userCode == nil && Date() < deadline {
      userCode = login.stderr.firstMatch(of: /\n  ([B-Z]{4}-[B-Z]{4})\n/).map { String($0.1) }
      if userCode == nil { try await Task.sleep(for: .milliseconds(20)) }
    }
    #expect(await provider.completeDeviceAuthorization(userCode: try #require(userCode)))
    #expect(await signingIn == .success, "\(login.stderr)")
    #expect(login.stdout.contains("Signed in as mallory"))

    let (statusCode, status) = await run(["status"])
    #expect(statusCode == .success, "\(status.stderr)")
    let (whoamiCode, whoami) = await run(["whoami"])
    #expect(whoamiCode == .success, "\(whoami.stderr)")
    #expect(whoami.stdout.contains("nickname"))
    let (jsonCode, json) = await run(["whoami", "--json"])
    #expect(jsonCode == .success, "\(json.stderr)")
    let document = try JSONValue(parsing: json.stdout)
    #expect(document["userinfo"]?["sub"]?.stringValue == "mallory\(Self.hostile)")

    for (name, capture) in [("login", login), ("status", status), ("whoami", whoami), ("whoami --json", json)] {
      let output = capture.stdout + capture.stderr
      #expect(Self.unsafeScalars(in: output).isEmpty, "xid \(name) printed control characters:\n\(output)")
      // A claim's newline does not start a line of its own in a table or a status line.
      #expect(!output.contains("\nxid: fake line"), "xid \(name) let a claim start a line:\n\(output)")
    }
    await provider.stopLoopback()
  }
}
