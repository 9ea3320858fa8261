import Foundation
import Xid
import XidTesting

/// `xid demo --serve`: the test provider on loopback, kept running so that `xid login` and the other
/// commands (or any OpenID client) can be tried against it. Its clock follows the real one.
struct DemoServer {
  let console: Console

  func run() async throws -> ExitCode {
    // Its clock follows the real one a second at a time: proofs made meanwhile may be a second ahead.
    // The example client and its companion app, both members of one app family.
    var configuration = DemoCommand.providerConfiguration
    configuration.dpop.futureLeeway = .seconds(2)
    let provider = try await TestProvider.startLoopback(configuration: configuration)
    let issuer = provider.issuer.absoluteString
    console.out("The test provider is serving at \(issuer) until you press Ctrl-C.")
    console.out("Its client \(TestClient.example.id) may redirect to http://127.0.0.1/callback (any port), and its")
    console.out("user, alice, approves every request. In another terminal:")
    console.out()
    console.out("  xid login --profile demo --issuer \(issuer) --client-id \(TestClient.example.id)")
    console.out("  xid login --profile demo --device       # then open the address it shows")
    console.out("  xid login --profile demo --dpop         # tokens bound to a key of this machine")
    console.out("  xid whoami --profile demo")
    console.out("  xid request --profile demo \(provider.url(for: .resource).absoluteString)")
    console.out()
    console.out("An iOS app in the Simulator on this Mac can use it too (Examples/XidExample, with the issuer above):")
    console.out("the client also accepts the redirect URI \(Self.appRedirect) and the post-logout URI")
    console.out(
      "\(Self.appPostLogoutRedirect). Its companion app, client \(DemoCommand.companion.id), signs in from the")
    console.out("example app's family session (token exchange) with no browser:")
    console.out(
      "  xid login --profile demo --device-sso; xid login --sso-from demo --client-id \(DemoCommand.companion.id) --profile companion"
    )
    // Until Ctrl-C ends the process, or the task is cancelled: then the port is closed first.
    while !Task.isCancelled {
      provider.clock.set(to: Date())
      do {
        try await Task.sleep(for: .seconds(1))
      } catch {
        break
      }
    }
    await provider.stopLoopback()
    return .success
  }

  /// The example client's redirect URI for apps (a private-use scheme), as XidTesting registers it.
  private static var appRedirect: String {
    TestClient.example.redirectURIs.first { $0.scheme != "http" }?.absoluteString ?? "(none)"
  }

  /// The example client's post-logout redirect URI.
  private static var appPostLogoutRedirect: String {
    TestClient.example.postLogoutRedirectURIs.first?.absoluteString ?? "(none)"
  }
}
