import Foundation
import Testing
import XidCore
import XidTesting

struct DiscoveryTests {
  @Test func discoveryDocumentAdvertisesTheIssuerEndpointsAndFeatures() async throws {
    let harness = try Harness()
    let provider = harness.provider
    let response = try await harness.get(.discovery)
    #expect(response.status == 200)
    #expect(response.headers["Content-Type"] == "application/json")
    let document = try Harness.json(response)
    #expect(document["issuer"] == "https://op.xid.test")
    let endpoints: [(String, TestProvider.Endpoint)] = [
      ("authorization_endpoint", .authorization), ("token_endpoint", .token), ("userinfo_endpoint", .userInfo),
      ("jwks_uri", .jwks), ("revocation_endpoint", .revocation), ("end_session_endpoint", .endSession),
      ("device_authorization_endpoint", .deviceAuthorization),
      ("pushed_authorization_request_endpoint", .pushedAuthorization),
    ]
    for (member, endpoint) in endpoints {
      #expect(document[member]?.stringValue == provider.url(for: endpoint).absoluteString, "\(member)")
    }
    #expect(document["id_token_signing_alg_values_supported"] == ["ES256"])
    #expect(document["code_challenge_methods_supported"] == ["S256"])
    #expect(document["authorization_response_iss_parameter_supported"] == true)
    #expect(document["require_pushed_authorization_requests"] == false)
    #expect(document["response_types_supported"] == ["code"])
    let grants = (document["grant_types_supported"]?.arrayValue ?? []).compactMap(\.stringValue)
    #expect(
      Set(grants) == [
        "authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:device_code",
        "urn:ietf:params:oauth:grant-type:token-exchange",
      ])
    #expect(await provider.counters.discoveryFetches == 1)
  }

  @Test func requiredPushedAuthorizationIsAdvertised() async throws {
    var configuration = TestProvider.Configuration()
    configuration.pushedAuthorization = .required
    let document = try Harness.json(try await Harness(configuration: configuration).get(.discovery))
    #expect(document["require_pushed_authorization_requests"] == true)
  }

  @Test func withoutPushedAuthorizationThereIsNoPAREndpoint() async throws {
    var configuration = TestProvider.Configuration()
    configuration.pushedAuthorization = .unsupported
    let harness = try Harness(configuration: configuration)
    let document = try Harness.json(try await harness.get(.discovery))
    #expect(document["pushed_authorization_request_endpoint"] == nil)
    #expect(document["require_pushed_authorization_requests"] == nil)
    #expect(try await harness.post(.pushedAuthorization, [("client_id", "xid-example")]).status == 404)
  }

  @Test func jwksPublishesTheCurrentPublicKeyWithItsKid() async throws {
    let harness = try Harness()
    let response = try await harness.get(.jwks)
    let keys = try #require(try Harness.json(response)["keys"]?.arrayValue)
    #expect(keys.count == 1)
    #expect(keys[0]["kid"]?.stringValue == (await harness.provider.signingKeyID))
    #expect(keys[0]["alg"] == "ES256")
    #expect(keys[0]["use"] == "sig")
    #expect(keys[0]["d"] == nil)
    #expect(try JWKSet(parsing: Array(response.body)).keys.count == 1)
    #expect(await harness.provider.counters.jwksFetches == 1)
  }

  @Test func anIssuerWithAPathServesItsEndpointsBelowIt() async throws {
    let harness = try Harness(issuer: URL(string: "https://op.xid.test/tenant/")!)
    #expect(harness.provider.issuer.absoluteString == "https://op.xid.test/tenant")
    #expect(
      harness.provider.url(for: .discovery).absoluteString
        == "https://op.xid.test/tenant/.well-known/openid-configuration")
    let document = try Harness.json(try await harness.get(.discovery))
    #expect(document["issuer"] == "https://op.xid.test/tenant")
    let tokens = try await harness.signIn()
    #expect(try await harness.verify(try #require(tokens.idToken)).issuer == "https://op.xid.test/tenant")
    let outside = try await harness.send(HTTPRequest(url: URL(string: "https://op.xid.test/token")!))
    #expect(outside.status == 404)
  }

  @Test func anInsecureIssuerIsRefused() {
    #expect(throws: XidError.self) { try TestProvider(issuer: URL(string: "http://op.xid.test")!) }
    #expect(throws: Never.self) { try TestProvider(issuer: URL(string: "http://127.0.0.1:8080")!) }
  }

  @Test func theInMemoryTransportReachesOnlyTheProvidersOrigin() async throws {
    let harness = try Harness()
    for url in [
      "https://elsewhere.test/.well-known/openid-configuration", "http://op.xid.test/jwks",
      "https://op.xid.test:8443/jwks",
    ] {
      await #expect(throws: XidError.self) { try await harness.send(HTTPRequest(url: URL(string: url)!)) }
    }
    #expect(try await harness.send(HTTPRequest(url: URL(string: "https://OP.xid.test:443/jwks")!)).status == 200)
  }

  @Test func unknownPathsAndWrongMethodsAreRefused() async throws {
    let harness = try Harness()
    #expect(try await harness.send(HTTPRequest(url: URL(string: "https://op.xid.test/nothing")!)).status == 404)
    let wrongMethod = try await harness.send(HTTPRequest(method: "GET", url: harness.provider.url(for: .token)))
    #expect(wrongMethod.status == 405)
    #expect(wrongMethod.headers["Allow"] == "POST")
  }
}
