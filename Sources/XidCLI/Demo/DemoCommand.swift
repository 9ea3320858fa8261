import Foundation
import Xid
import XidLoopback
import XidTesting

/// `xid demo`: a whole session against Xid's test provider, served on loopback in this process, with
/// the real pieces a command-line program uses: ``URLSessionTransport``, ``LoopbackUserAgent`` and
/// ``FileTokenStorage`` (in a temporary directory). It prints what happens at each step, and never a
/// token.
struct DemoCommand {
  let console: Console
  let verbose: Bool

  func run() async throws -> ExitCode {
    let started = Date()
    console.out("Xid demo: a whole OpenID Connect session, against a test provider running in this process.")
    let provider = try await TestProvider.startLoopback(configuration: Self.providerConfiguration)
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "xid-demo-\(UUID().uuidString.prefix(8))", isDirectory: true)
    do {
      try await walkThrough(provider, storageDirectory: directory)
    } catch {
      await provider.stopLoopback()
      try? FileManager.default.removeItem(at: directory)
      throw error
    }
    await provider.stopLoopback()
    try? FileManager.default.removeItem(at: directory)
    let elapsed = String(format: "%.1f", Date().timeIntervalSince(started))
    console.out()
    console.out(
      "Done in \(elapsed) s; the provider is stopped and the token directory deleted. Next, with your provider:")
    console.out("  xid login --issuer https://accounts.example.com --client-id my-cli")
    console.out("  xid status; xid whoami; curl -H \"Authorization: Bearer $(xid token)\" https://api.example.com/")
    return .success
  }

  private func walkThrough(_ provider: TestProvider, storageDirectory: URL) async throws {
    let storage = try FileTokenStorage(directory: storageDirectory)
    let redirectUri = TestClient.example.redirectURIs.first { $0.scheme == "http" }!
    let browser = DemoBrowser(console: console)
    var configuration = XidConfiguration(
      identity: ClientIdentity(issuer: provider.issuer, clientId: TestClient.example.id, redirectUri: redirectUri),
      parts: SessionParts(
        transport: URLSessionTransport(), clock: provider.clock,
        userAgent: LoopbackUserAgent(browser: browser.launcher, timeout: .seconds(30)),
        logger: ConsoleLogger(console: console, minimumLevel: verbose ? .debug : .error)))
    configuration.parts.storage = storage
    let xid = try Xid(configuration: configuration)

    section(1, "The provider")
    let algorithm = await provider.configuration.signingAlgorithm
    rows([
      (
        "Issuer",
        "\(provider.issuer.absoluteString)  (XidTesting's TestProvider on loopback, signing with \(algorithm))"
      ),
      ("Client", "\(TestClient.example.id), a public client; redirect URI \(redirectUri.absoluteString) (any port)"),
      ("Tokens", "FileTokenStorage in \(storageDirectory.path), deleted at the end"),
    ])

    section(2, "Sign-in: authorization code + PKCE, redirected to a loopback listener (RFC 8252)")
    let session = try await xid.signIn()
    console.out("   ✓ Signed in as \(session.subject): state and iss checked, the code exchanged with the PKCE")
    console.out("     verifier, the ID token's signature and claims validated.")

    section(3, "The ID token's claims")
    ClaimTable.write(
      session.claims.raw, to: console, indent: "   ",
      replacing: ["nonce": "… ✓ matches the sign-in's", "at_hash": "… ✓ matches the access token"])

    try await refresh(xid, provider)
    try await authorizedRequest(xid, provider)
    try await dpop(provider, storage: storage, redirectUri: redirectUri, number: 6)

    section(7, "UserInfo: the provider's claims about the user (checked to be about \(session.subject))")
    ClaimTable.write(try await xid.userInfo().claims, to: console, indent: "   ")

    try await family(provider, storage: storage, redirectUri: redirectUri, number: 8)

    section(9, "Sign-out")
    try await xid.signOut()
    let revocations = await provider.counters.revocations
    console.out("   ✓ The local session is deleted, and the refresh token revoked (revocations: \(revocations)).")
    let remaining = try await xid.getSession()
    let signedOut: String
    do {
      _ = try await xid.getAccessToken()
      signedOut = "still returns a token"
    } catch let error as XidError {
      signedOut = "throws \(error.code)"
    }
    console.out("   ✓ getSession() is \(remaining == nil ? "nil" : "still set"); getAccessToken() \(signedOut).")
  }

  private func refresh(_ xid: Xid, _ provider: TestProvider) async throws {
    let lifetime = await provider.configuration.accessTokenLifetime
    section(4, "Refresh")
    let first = try await xid.getAccessToken()
    provider.clock.advance(by: lifetime + .seconds(1))
    console.out(
      "   The provider's clock (a TestClock, which Xid shares) jumps \(lifetime.components.seconds + 1) s ahead: the access token,"
    )
    console.out("   valid \(TimeText.words(lifetime.timeInterval)), has expired.")
    let second = try await xid.getAccessToken()
    let refreshes = await provider.counters.refreshes
    let expiry = try await xid.getSession()?.accessTokenExpiresAt
    let validity = expiry.map { "; it is valid for \(TimeText.words($0.timeIntervalSince(provider.clock.now)))" } ?? ""
    console.out("   ✓ getAccessToken() refreshed it (refreshes: \(refreshes), refresh token rotated)")
    console.out(
      "     and returned a \(second == first ? "token equal to the old one (unexpected)" : "new token")\(validity).")
  }

  private func authorizedRequest(_ xid: Xid, _ provider: TestProvider) async throws {
    let url = provider.url(for: .resource)
    section(5, "An authorized request: Xid.send(GET \(url.absoluteString))")
    let response = try await xid.send(HTTPRequest(url: url, headers: ["Accept": "application/json"]))
    let body =
      (try? JSONValue(parsing: response.body)).map { $0.serialized(sortedKeys: true) }
      ?? String(decoding: response.body, as: UTF8.self)
    console.out("   HTTP \(response.status)  \(body)")
    console.out("   (Xid added Authorization: Bearer …, and would refresh and retry once on a 401 invalid_token.)")
  }

  func section(_ number: Int, _ title: String) {
    console.out()
    console.out("\(number). \(title)")
  }

  private func rows(_ rows: [(String, String)]) {
    let width = rows.map(\.0.count).max() ?? 0
    for (label, value) in rows { console.out("   \(label.padded(to: width))  \(value)") }
  }
}
