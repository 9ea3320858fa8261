import Foundation
import Testing
import Xid
import XidTestSupport
import XidTesting

/// A protected resource's metadata (RFC 9728): read from the well-known URL its identifier gives, or
/// from a 401's `resource_metadata`; used only when it states the resource it was fetched for, names
/// the configured issuer and fits the DPoP setting; cached like discovery.
struct ProtectedResourceMetadataTests {
  /// Counts the requests for the resource's metadata.
  final class CountingTransport: HTTPTransport, @unchecked Sendable {
    let base: any HTTPTransport
    private let lock = NSLock()
    private var paths: [String] = []
    init(_ base: any HTTPTransport) { self.base = base }
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
      lock.withLock { paths.append(request.url.path) }
      return try await base.send(request)
    }
    var metadataFetches: Int {
      lock.withLock { paths.filter { $0.hasPrefix("/.well-known/oauth-protected-resource") }.count }
    }
  }

  static func client(
    _ provider: TestProvider, dpop: Bool = false
  ) throws -> (OpenIDClient, CountingTransport) {
    let transport = CountingTransport(provider.transport)
    var configuration = SessionHarness.configuration(provider, logger: RecordingLogger(), transport: transport)
    configuration.usesDPoP = dpop
    return (try OpenIDClient(configuration: configuration), transport)
  }

  @Test(arguments: [
    ("https://api.example.com", "https://api.example.com/.well-known/oauth-protected-resource"),
    ("https://api.example.com/", "https://api.example.com/.well-known/oauth-protected-resource"),
    ("https://api.example.com/v1/", "https://api.example.com/.well-known/oauth-protected-resource/v1"),
    (
      "https://api.example.com:8443/a/b?x=1",
      "https://api.example.com:8443/.well-known/oauth-protected-resource/a/b?x=1"
    ),
    ("http://127.0.0.1:9000/api", "http://127.0.0.1:9000/.well-known/oauth-protected-resource/api"),
  ])
  func theWellKnownPathGoesBetweenTheHostAndThePath(resource: String, expected: String) throws {
    #expect(try ProtectedResourceMetadata.metadataURL(for: URL(string: resource)!).absoluteString == expected)
  }

  @Test func anIdentifierWithAFragmentOrWithoutTLSIsRefused() {
    expectXidError(.invalidConfiguration) {
      try ProtectedResourceMetadata.metadataURL(for: URL(string: "https://api.example.com/a#b")!)
    }
    expectXidError(.insecureURL) {
      try ProtectedResourceMetadata.metadataURL(for: URL(string: "http://api.example.com")!)
    }
  }

  @Test func theResourcesMetadataIsReadCheckedAndCached() async throws {
    var configuration = TestProvider.Configuration()
    configuration.resourceScopesSupported = ["openid", "read:balance"]
    let provider = try TestProvider(configuration: configuration)
    let (client, transport) = try Self.client(provider)
    let metadata = try await client.protectedResourceMetadata(for: provider.url(for: .resource))
    #expect(metadata.resource == provider.url(for: .resource).absoluteString)
    #expect(metadata.authorizationServers == [provider.issuer.absoluteString])
    #expect(metadata.scopesSupported == ["openid", "read:balance"])
    #expect(!metadata.dpopBoundAccessTokensRequired)
    _ = try await client.protectedResourceMetadata(for: provider.url(for: .resource))
    #expect(transport.metadataFetches == 1)
    _ = try await client.protectedResourceMetadata(for: provider.url(for: .resource), forceRefresh: true)
    #expect(transport.metadataFetches == 2)
  }

  @Test func metadataThatStatesAnotherResourceIsRefusedAndNotCached() async throws {
    let provider = try TestProvider()
    let (client, transport) = try Self.client(provider)
    try await provider.misbehave(.otherResourceInMetadata, .once)
    let error = await expectXidError(.resourceMetadataFailed) {
      try await client.protectedResourceMetadata(for: provider.url(for: .resource))
    }
    #expect(error?.reason.contains("RFC 9728 §3.3") == true)
    _ = try await client.protectedResourceMetadata(for: provider.url(for: .resource))
    #expect(transport.metadataFetches == 2)
  }

  @Test func aResourceThatAcceptsOnlyDPoPTokensRefusesASessionWithoutDPoP() async throws {
    var configuration = TestProvider.Configuration()
    configuration.resourceRequiresDPoP = true
    let provider = try TestProvider(configuration: configuration)
    let error = await expectXidError(.invalidConfiguration) {
      try await Self.client(provider).0.protectedResourceMetadata(for: provider.url(for: .resource))
    }
    #expect(error?.reason.contains("dpop_bound_access_tokens_required") == true)
    let metadata = try await Self.client(provider, dpop: true).0.protectedResourceMetadata(
      for: provider.url(for: .resource))
    #expect(metadata.dpopBoundAccessTokensRequired)
  }

  @Test func anIssuerTheResourceDoesNotListIsRefused() throws {
    let provider = try TestProvider()
    let document: JSONValue = [
      "resource": "https://api.example.com", "authorization_servers": ["https://other.example"],
    ]
    let metadata = try ProtectedResourceMetadata(document: document, expectedResource: "https://api.example.com")
    let configuration = SessionHarness.configuration(provider, logger: RecordingLogger())
    expectXidError(.issuerMismatch) { try metadata.check(for: configuration) }
    let unlisted = try ProtectedResourceMetadata(
      document: ["resource": "https://api.example.com"], expectedResource: "https://api.example.com")
    #expect(throws: Never.self) { try unlisted.check(for: configuration) }
  }

  @Test(arguments: [
    JSONValue.array([]),
    ["authorization_servers": ["https://op.xid.test"]],
    ["resource": "https://api.example.com/"],
    ["resource": "https://api.example.com", "authorization_servers": "https://op.xid.test"],
    ["resource": "https://api.example.com", "scopes_supported": [1]],
    ["resource": "https://api.example.com", "dpop_bound_access_tokens_required": "true"],
  ])
  func aDocumentThatBreaksTheRulesIsRefused(document: JSONValue) {
    expectXidError(.resourceMetadataFailed) {
      try ProtectedResourceMetadata(document: document, expectedResource: "https://api.example.com")
    }
  }

  @Test func aChallengesResourceMetadataIsFollowedAndMustStateTheRefusedURL() async throws {
    let provider = try TestProvider()
    let (client, _) = try Self.client(provider)
    let pointer = provider.url(for: .resourceMetadata).absoluteString
    let challenge = HTTPResponse(
      status: 401, headers: ["WWW-Authenticate": #"Bearer error="invalid_token", resource_metadata=""# + pointer + "\""]
    )
    let metadata = try await client.protectedResourceMetadata(
      challengedBy: challenge, requestURL: provider.url(for: .resource))
    #expect(metadata?.resource == provider.url(for: .resource).absoluteString)
    await expectXidError(.resourceMetadataFailed) {
      try await client.protectedResourceMetadata(
        challengedBy: challenge, requestURL: URL(string: provider.url(for: .resource).absoluteString + "/other")!)
    }
    #expect(
      try await client.protectedResourceMetadata(
        challengedBy: HTTPResponse(status: 401, headers: ["WWW-Authenticate": "Bearer"]),
        requestURL: provider.url(for: .resource)) == nil)
    await expectXidError(.insecureURL) {
      try await client.protectedResourceMetadata(
        challengedBy: HTTPResponse(
          status: 401, headers: ["WWW-Authenticate": #"Bearer resource_metadata="http://evil.example/m""#]),
        requestURL: provider.url(for: .resource))
    }
  }

  @Test func theResourcesScopesAreRequestedWhenTheSignInNamesNone() async throws {
    var configuration = TestProvider.Configuration()
    configuration.resourceScopesSupported = ["openid", "read:balance"]
    let provider = try TestProvider(configuration: configuration)
    let (client, _) = try Self.client(provider)
    let metadata = try await client.protectedResourceMetadata(for: provider.url(for: .resource))
    let request = try await client.makeAuthorizationRequest(SignInOptions(resourceMetadata: metadata))
    #expect(request.pending.scopes == ["openid", "read:balance"])
    var named = SignInOptions(resourceMetadata: metadata)
    named.scopes = ["email"]
    #expect(try await client.makeAuthorizationRequest(named).pending.scopes == ["openid", "email"])
  }
}
