import Foundation
import Testing
import Xid
import XidTestSupport
import XidTesting

/// `xid` with a DPoP-bound session: `login --dpop` saved in the profile, `request` and `whoami` with
/// proofs, and `token --dpop-proof` for curl. Each command is its own process, so the key and the
/// provider's nonce reach every one through the state directory.
@Suite(.workerProcessesOneAtATime)
struct DPoPBinaryTests {
  @Test func aDPoPSessionThroughTheCommands() async throws {
    var configuration = TestProvider.Configuration()
    configuration.dpop.requiresNonce = true
    // The commands run on the system clock, and the provider's test clock stands still meanwhile.
    configuration.dpop.futureLeeway = .seconds(60)
    let provider = try await TestProvider.startLoopback(configuration: configuration)
    let xid = try XidBinary()
    defer { xid.cleanUp() }
    let browser = try ScriptedBrowser(in: xid.home)
    async let signingIn = xid.run([
      "login", "--dpop", "--issuer", provider.issuer.absoluteString, "--client-id", "xid-example", "--scope",
      "openid profile offline_access", "--browser", browser.script.path,
    ])
    try await browser.signIn()
    let login = try await signingIn
    #expect(login.exitCode == 0, "\(login)")
    #expect(login.stdout.contains("bound to a software DPoP key"))
    let profile = try String(
      contentsOf: xid.stateDirectory.appendingPathComponent("profiles/default.json"), encoding: .utf8)
    #expect(profile.contains(#""dpop" : true"#))

    let status = try await xid.run(["status"])
    #expect(status.stdout.contains("bound to a software key"), "\(status)")

    let resource = provider.url(for: .resource)
    let request = try await xid.run(["request", resource.absoluteString])
    #expect(request.exitCode == 0, "\(request)")
    #expect(request.stdout.contains("\"token_type\":\"DPoP\""))
    #expect(try await xid.run(["whoami"]).exitCode == 0)
    // One nonce challenge in all: the later processes started with the nonce the first one saw.
    #expect(await provider.counters.dpopNonceChallenges == 1)

    let token = try await xid.run(["token", "--dpop-proof", "GET", resource.absoluteString])
    #expect(token.exitCode == 0, "\(token)")
    let lines = token.stdout.split(separator: "\n").map(String.init)
    try #require(lines.count == 2)
    var curl = HTTPRequest(url: resource)
    curl.headers["Authorization"] = "DPoP " + lines[0]
    curl.headers["DPoP"] = lines[1]
    #expect(try await URLSessionTransport().send(curl).status == 200)
    // A proof is good once.
    #expect(try await URLSessionTransport().send(curl).status == 401)
    #expect(await provider.counters.dpopProofsRefused == 1)

    let logout = try await xid.run(["logout"])
    #expect(logout.exitCode == 0, "\(logout)")
    let remaining = try FileManager.default.contentsOfDirectory(atPath: xid.stateDirectory.path)
    #expect(!remaining.contains { $0.hasPrefix("xid.dpop-key.") })
    await provider.stopLoopback()
  }

  @Test func aProofIsRefusedForABearerSession() async throws {
    let provider = try await TestProvider.startLoopback()
    let xid = try XidBinary()
    defer { xid.cleanUp() }
    let browser = try ScriptedBrowser(in: xid.home)
    async let signingIn = xid.run([
      "login", "--issuer", provider.issuer.absoluteString, "--client-id", "xid-example", "--browser",
      browser.script.path,
    ])
    try await browser.signIn()
    #expect(try await signingIn.exitCode == 0)
    let token = try await xid.run(["token", "--dpop-proof", "GET", provider.url(for: .resource).absoluteString])
    #expect(token.exitCode == 1)
    #expect(token.stdout.isEmpty)
    #expect(token.stderr.contains("xid login --dpop"))
    await provider.stopLoopback()
  }
}
