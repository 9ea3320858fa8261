import Foundation
import Xid
import XidTesting

/// `xid demo --serve`: the test provider on loopback, kept running so that `xid login` and the other
/// commands (or any OpenID client) can be tried against it. Its clock follows the real one.
struct DemoServer {
  let console: Console

  func run() async throws -> ExitCode {
    let provider = try await TestProvider.startLoopback()
    let issuer = provider.issuer.absoluteString
    console.out("The test provider is serving at \(issuer) until you press Ctrl-C.")
    console.out("Its client \(TestClient.example.id) may redirect to http://127.0.0.1/callback (any port), and its")
    console.out("user, alice, approves every request. In another terminal:")
    console.out()
    console.out("  xid login --profile demo --issuer \(issuer) --client-id \(TestClient.example.id)")
    console.out("  xid login --profile demo --device       # then open the address it shows")
    console.out("  xid whoami --profile demo")
    console.out("  xid request --profile demo \(provider.url(for: .resource).absoluteString)")
    while !Task.isCancelled {
      provider.clock.set(to: Date())
      try await Task.sleep(for: .seconds(1))
    }
    await provider.stopLoopback()
    return .success
  }
}
