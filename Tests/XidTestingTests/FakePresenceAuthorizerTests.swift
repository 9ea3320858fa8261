import Testing
import XidCore
import XidTestSupport
import XidTesting

struct FakePresenceAuthorizerTests {
  @Test func itApprovesUntilToldOtherwiseAndCountsWhatItWasAsked() async throws {
    let user = FakePresenceAuthorizer()
    try await user.checkCanAuthorize()
    try await user.authorize(localizedReason: "one")
    #expect(user.isAuthorized)
    await user.deauthorize()
    #expect(!user.isAuthorized)
    try await user.authorize(localizedReason: "two")
    #expect(user.prompts == ["one", "two"] && user.checks == 1 && user.deauthorizations == 1)
  }

  @Test func eachResponseFailsAsTheDeviceWould() async throws {
    let cases: [(FakePresenceAuthorizer.Response, XidError.Code, failsCheck: Bool)] = [
      (.deny, .authenticationFailed, false), (.cancel, .authenticationCancelled, false),
      (.lockOut, .biometryLockout, true), (.invalidate, .presenceKeyInvalidated, true),
      (.notInteractive, .userPresenceRequired, false),
    ]
    for (response, code, failsCheck) in cases {
      let user = FakePresenceAuthorizer(response)
      if failsCheck {
        await expectXidError(code) { try await user.checkCanAuthorize() }
      } else {
        try await user.checkCanAuthorize()
      }
      await expectXidError(code) { try await user.authorize(localizedReason: "Unlock") }
      #expect(!user.isAuthorized)
      #expect(user.prompts == ["Unlock"])
    }
  }

  @Test func commandsChangeTheNextAnswers() async throws {
    let user = FakePresenceAuthorizer()
    user.deny()
    #expect(user.response == .deny)
    user.lockOut()
    #expect(user.response == .lockOut)
    user.invalidate()
    #expect(user.response == .invalidate)
    user.cancel()
    #expect(user.response == .cancel)
    user.refuseInteraction()
    #expect(user.response == .notInteractive)
    user.approve()
    try await user.authorize(localizedReason: "again")
  }
}
