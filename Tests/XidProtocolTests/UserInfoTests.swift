import Foundation
import Testing
import XidTestSupport

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

struct UserInfoTests {
  @Test func userInfoIsFetchedWithTheBearerToken() async throws {
    let provider = try FakeProvider()
    provider.on("/userinfo") { _ in .json(["sub": "alice", "email": "alice@example.com", "email_verified": true]) }
    let info = try await provider.client().userInfo(accessToken: "at-1", expectedSubject: "alice")
    #expect(info.subject == "alice")
    #expect(info.email == "alice@example.com")
    #expect(info.emailVerified == true)
    let request = try #require(provider.transport.requests(to: "/userinfo").first)
    #expect(request.method == "GET")
    #expect(request.headers["Authorization"] == "Bearer at-1")
    #expect(request.headers["Accept"] == "application/json")
  }

  @Test func userInfoAboutAnotherSubjectIsRefused() async throws {
    let provider = try FakeProvider()
    provider.on("/userinfo") { _ in .json(["sub": "mallory"]) }
    await expectXidError(.userInfoMismatch) {
      try await provider.client().userInfo(accessToken: "at-1", expectedSubject: "alice")
    }
  }

  @Test func userInfoWithoutSubjectIsRefused() async throws {
    let provider = try FakeProvider()
    provider.on("/userinfo") { _ in .json(["name": "Alice"]) }
    await expectXidError(.userInfoMismatch) {
      try await provider.client().userInfo(accessToken: "at-1", expectedSubject: "alice")
    }
  }

  @Test func signedUserInfoIsRefusedClearly() async throws {
    let provider = try FakeProvider()
    provider.on("/userinfo") { _ in
      HTTPResponse(status: 200, headers: ["Content-Type": "application/jwt"], body: Data("eyJ.eyJ.sig".utf8))
    }
    let error = await expectXidError(.unsupportedResponse) {
      try await provider.client().userInfo(accessToken: "at-1", expectedSubject: "alice")
    }
    #expect(error?.reason.contains("application/jwt") == true)
  }

  @Test func rejectedAccessTokenCarriesTheChallengeError() async throws {
    let provider = try FakeProvider()
    provider.on("/userinfo") { _ in
      HTTPResponse(
        status: 401,
        headers: [
          "WWW-Authenticate": #"Bearer realm="op", error="invalid_token", error_description="The access token expired""#
        ])
    }
    let error = await expectXidError(.userInfoFailed) {
      try await provider.client().userInfo(accessToken: "at-1", expectedSubject: "alice")
    }
    #expect(error?.httpStatus == 401)
    #expect(error?.oauthError == "invalid_token")
    #expect(error?.reason.contains("expired") == true)
  }

  @Test func providerWithoutUserInfoEndpointIsReported() async throws {
    let provider = try FakeProvider()
    provider.metadataChanges.update { $0["userinfo_endpoint"] = .null }
    await expectXidError(.unsupportedByProvider) {
      try await provider.client().userInfo(accessToken: "at-1", expectedSubject: "alice")
    }
  }
}
