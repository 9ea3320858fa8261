import Foundation
import Testing
import XidCore
import XidTesting

/// A UserInfo response about another user than the ID token is refused.
@Suite(.timeLimit(.minutes(1)))
struct UserInfoConformanceTests {
  @Test("rp-userinfo-bad-sub-claim", arguments: Wire.allCases)
  func refusesUserInfoAboutAnotherSubject(over wire: Wire) async throws {
    try await withStage(wire) { stage in
      let signedIn = try await stage.signIn()
      try await stage.provider.misbehave(.otherSubjectInUserInfo, .once)

      let error = await expectRejection(.userInfoMismatch, on: stage) {
        try await stage.client.userInfo(
          accessToken: signedIn.tokens.accessToken, expectedSubject: signedIn.idToken.subject)
      }
      #expect(error?.reason.contains(TestProvider.Misbehavior.foreignSubject) == false)

      let honest = try await stage.client.userInfo(
        accessToken: signedIn.tokens.accessToken, expectedSubject: signedIn.idToken.subject)
      #expect(honest.subject == TestUser.alice.subject)
      #expect(await stage.counters.userInfoRequests == 2)
    }
  }
}
