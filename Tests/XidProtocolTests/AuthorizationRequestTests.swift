import Foundation
import Testing
import XidTestSupport

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

struct AuthorizationRequestTests {
  @Test func pkceChallengeMatchesRFC7636AppendixB() {
    let verifierBytes: [UInt8] = [
      116, 24, 223, 180, 151, 153, 224, 37, 79, 250, 96, 125, 216, 173, 187, 186, 22, 212, 37, 77, 105, 214, 191, 240,
      91, 88, 5, 88, 83, 132, 141, 121,
    ]
    let pkce = PKCE(verifierBytes: verifierBytes)
    #expect(pkce.verifier == "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
    #expect(pkce.challenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    #expect(PKCE.challenge(for: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk") == pkce.challenge)
    #expect(pkce.method == "S256")
    #expect(!"\(pkce)".contains(pkce.verifier))
  }

  @Test func requestCarriesS256ChallengeOfThePendingVerifier() async throws {
    let provider = try FakeProvider()
    let request = try await provider.client().makeAuthorizationRequest()
    let query = request.url.query
    #expect(request.url.absoluteString.hasPrefix("https://op.example/authorize?"))
    #expect(query["response_type"] == "code")
    #expect(query["client_id"] == FakeProvider.clientId)
    #expect(query["redirect_uri"] == FakeProvider.redirectUri.absoluteString)
    #expect(query["code_challenge_method"] == "S256")
    #expect(query["code_challenge"] == PKCE.challenge(for: request.pending.codeVerifier))
    #expect(query["state"] == request.pending.state)
    #expect(query["nonce"] == request.pending.nonce)
    #expect(query["code_verifier"] == nil)
    #expect(request.pending.codeVerifier.count == 43)
    #expect(!request.isPushed)
  }

  @Test func stateNonceAndVerifierHave256BitsAndAreUnique() async throws {
    let provider = try FakeProvider()
    let client = try provider.client()
    var seen: Set<String> = []
    for _ in 0..<50 {
      let pending = try await client.makeAuthorizationRequest().pending
      for value in [pending.state, pending.nonce, pending.codeVerifier] {
        #expect(try Base64URL.decode(value).count == 32)
        #expect(seen.insert(value).inserted)
      }
    }
    #expect(seen.count == 150)
  }

  @Test func openIDScopeIsAlwaysRequestedFirstAndOnce() async throws {
    let provider = try FakeProvider()
    let client = try provider.client { $0.identity.scopes = ["email", "openid", "email", "profile"] }
    let request = try await client.makeAuthorizationRequest()
    #expect(request.url.query["scope"] == "openid email profile")
    #expect(request.pending.scopes == ["openid", "email", "profile"])
    let other = try await client.makeAuthorizationRequest(SignInOptions(scopes: []))
    #expect(other.url.query["scope"] == "openid")
  }

  @Test func optionalParametersAreSent() async throws {
    let provider = try FakeProvider()
    let options = SignInOptions(
      prompt: ["login", "consent"], loginHint: "alice@example.com", maxAge: .seconds(300), uiLocales: ["fr-CA", "en"],
      acrValues: ["urn:mace:incommon:iap:silver"], additionalParameters: ["audience": "https://api.example"])
    let request = try await provider.client().makeAuthorizationRequest(options)
    let query = request.url.query
    #expect(query["prompt"] == "login consent")
    #expect(query["login_hint"] == "alice@example.com")
    #expect(query["max_age"] == "300")
    #expect(query["ui_locales"] == "fr-CA en")
    #expect(query["acr_values"] == "urn:mace:incommon:iap:silver")
    #expect(query["audience"] == "https://api.example")
    #expect(request.pending.maxAge == .seconds(300))
  }

  @Test(arguments: [
    "state", "nonce", "code_challenge", "code_challenge_method", "redirect_uri", "client_id", "response_type", "scope",
    "request_uri", "response_mode", "max_age",
  ])
  func additionalParametersCannotOverrideSecurityParameters(name: String) async throws {
    let provider = try FakeProvider()
    let options = SignInOptions(additionalParameters: [name: "attacker"])
    await expectXidError(.invalidConfiguration) { try await provider.client().makeAuthorizationRequest(options) }
  }

  @Test func providerWithoutS256IsRefused() async throws {
    let provider = try FakeProvider()
    provider.metadataChanges.update { $0["code_challenge_methods_supported"] = ["plain"] }
    await expectXidError(.unsupportedByProvider) { try await provider.client().makeAuthorizationRequest() }
  }

  @Test func providerThatDoesNotListPKCEMethodsIsStillUsedWithS256() async throws {
    let provider = try FakeProvider()
    provider.metadataChanges.update { $0["code_challenge_methods_supported"] = .null }
    let request = try await provider.client().makeAuthorizationRequest()
    #expect(request.url.query["code_challenge_method"] == "S256")
  }

