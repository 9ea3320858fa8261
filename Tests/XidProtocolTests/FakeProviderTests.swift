import Foundation
import Testing

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

/// The fixture itself: a provider must not outlive its test, or every test's keys, clients and requests
/// stay allocated until the process exits (and LeakSanitizer reports them).
struct FakeProviderTests {
  @Test func aProviderIsFreedWithItsLastReferenceEvenWithHandlersThatUseIt() async throws {
    weak var released: FakeProvider?
    do {
      let provider = try FakeProvider()
      provider.on("/token") { provider, _ in try provider.tokenResponse() }
      provider.on("/userinfo") { _ in .json(["sub": "alice"]) }
      let client = try provider.client()
      let (redirect, pending) = try await provider.authorize(client)
      let result = try await client.handleRedirect(url: redirect, pending: [pending])
      #expect(result.tokens.accessToken == "access-token-1")
      released = provider
    }
    #expect(released == nil)
  }
}
