import Foundation
import Testing
import XidCore
import XidTesting

/// The test provider's rich authorization requests (RFC 9396) and resource indicators (RFC 8707),
/// as a relying party sees them over HTTP.
struct AuthorizationDetailsProviderTests {
  static let payment = #"[{"type":"payment_initiation","actions":["initiate"]}]"#

  static func harness() throws -> Harness {
    var configuration = TestProvider.Configuration()
    configuration.resources = ["https://api.example/"]
    return try Harness(configuration: configuration)
  }

  @Test func grantedDetailsComeBackWithEveryTokenAndTheResourceSeesTheirTypes() async throws {
    let harness = try Self.harness()
    let pkce = try Harness.PKCE()
    let callback = try await harness.authorize(
      harness.authorizationParameters(pkce: pkce, overrides: ["authorization_details": Self.payment]))
    let tokens = try Harness.Tokens(
      await harness.exchange(code: try #require(callback["code"]), verifier: pkce.verifier))
    #expect(tokens.json["authorization_details"]?.arrayValue?.first?["type"] == "payment_initiation")
    let seen = try Harness.json(try await harness.get(.resource, bearer: tokens.accessToken))
    #expect(seen["authorization_details_types"] == ["payment_initiation"])
    let refreshed = try Harness.Tokens(await harness.refresh(try #require(tokens.refreshToken)))
    #expect(refreshed.json["authorization_details"] == tokens.json["authorization_details"])
    let discovery = try Harness.json(try await harness.get(.discovery))
    #expect(discovery["authorization_details_types_supported"]?.arrayValue?.contains("payment_initiation") == true)
  }

  @Test(arguments: [#"[{"type":"urn:unknown"}]"#, #"[{"actions":["x"]}]"#, #"{"type":"payment_initiation"}"#])
  func detailsOfAnUnknownTypeOrShapeAreRefused(details: String) async throws {
    let harness = try Self.harness()
    let callback = try await harness.authorize(
      harness.authorizationParameters(pkce: try Harness.PKCE(), overrides: ["authorization_details": details]))
    #expect(callback["error"] == "invalid_authorization_details")
  }

  @Test func aRefreshForAResourceOfTheGrantGetsATokenForItAloneAndOthersAreRefused() async throws {
    let harness = try Self.harness()
    let pkce = try Harness.PKCE()
    var parameters = harness.authorizationParameters(pkce: pkce)
    parameters.append(("resource", "https://api.example/"))
    let callback = try await harness.authorize(parameters)
    let tokens = try Harness.Tokens(
      await harness.exchange(code: try #require(callback["code"]), verifier: pkce.verifier))

    let forResource = try Harness.Tokens(
      await harness.post(
        .token,
        [
          ("grant_type", "refresh_token"), ("refresh_token", try #require(tokens.refreshToken)),
          ("client_id", harness.client.id), ("resource", "https://api.example/"),
        ]))
    let seen = try Harness.json(try await harness.get(.resource, bearer: forResource.accessToken))
    #expect(seen["aud"] == ["https://api.example/"])
    let other = try await harness.post(
      .token,
      [
        ("grant_type", "refresh_token"), ("refresh_token", try #require(forResource.refreshToken)),
        ("client_id", harness.client.id), ("resource", "https://other.example/"),
      ])
    #expect(Harness.oauthError(other) == "invalid_target")
  }

  @Test func anUnknownResourceInTheAuthorizationRequestIsRefused() async throws {
    let harness = try Self.harness()
    var parameters = harness.authorizationParameters(pkce: try Harness.PKCE())
    parameters.append(("resource", "https://unknown.example/"))
    #expect(try await harness.authorize(parameters)["error"] == "invalid_target")
  }
}