  @Test func pushedAuthorizationIsUsedWhenTheProviderRequiresIt() async throws {
    let provider = try FakeProvider()
    provider.metadataChanges.update { $0["require_pushed_authorization_requests"] = true }
    let request = try await provider.client().makeAuthorizationRequest(SignInOptions(maxAge: .seconds(60)))
    #expect(request.isPushed)
    let query = request.url.queryParameters
    #expect(query.map(\.0).sorted() == ["client_id", "request_uri"])
    #expect(request.url.query["request_uri"] == "urn:ietf:params:oauth:request_uri:abc")
    #expect(request.url.query["client_id"] == FakeProvider.clientId)
    let pushed = try #require(provider.transport.requests(to: "/par").first)
    #expect(pushed.method == "POST")
    #expect(pushed.headers["Content-Type"] == "application/x-www-form-urlencoded")
    #expect(pushed.headers["Accept"] == "application/json")
    let form = pushed.form
    #expect(form["client_id"] == FakeProvider.clientId)
    #expect(form["state"] == request.pending.state)
    #expect(form["nonce"] == request.pending.nonce)
    #expect(form["code_challenge"] == PKCE.challenge(for: request.pending.codeVerifier))
    #expect(form["max_age"] == "60")
    #expect(form["redirect_uri"] == FakeProvider.redirectUri.absoluteString)
  }

  @Test func signInThroughPushedAuthorizationCompletes() async throws {
    let provider = try FakeProvider()
    provider.metadataChanges.update { $0["require_pushed_authorization_requests"] = true }
    let client = try provider.client()
    let (redirect, pending) = try await provider.authorize(client)
    let result = try await client.handleRedirect(url: redirect, pending: [pending])
    #expect(result.idToken.claims.nonce == pending.nonce)
    #expect(provider.transport.requests(to: "/token").first?.form["code_verifier"] == pending.codeVerifier)
  }

  @Test func pushedAuthorizationIsUsedWhenPreferredAndOffered() async throws {
    let provider = try FakeProvider()
    let request = try await provider.client { $0.policy.prefersPushedAuthorization = true }.makeAuthorizationRequest()
    #expect(request.isPushed)
    let perRequest = try await provider.client().makeAuthorizationRequest(
      SignInOptions(usePushedAuthorization: true))
    #expect(perRequest.isPushed)
  }

  @Test func pushedAuthorizationIsNotUsedWhenNotOffered() async throws {
    let provider = try FakeProvider()
    provider.metadataChanges.update { $0["pushed_authorization_request_endpoint"] = .null }
    let request = try await provider.client { $0.policy.prefersPushedAuthorization = true }.makeAuthorizationRequest()
    #expect(!request.isPushed)
    #expect(request.url.query["state"] == request.pending.state)
  }

  @Test func requiredPushedAuthorizationWithoutEndpointIsRefused() async throws {
    let provider = try FakeProvider()
    provider.metadataChanges.update {
      $0["require_pushed_authorization_requests"] = true
      $0["pushed_authorization_request_endpoint"] = .null
    }
    await expectXidError(.unsupportedByProvider) { try await provider.client().makeAuthorizationRequest() }
  }

  @Test func pushedAuthorizationErrorIsTyped() async throws {
    let provider = try FakeProvider()
    provider.on("/par") { _ in
      .json(["error": "invalid_request", "error_description": "redirect_uri not registered"], status: 400)
    }
    let error = await expectXidError(.pushedAuthorizationFailed) {
      try await provider.client { $0.policy.prefersPushedAuthorization = true }.makeAuthorizationRequest()
    }
    #expect(error?.oauthError == "invalid_request")
    #expect(error?.httpStatus == 400)
  }

  @Test func pushedAuthorizationWithClientSecretBasicAuthenticatesInTheHeader() async throws {
    let provider = try FakeProvider()
    _ = try await provider.client {
      $0.policy.prefersPushedAuthorization = true
      $0.identity.clientAuthentication = .clientSecretBasic(secret: "s3cr:et")
    }.makeAuthorizationRequest()
    let pushed = try #require(provider.transport.requests(to: "/par").first)
    #expect(pushed.headers["Authorization"] == "Basic " + Data("client-1:s3cr%3Aet".utf8).base64EncodedString())
    #expect(pushed.form["client_id"] == nil)
    #expect(pushed.form["client_secret"] == nil)
  }

  @Test func perRequestRedirectURIIsUsedAndRemembered() async throws {
    let provider = try FakeProvider()
    let loopback = URL(string: "http://127.0.0.1:53124/callback")!
    let request = try await provider.client().makeAuthorizationRequest(SignInOptions(redirectUri: loopback))
    #expect(request.url.query["redirect_uri"] == loopback.absoluteString)
    #expect(request.pending.redirectUri == loopback)
  }

  @Test func pendingAuthorizationDescriptionShowsNoSecret() async throws {
    let provider = try FakeProvider()
    let request = try await provider.client().makeAuthorizationRequest()
    let pending = request.pending
    var dumped = ""
    dump(pending, to: &dumped)
    var dumpedRequest = ""
    dump(request, to: &dumpedRequest)
    for text in ["\(pending)", String(reflecting: pending), dumped, "\(request)", dumpedRequest] {
      #expect(!text.contains(pending.state))
      #expect(!text.contains(pending.nonce))
      #expect(!text.contains(pending.codeVerifier))
      #expect(text.contains("op.example"))
    }
  }

