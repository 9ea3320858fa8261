import Foundation
import Testing
import Xid
import XidTesting

/// The example of the "Testing your app with XidTesting" article (Sources/Xid/Xid.docc), as written
/// there: if it stops compiling or passing, the article is wrong.
struct DocumentationExampleTests {
  @Test func theSessionSurvivesAnExpiredAccessToken() async throws {
    let provider = try TestProvider()  // issuer https://op.xid.test, client "xid-example"
    let xid = try Xid(
      configuration: XidConfiguration(
        identity: ClientIdentity(
          issuer: provider.issuer, clientId: TestClient.example.id, redirectUri: TestClient.example.redirectURIs[0]),
        parts: SessionParts(
          transport: provider.transport, storage: InMemoryTokenStorage(), clock: provider.clock,
          userAgent: provider.userAgent)))

    let session = try await xid.signIn()
    #expect(session.subject == TestUser.alice.subject)

    provider.clock.advance(by: .seconds(301))  // access tokens live five minutes
    let response = try await xid.send(HTTPRequest(url: provider.url(for: .resource)))
    #expect(response.status == 200)
    #expect(await provider.counters.refreshes == 1)

    try await xid.signOut()
    #expect(try await xid.getSession() == nil)
    #expect(await provider.counters.revocations == 1)
  }

  @Test func aMisbehavingProviderIsRefusedAndAnUnreachableOneKeepsTheSession() async throws {
    let provider = try TestProvider()
    let xid = try Xid(
      configuration: XidConfiguration(
        identity: ClientIdentity(
          issuer: provider.issuer, clientId: TestClient.example.id, redirectUri: TestClient.example.redirectURIs[0]),
        parts: SessionParts(
          transport: provider.transport, storage: InMemoryTokenStorage(), clock: provider.clock,
          userAgent: provider.userAgent)))

    try await provider.misbehave(.wrongNonce, .once)
    await #expect(throws: XidError.self) { try await xid.signIn() }
    try await xid.signIn()

    await provider.injectFault(.failConnection, at: .token)
    provider.clock.advance(by: .seconds(301))
    // The refresh could not reach the provider: the app shows "offline", and the user stays signed in.
    await #expect(throws: XidError.self) { try await xid.getAccessToken() }
    #expect(try await xid.getSession() != nil)
  }
}
