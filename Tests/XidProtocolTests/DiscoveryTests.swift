import Foundation
import Testing
import XidTestSupport

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

struct DiscoveryTests {
  @Test func discoveryURLKeepsTheIssuerPath() {
    #expect(
      ProviderMetadata.discoveryURL(for: URL(string: "https://op.example/tenant/v2")!).absoluteString
        == "https://op.example/tenant/v2/.well-known/openid-configuration")
    #expect(
      ProviderMetadata.discoveryURL(for: URL(string: "https://op.example/")!).absoluteString
        == "https://op.example/.well-known/openid-configuration")
    #expect(
      ProviderMetadata.discoveryURL(for: URL(string: "https://op.example")!).absoluteString
        == "https://op.example/.well-known/openid-configuration")
  }

  @Test func metadataIsFetchedFromTheWellKnownURLWithAcceptJSON() async throws {
    let provider = try FakeProvider()
    let metadata = try await provider.client().metadata()
    #expect(metadata.issuer == FakeProvider.issuer)
    #expect(metadata.tokenEndpoint.absoluteString == "https://op.example/token")
    #expect(metadata.pushedAuthorizationRequestEndpoint?.absoluteString == "https://op.example/par")
    #expect(metadata.codeChallengeMethodsSupported == ["S256"])
    #expect(metadata.requirePushedAuthorizationRequests == false)
    #expect(metadata.grantTypesSupported == ["authorization_code", "implicit"])
    #expect(metadata.document["subject_types_supported"] == ["public"])
    let request = try #require(provider.transport.requests.first)
    #expect(request.method == "GET")
    #expect(request.url.absoluteString == "https://op.example/.well-known/openid-configuration")
    #expect(request.headers["Accept"] == "application/json")
  }

  @Test func issuerThatDiffersFromTheConfiguredOneIsRefused() async throws {
    let provider = try FakeProvider()
    provider.metadataChanges.update { $0["issuer"] = "https://evil.example" }
    await expectXidError(.issuerMismatch) { try await provider.client().metadata() }
  }

  @Test func issuerWithAnExtraTrailingSlashIsRefused() async throws {
    let provider = try FakeProvider()
    provider.metadataChanges.update { $0["issuer"] = "https://op.example/" }
    await expectXidError(.issuerMismatch) { try await provider.client().metadata() }
  }

  @Test func insecureEndpointInMetadataIsRefused() async throws {
    let provider = try FakeProvider()
    provider.metadataChanges.update { $0["token_endpoint"] = "http://op.example/token" }
    await expectXidError(.insecureURL) { try await provider.client().metadata() }
  }

  @Test func insecureOptionalEndpointInMetadataIsRefused() async throws {
    let provider = try FakeProvider()
    provider.metadataChanges.update { $0["revocation_endpoint"] = "http://op.example/revoke" }
    await expectXidError(.insecureURL) { try await provider.client().metadata() }
  }

  @Test func metadataWithoutARequiredEndpointIsRefused() async throws {
    let provider = try FakeProvider()
    provider.metadataChanges.update { $0["jwks_uri"] = .null }
    await expectXidError(.discoveryFailed) { try await provider.client().metadata() }
  }

  @Test func metadataMemberOfTheWrongTypeIsRefused() async throws {
    let provider = try FakeProvider()
    provider.metadataChanges.update { $0["require_pushed_authorization_requests"] = "yes" }
    await expectXidError(.discoveryFailed) { try await provider.client().metadata() }
  }

  @Test func discoveryHTTPErrorKeepsTheStatus() async throws {
    let provider = try FakeProvider()
    provider.on("/.well-known/openid-configuration") { _ in HTTPResponse(status: 503) }
    let error = await expectXidError(.discoveryFailed) { try await provider.client().metadata() }
    #expect(error?.httpStatus == 503)
    #expect(error?.isTransient == true)
  }

  @Test func discoveryHTMLBodyIsRefused() async throws {
    let provider = try FakeProvider()
    provider.on("/.well-known/openid-configuration") { _ in
      HTTPResponse(status: 200, headers: ["Content-Type": "text/html"], body: Data("<html></html>".utf8))
    }
    let error = await expectXidError(.discoveryFailed) { try await provider.client().metadata() }
    #expect(error?.reason.contains("text/html") == true)
  }

  @Test func metadataIsCachedForItsLifetime() async throws {
    let provider = try FakeProvider()
    let client = try provider.client { $0.policy.metadataLifetime = .seconds(600) }
    _ = try await client.metadata()
    _ = try await client.metadata()
    provider.clock.advance(by: .seconds(599))
    _ = try await client.metadata()
    #expect(provider.transport.requests.count == 1)
    provider.clock.advance(by: .seconds(2))
    _ = try await client.metadata()
    #expect(provider.transport.requests.count == 2)
    _ = try await client.metadata(forceRefresh: true)
    #expect(provider.transport.requests.count == 3)
  }

  @Test func failedDiscoveryIsNotCached() async throws {
    let provider = try FakeProvider()
    let failing = LockedValue(true)
    provider.on("/.well-known/openid-configuration") { provider, _ in
      failing.get() ? HTTPResponse(status: 500) : .json(provider.metadata)
    }
    let client = try provider.client()
    await expectXidError(.discoveryFailed) { try await client.metadata() }
    failing.update { $0 = false }
    #expect(try await client.metadata().issuer == FakeProvider.issuer)
  }

  @Test func signingAlgorithmsAreTheSupportedOnesTheProviderLists() throws {
    func algorithms(_ listed: JSONValue?) throws -> Set<JWSAlgorithm> {
      var document: [String: JSONValue] = [
        "issuer": "https://op.example", "authorization_endpoint": "https://op.example/a",
        "token_endpoint": "https://op.example/t", "jwks_uri": "https://op.example/k",
      ]
      document["id_token_signing_alg_values_supported"] = listed
      return try ProviderMetadata(document: .object(document), expectedIssuer: "https://op.example")
        .idTokenSigningAlgorithms()
    }
    #expect(try algorithms(nil) == [.rs256])
    #expect(try algorithms(["RS256", "ES256", "HS256", "none", "ES512"]) == [.rs256, .es256])
    #expect(try algorithms(["PS256", "EdDSA"]) == [.ps256, .edDSA])
    expectXidError(.unsupportedByProvider) { try algorithms(["HS256", "none"]) }
  }

  @Test func insecureIssuerIsRefusedBeforeAnyRequest() throws {
    let transport = ScriptedTransport { _ in HTTPResponse(status: 500) }
    let configuration = XidConfiguration(
      issuer: URL(string: "http://op.example")!, clientId: "c", redirectUri: FakeProvider.redirectUri)
    expectXidError(.insecureURL) { try OpenIDClient(configuration: configuration.using(transport: transport)) }
    #expect(transport.requests.isEmpty)
  }

  @Test func httpRedirectURIToANonLoopbackHostIsRefused() throws {
    let transport = ScriptedTransport { _ in HTTPResponse(status: 500) }
    for uri in ["http://app.example/callback", "https:/callback", "com.example.app:/cb#frag"] {
      let configuration = XidConfiguration(
        issuer: URL(string: "https://op.example")!, clientId: "c", redirectUri: URL(string: uri)!)
      expectXidError(.invalidConfiguration) {
        try OpenIDClient(configuration: configuration.using(transport: transport))
      }
    }
    for uri in ["http://127.0.0.1:49152/callback", "http://[::1]/cb", "https://app.example/cb", "com.example.app:/cb"] {
      let configuration = XidConfiguration(
        issuer: URL(string: "https://op.example")!, clientId: "c", redirectUri: URL(string: uri)!)
      #expect(throws: Never.self) { try OpenIDClient(configuration: configuration.using(transport: transport)) }
    }
  }
}
