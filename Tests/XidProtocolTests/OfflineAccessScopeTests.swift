import Foundation
import Testing
import XidTestSupport

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

/// The `offline_access` rule at the protocol engine, whatever the way in: the final, whitespace-split
/// `scope` of every request is checked, before anything is sent, and DPoP lifts the rule.
struct OfflineAccessScopeTests {
  /// Scopes that ask for `offline_access`: as an element, and hidden in a space- or tab-joined one.
  static let offlineScopes: [[String]] = [
    ["openid", "offline_access"], ["openid offline_access"], ["profile\toffline_access"],
  ]

  static func expectRefusedBeforeAnyRequest(
    _ provider: FakeProvider, naming source: String, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> Void
  ) async {
    let error = await expectXidError(.invalidConfiguration, sourceLocation: sourceLocation) { try await body() }
    #expect(error?.reason.contains("offline_access") == true, sourceLocation: sourceLocation)
    #expect(error?.reason.contains("usesDPoP") == true, sourceLocation: sourceLocation)
    #expect(error?.reason.contains(source) == true, "\(error?.reason ?? "")", sourceLocation: sourceLocation)
    #expect(provider.transport.requests.isEmpty, sourceLocation: sourceLocation)
  }

  // MARK: - DPoP off: refused

  @Test(arguments: offlineScopes)
  func theSignInOptionsScopesAreChecked(scopes: [String]) async throws {
    let provider = try FakeProvider()
    await Self.expectRefusedBeforeAnyRequest(provider, naming: "SignInOptions.scopes") {
      _ = try await provider.client().makeAuthorizationRequest(SignInOptions(scopes: scopes))
    }
  }

  @Test(arguments: offlineScopes)
  func aPushedRequestIsCheckedToo(scopes: [String]) async throws {
    let provider = try FakeProvider()
    provider.metadataChanges.set(["require_pushed_authorization_requests": true])
    await Self.expectRefusedBeforeAnyRequest(provider, naming: "SignInOptions.scopes") {
      _ = try await provider.client().makeAuthorizationRequest(
        SignInOptions(scopes: scopes, usePushedAuthorization: true))
    }
    #expect(provider.transport.requests(to: "/par").isEmpty)
  }

  @Test func aScopeInTheAdditionalParametersIsRefusedBeforeAnyRequest() async throws {
    let provider = try FakeProvider()
    let error = await expectXidError(.invalidConfiguration) {
      _ = try await provider.client().makeAuthorizationRequest(
        SignInOptions(additionalParameters: ["scope": "openid offline_access"]))
    }
    #expect(error?.reason.contains("scope") == true)
    #expect(provider.transport.requests.isEmpty)
  }

  @Test(arguments: offlineScopes)
  func theDeviceAuthorizationsScopesAreChecked(scopes: [String]) async throws {
    let provider = try FakeProvider()
    await Self.expectRefusedBeforeAnyRequest(provider, naming: "signInWithDeviceCode(scopes:)") {
      _ = try await provider.client().startDeviceAuthorization(scopes: scopes)
    }
  }

  @Test(arguments: offlineScopes)
  func aRefreshsScopesAreChecked(scopes: [String]) async throws {
    let provider = try FakeProvider()
    await Self.expectRefusedBeforeAnyRequest(provider, naming: "scopes:") {
      _ = try await provider.client().refresh(refreshToken: "refresh-token-1", originalIDToken: nil, scopes: scopes)
    }
  }

  // MARK: - DPoP on: accepted

  @Test(arguments: offlineScopes)
  func withDPoPTheAuthorizationRequestAsksForOfflineAccess(scopes: [String]) async throws {
    let provider = try FakeProvider()
    let client = try DPoPClientTests.client(provider)
    let key = try DPoPProofTests.key()
    let plain = try await client.makeAuthorizationRequest(SignInOptions(scopes: scopes), dpopKey: key)
    #expect(Self.scopes(of: plain.url.query["scope"]).contains("offline_access"))
    let pushed = try await client.makeAuthorizationRequest(
      SignInOptions(scopes: scopes, usePushedAuthorization: true), dpopKey: key)
    #expect(pushed.isPushed)
    let form = try #require(provider.transport.requests(to: "/par").first?.form)
    #expect(Self.scopes(of: form["scope"]).contains("offline_access"))
  }

  @Test(arguments: offlineScopes)
  func withDPoPTheDeviceAuthorizationAsksForOfflineAccess(scopes: [String]) async throws {
    let provider = try FakeProvider()
    provider.on("/device") { _ in DeviceFlowTests.deviceResponse() }
    _ = try await DPoPClientTests.client(provider).startDeviceAuthorization(scopes: scopes)
    let form = try #require(provider.transport.requests(to: "/device").first?.form)
    #expect(Self.scopes(of: form["scope"]).contains("offline_access"))
  }

  @Test(arguments: offlineScopes)
  func withDPoPARefreshAsksForOfflineAccess(scopes: [String]) async throws {
    let provider = try FakeProvider()
    provider.on("/token") { provider, _ in try DPoPClientTests.dpopTokenResponse(provider) }
    let result = try await DPoPClientTests.client(provider).refresh(
      refreshToken: "refresh-token-1", originalIDToken: nil, scopes: scopes, dpopKey: try DPoPProofTests.key())
    #expect(result.tokens.accessToken == "access-token-1")
    let form = try #require(provider.transport.requests(to: "/token").first?.form)
    #expect(Self.scopes(of: form["scope"]).contains("offline_access"))
  }

  static func scopes(of parameter: String?) -> [Substring] {
    (parameter ?? "").split(whereSeparator: \.isWhitespace)
  }
}
