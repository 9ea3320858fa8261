import Foundation
import Testing
import XidTestSupport

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

struct RedirectTests {
  static func pending(state: String = "state-1", redirectUri: URL = FakeProvider.redirectUri) -> PendingAuthorization {
    PendingAuthorization(
      state: state, nonce: "nonce-1", codeVerifier: "verifier-1", redirectUri: redirectUri, maxAge: nil,
      issuer: FakeProvider.issuer, clientId: FakeProvider.clientId, scopes: ["openid"],
      createdAt: Date(timeIntervalSince1970: 0))
  }

  static func callback(_ parameters: [(String, String)], base: String = "com.example.app:/callback") -> URL {
    URL(string: base)!.appendingQuery(parameters)
  }

  @Test func redirectWithMatchingStateYieldsCodeAndPending() throws {
    let pendings = [Self.pending(state: "a"), Self.pending(state: "b"), Self.pending(state: "c")]
    let response = try AuthorizationResponse(
      callbackURL: Self.callback([("code", "the-code"), ("state", "b")]), pending: pendings, requireIssuer: false)
    #expect(response.code == "the-code")
    #expect(response.pending.state == "b")
    #expect(!"\(response)".contains("the-code"))
  }

  @Test func matchingFindsThePendingByState() {
    let pendings = [Self.pending(state: "a"), Self.pending(state: "b")]
    #expect(PendingAuthorization.matching(state: "b", in: pendings)?.state == "b")
    #expect(PendingAuthorization.matching(state: "x", in: pendings) == nil)
    #expect(PendingAuthorization.matching(state: "", in: pendings) == nil)
  }

