import Foundation
import Xid
import XidTesting

extension DemoCommand {
  /// The second app of the demo's family: its own client, which may exchange the family's tokens.
  static let companion = TestClient(
    id: "xid-example-companion", redirectURIs: TestClient.example.redirectURIs, allowsTokenExchange: true)

  /// The demo's provider: the example client and its companion, both members of one app family.
  static var providerConfiguration: TestProvider.Configuration {
    var configuration = TestProvider.Configuration()
    var example = TestClient.example
    example.allowsTokenExchange = true
    configuration.clients = [example, companion]
    return configuration
  }

  /// The demo's app family step: app 1 signs in with `device_sso`, app 2 (another client ID) signs in
  /// from it with no browser (OpenID Connect Native SSO, RFC 8693), and a family sign-out ends both.
  func family(_ provider: TestProvider, storage: FileTokenStorage, redirectUri: URL, number: Int) async throws {
    func app(_ client: TestClient) throws -> Xid {
      var identity = ClientIdentity(
        issuer: provider.issuer, clientId: client.id, redirectUri: redirectUri, account: "family")
      identity.family = AppFamily(name: "xid-demo")
      var configuration = XidConfiguration(
        identity: identity,
        parts: SessionParts(
          transport: URLSessionTransport(), clock: provider.clock, userAgent: provider.userAgent,
          logger: ConsoleLogger(console: console, minimumLevel: verbose ? .debug : .error)))
      configuration.policy.deviceSecretHashRule = .atHashRule
      configuration.parts.storage = storage
      return try Xid(configuration: configuration)
    }
    section(number, "An app family: a second app signs in from the first, with no browser")
    let first = try app(TestClient.example)
    _ = try await first.signIn()
    console.out("   App 1 (\(TestClient.example.id)) signed in asking for device_sso; the provider's device secret and")
    console.out("   the ID token that binds it (ds_hash ✓, sid) are kept in the family's record.")
    let second = try app(Self.companion)
    let accounts = try await second.familyAccounts()
    guard let account = accounts.first else { throw CommandFailure(.failure, "the family has no account") }
    let authorizations = await provider.counters.authorizationRequests
    let session = try await second.signIn(from: account)
    let browserless = await provider.counters.authorizationRequests == authorizations
    console.out(
      "   App 2 (\(Self.companion.id)) offers \"Continue as \(account.displayName)\" and signs in from it by token")
    console.out(
      "   exchange\(browserless ? ", no browser" : ""): its own tokens, its own ID token (aud \(Self.companion.id)), subject \(session.subject)."
    )
    let result = try await first.signOut(scope: .family)
    let ended: String
    do {
      _ = try await second.getAccessToken(forceRefresh: true)
      ended = "still has a session (unexpected)"
    } catch let error as XidError {
      ended = "ends its session at its next refresh: \(error.code)"
    }
    let revoked = result.deviceSecretRevocation == .revoked ? "revoked" : "not revoked"
    console.out(
      "   ✓ A family sign-out in app 1 deletes the family's record (device secret \(revoked)); app 2 \(ended).")
  }
}