  @Test func pendingAuthorizationSurvivesCodableRoundTrip() async throws {
    let provider = try FakeProvider()
    let pending = try await provider.client().makeAuthorizationRequest(SignInOptions(maxAge: .seconds(5))).pending
    let data = try JSONEncoder().encode(pending)
    let decoded = try JSONDecoder().decode(PendingAuthorization.self, from: data)
    #expect(decoded == pending)
    #expect(decoded.maxAge == .seconds(5))
    #expect(decoded.issuer == FakeProvider.issuer)
    #expect(decoded.clientId == FakeProvider.clientId)
    #expect(decoded.createdAt == provider.clock.now)
  }

  @Test func clientSecretDoesNotAppearInConfigurationDescription() {
    let configuration = XidConfiguration(
      identity: ClientIdentity(
        issuer: URL(string: "https://op.example")!, clientId: "c", redirectUri: FakeProvider.redirectUri,
        clientAuthentication: .clientSecretPost(secret: "very-secret-value")))
    var dumped = ""
    dump(configuration, to: &dumped)
    #expect(!"\(configuration)".contains("very-secret-value"))
    #expect(!dumped.contains("very-secret-value"))
    #expect("\(configuration.identity.clientAuthentication)" == "client_secret_post")
  }

  /// A step-up (RFC 9470) asks for exactly what the resource server wanted: its `acr_values`, also as
  /// an essential `acr` claim (OpenID Connect Core §5.5.1.1), its `max_age`, and `prompt=login` for an
  /// authentication now; the pending request remembers what the ID token must show.
  @Test func aStepUpAsksForItsACRValuesAsAnEssentialClaimAndItsMaxAge() async throws {
    let provider = try FakeProvider()
    let client = try provider.client()
    var options = SignInOptions(stepUp: StepUpRequirement(acrValues: ["gold", "silver"], maxAge: .seconds(300)))
    options.acrValues = ["ignored"]
    options.maxAge = .seconds(9)
    options.stepUpSubject = "alice"
    let request = try await client.makeAuthorizationRequest(options)
    let query = request.url.query
    #expect(query["acr_values"] == "gold silver")
    #expect(query["max_age"] == "300")
    #expect(query["prompt"] == nil)
    let claims = try JSONValue(parsing: try #require(query["claims"]))
    #expect(
      claims == .object(["id_token": .object(["acr": .object(["essential": true, "values": ["gold", "silver"]])])]))
    #expect(request.pending.requiredACRValues == ["gold", "silver"])
    #expect(request.pending.requiredSubject == "alice")
    #expect(request.pending.maxAge == .seconds(300))
  }

  @Test(arguments: [StepUpRequirement(maxAge: .zero), StepUpRequirement()])
  func aStepUpThatAsksForAnAuthenticationNowSendsPromptLoginAndMaxAgeZero(stepUp: StepUpRequirement) async throws {
    let provider = try FakeProvider()
    let request = try await provider.client().makeAuthorizationRequest(SignInOptions(stepUp: stepUp))
    #expect(request.url.query["prompt"] == "login")
    #expect(request.url.query["max_age"] == "0")
    #expect(request.url.query["claims"] == nil)
    #expect(request.pending.requiredACRValues == nil)
  }

  @Test func anOrdinarySignInRequiresNoACRAndNoSubject() async throws {
    let provider = try FakeProvider()
    let request = try await provider.client().makeAuthorizationRequest(SignInOptions(acrValues: ["gold"]))
    #expect(request.url.query["acr_values"] == "gold")
    #expect(request.url.query["claims"] == nil)
    #expect(request.pending.requiredACRValues == nil && request.pending.requiredSubject == nil)
    #expect(!request.pending.isStepUp)
  }

  @Test func aStepUpOfAFamilysAppDoesNotAskForTheFamilysSessionAgain() async throws {
    let provider = try FakeProvider()
    let client = try provider.client { $0.identity.family = AppFamily(name: "com.example.apps") }
    #expect(try await client.makeAuthorizationRequest().url.query["scope"] == "openid profile device_sso")
    let stepUp = try await client.makeAuthorizationRequest(SignInOptions(stepUp: StepUpRequirement(maxAge: .zero)))
    #expect(stepUp.url.query["scope"] == "openid profile")
  }

  @Test func aStepUpRefusesAClaimsParameterOfItsOwn() async throws {
    let provider = try FakeProvider()
    var options = SignInOptions(stepUp: StepUpRequirement(acrValues: ["gold"]))
    options.additionalParameters = ["claims": #"{"id_token":{"acr":{"value":"bronze"}}}"#]
    await expectXidError(.invalidConfiguration) { try await provider.client().makeAuthorizationRequest(options) }
  }
}
