import Foundation
import Testing
import Xid
import XidTestSupport
import XidTesting

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

/// The `offline_access` rule through the app's API: a sign-in or device sign-in whose final scope
/// asks for it without DPoP is refused before any request and before anything is stored; with DPoP
/// on, it goes through.
@Suite(.noSecretLeaks)
struct OfflineAccessSessionTests {
  static let offlineScopes: [[String]] = [["openid", "offline_access"], ["openid offline_access"]]

  /// Expects the typed refusal, and that nothing reached the provider or storage.
  static func expectRefusedBeforeAnything(
    _ harness: SessionHarness, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
  ) async throws {
    let error = await expectXidError(.invalidConfiguration, sourceLocation: sourceLocation) { try await body() }
    #expect(error?.reason.contains("offline_access") == true, sourceLocation: sourceLocation)
    #expect(error?.reason.contains("usesDPoP") == true, sourceLocation: sourceLocation)
    let counters = await harness.provider.counters
    #expect(counters.discoveryFetches == 0, sourceLocation: sourceLocation)
    #expect(counters.authorizationRequests == 0, sourceLocation: sourceLocation)
    #expect(counters.pushedAuthorizationRequests == 0, sourceLocation: sourceLocation)
    #expect(counters.deviceAuthorizations == 0, sourceLocation: sourceLocation)
    #expect(try harness.pendingCount() == 0, sourceLocation: sourceLocation)
    #expect(try harness.storedRecord() == nil, sourceLocation: sourceLocation)
  }

  @Test(arguments: offlineScopes)
  func aSignInWhoseOptionsAskForOfflineAccessIsRefused(scopes: [String]) async throws {
    let harness = try SessionHarness()
    try await Self.expectRefusedBeforeAnything(harness) {
      _ = try await harness.xid.signIn(options: SignInOptions(scopes: scopes))
    }
    try await Self.expectRefusedBeforeAnything(harness) {
      _ = try await harness.xid.authorizationURL(options: SignInOptions(scopes: scopes, usePushedAuthorization: true))
    }
  }

  @Test(arguments: offlineScopes)
  func aDeviceSignInThatAsksForOfflineAccessIsRefused(scopes: [String]) async throws {
    let harness = try SessionHarness()
    let shown = Recorder<String>()
    try await Self.expectRefusedBeforeAnything(harness) {
      _ = try await harness.xid.signInWithDeviceCode(scopes: scopes) { await shown.record($0.userCode) }
    }
    #expect(await shown.values.isEmpty)
  }

  @Test(arguments: offlineScopes)
  func withDPoPASignInMayAskForOfflineAccess(scopes: [String]) async throws {
    let harness = try SessionHarness.dpop()
    let session = try await harness.xid.signIn(options: SignInOptions(scopes: scopes))
    #expect(session.scopes.contains("offline_access"))
    let pushed = try SessionHarness.dpop()
    let viaPAR = try await pushed.xid.signIn(options: SignInOptions(scopes: scopes, usePushedAuthorization: true))
    #expect(viaPAR.scopes.contains("offline_access"))
    #expect(await pushed.provider.counters.pushedAuthorizationRequests == 1)
  }

  @Test(arguments: offlineScopes)
  func withDPoPADeviceSignInMayAskForOfflineAccess(scopes: [String]) async throws {
    let harness = try SessionHarness.dpop()
    let provider = harness.provider
    let session = try await harness.xid.signInWithDeviceCode(scopes: scopes) { authorization in
      await provider.completeDeviceAuthorization(userCode: authorization.userCode)
    }
    #expect(session.scopes.contains("offline_access"))
  }
}