  @Test func matchingFindsThePendingOfACallbackURL() {
    let pendings = [Self.pending(state: "a"), Self.pending(state: "b")]
    #expect(
      PendingAuthorization.matching(callbackURL: Self.callback([("error", "x"), ("state", "b")]), in: pendings)?.state
        == "b")
    #expect(PendingAuthorization.matching(callbackURL: Self.callback([("code", "x")]), in: pendings) == nil)
  }

  @Test func redirectWithoutStateIsRefused() {
    expectXidError(.stateMismatch) {
      try AuthorizationResponse(
        callbackURL: Self.callback([("code", "c")]), pending: [Self.pending()], requireIssuer: false)
    }
  }

  @Test func redirectWithUnknownStateIsRefused() {
    expectXidError(.stateMismatch) {
      try AuthorizationResponse(
        callbackURL: Self.callback([("code", "c"), ("state", "state-2")]), pending: [Self.pending()],
        requireIssuer: false)
    }
  }

  @Test func redirectWithNoPendingRequestIsRefused() {
    expectXidError(.stateMismatch) {
      try AuthorizationResponse(
        callbackURL: Self.callback([("code", "c"), ("state", "state-1")]), pending: [], requireIssuer: false)
    }
  }

  @Test(arguments: [
    "com.example.other:/callback", "com.example.app:/callback2", "com.example.app:/", "https://app.example/callback",
  ])
  func redirectToAnotherURIIsRefused(base: String) {
    expectXidError(.redirectMismatch) {
      try AuthorizationResponse(
        callbackURL: Self.callback([("code", "c"), ("state", "state-1")], base: base), pending: [Self.pending()],
        requireIssuer: false)
    }
  }

  @Test func loopbackRedirectMustMatchPortAndPath() throws {
    let pending = Self.pending(redirectUri: URL(string: "http://127.0.0.1:50000/cb")!)
    let ok = Self.callback([("code", "c"), ("state", "state-1")], base: "http://127.0.0.1:50000/cb")
    #expect(throws: Never.self) { try AuthorizationResponse(callbackURL: ok, pending: [pending], requireIssuer: false) }
    for base in [
      "http://127.0.0.1:50001/cb", "http://127.0.0.1/cb", "http://localhost:50000/cb", "https://127.0.0.1:50000/cb",
    ] {
      expectXidError(.redirectMismatch) {
        try AuthorizationResponse(
          callbackURL: Self.callback([("code", "c"), ("state", "state-1")], base: base), pending: [pending],
          requireIssuer: false)
      }
    }
  }

  @Test func redirectSchemeAndHostCompareCaseInsensitivelyAndDefaultPortsMatch() throws {
    let pending = Self.pending(redirectUri: URL(string: "https://app.example/cb")!)
    let url = Self.callback([("code", "c"), ("state", "state-1")], base: "HTTPS://App.Example:443/cb")
    #expect(throws: Never.self) {
      try AuthorizationResponse(callbackURL: url, pending: [pending], requireIssuer: false)
    }
  }

  @Test func issParameterThatDiffersFromTheIssuerIsRefused() {
    let error = expectXidError(.issuerMismatch) {
      try AuthorizationResponse(
        callbackURL: Self.callback([("code", "c"), ("state", "state-1"), ("iss", "https://evil.example")]),
        pending: [Self.pending()], requireIssuer: false)
    }
    #expect(error?.reason.contains("evil.example") == true)
  }

  @Test func issParameterMissingWhenAdvertisedIsRefused() {
    expectXidError(.issuerMismatch) {
      try AuthorizationResponse(
        callbackURL: Self.callback([("code", "c"), ("state", "state-1")]), pending: [Self.pending()],
        requireIssuer: true)
    }
  }

  @Test func issParameterIsOptionalWhenNotAdvertisedAndCheckedWhenPresent() throws {
    let without = try AuthorizationResponse(
      callbackURL: Self.callback([("code", "c"), ("state", "state-1")]), pending: [Self.pending()],
      requireIssuer: false)
    #expect(without.issuer == nil)
    let with = try AuthorizationResponse(
      callbackURL: Self.callback([("code", "c"), ("state", "state-1"), ("iss", FakeProvider.issuer)]),
      pending: [Self.pending()], requireIssuer: true)
    #expect(with.issuer == FakeProvider.issuer)
  }

  @Test func issParameterIsCheckedOnErrorResponsesToo() {
    expectXidError(.issuerMismatch) {
      try AuthorizationResponse(
        callbackURL: Self.callback([("error", "access_denied"), ("state", "state-1"), ("iss", "https://evil.example")]),
        pending: [Self.pending()], requireIssuer: false)
    }
  }

  @Test func errorRedirectBecomesATypedError() {
    let error = expectXidError(.authorizationFailed) {
      try AuthorizationResponse(
        callbackURL: Self.callback([
          ("error", "access_denied"), ("error_description", "The user said no"), ("state", "state-1"),
        ]), pending: [Self.pending()], requireIssuer: false)
    }
    #expect(error?.oauthError == "access_denied")
    #expect(error?.reason.contains("The user said no") == true)
  }

  @Test func errorDescriptionIsSanitizedAndLimited() {
    let hostile = "line1\nline2\u{202E}reversed\u{0007}" + String(repeating: "x", count: 5000) + " verifier-1"
    let error = expectXidError(.authorizationFailed) {
      try AuthorizationResponse(
        callbackURL: Self.callback([
          ("error", "server_error\r\nX: y"), ("error_description", hostile), ("state", "state-1"),
        ]),
        pending: [Self.pending()], requireIssuer: false)
    }
    let reason = error?.reason ?? ""
    #expect(!reason.contains("\n"))
    #expect(!reason.contains("\u{202E}"))
    #expect(!reason.contains("\u{0007}"))
    #expect(reason.count < 400)
    #expect(error?.oauthError?.contains("\r") == false)
  }

  @Test func errorDescriptionNeverEchoesPendingSecrets() {
    let error = expectXidError(.authorizationFailed) {
      try AuthorizationResponse(
        callbackURL: Self.callback([
          ("error", "invalid_request"), ("error_description", "bad nonce nonce-1 for state state-1"),
          ("state", "state-1"),
        ]), pending: [Self.pending()], requireIssuer: false)
    }
    #expect(error?.reason.contains("nonce-1") == false)
    #expect(error?.reason.contains("state-1") == false)
  }

  @Test func redirectWithoutCodeIsRefused() {
    expectXidError(.invalidAuthorizationResponse) {
      try AuthorizationResponse(
        callbackURL: Self.callback([("state", "state-1")]), pending: [Self.pending()], requireIssuer: false)
    }
  }

  @Test func repeatedParametersAreRefused() {
    expectXidError(.invalidAuthorizationResponse) {
      try AuthorizationResponse(
        callbackURL: Self.callback([("code", "a"), ("code", "b"), ("state", "state-1")]), pending: [Self.pending()],
        requireIssuer: false)
    }
  }

  @Test func clientIgnoresPendingRequestsOfAnotherIssuer() async throws {
    let provider = try FakeProvider()
    let client = try provider.client()
    let foreign = PendingAuthorization(
      state: "state-1", nonce: "n", codeVerifier: "v", redirectUri: FakeProvider.redirectUri, maxAge: nil,
      issuer: "https://other.example", clientId: FakeProvider.clientId, scopes: ["openid"], createdAt: Date())
    await expectXidError(.stateMismatch) {
      try await client.handleRedirect(url: Self.callback([("code", "c"), ("state", "state-1")]), pending: [foreign])
    }
  }

  @Test func clientRequiresIssWhenTheProviderAdvertisesIt() async throws {
    let provider = try FakeProvider()
    provider.metadataChanges.update { $0["authorization_response_iss_parameter_supported"] = true }
    let client = try provider.client()
    let (redirect, pending) = try await provider.authorize(client)
    await expectXidError(.issuerMismatch) { try await client.handleRedirect(url: redirect, pending: [pending]) }
    #expect(provider.transport.requests(to: "/token").isEmpty)
    let (good, pending2) = try await provider.authorize(client, extra: [("iss", FakeProvider.issuer)])
    let result = try await client.handleRedirect(url: good, pending: [pending2])
    #expect(result.idToken.subject == "alice")
  }
}
