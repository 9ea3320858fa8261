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

  @Test func withNoBiometryTheFallbackUsesThePasscodeAndTheCurrentSetFails() async throws {
    let user = FakePresenceAuthorizer()
    user.setBiometryEnrolled(false)
    try await user.checkCanAuthorize(requirement: .biometryWithPasscodeFallback)
    try await user.checkCanAuthorize(requirement: .deviceOwner)
    await expectXidError(.biometryNotEnrolled) { try await user.checkCanAuthorize(requirement: .biometryCurrentSet) }
    try await user.authorize(localizedReason: "fallback")
    #expect(user.verifications == [.passcode])

    let strict = FakePresenceAuthorizer(requirement: .biometryCurrentSet)
    strict.setBiometryEnrolled(false)
    await expectXidError(.biometryNotEnrolled) { try await strict.checkCanAuthorize() }
    await expectXidError(.biometryNotEnrolled) { try await strict.authorize(localizedReason: "strict") }
    #expect(strict.prompts.isEmpty, "no prompt for a requirement the device cannot meet")
    strict.setBiometryEnrolled(true)
    try await strict.authorize(localizedReason: "strict")
    #expect(strict.verifications == [.biometry])
  }

  @Test func withNoPasscodeEveryRequirementFails() async throws {
    let user = FakePresenceAuthorizer()
    user.setPasscodeSet(false)
    for requirement in PresenceRequirement.allCases {
      await expectXidError(.passcodeNotSet) { try await user.checkCanAuthorize(requirement: requirement) }
    }
    await expectXidError(.passcodeNotSet) { try await user.authorize(localizedReason: "x") }
    user.setPasscodeSet(true)
    try await user.authorize(localizedReason: "x")
  }

  @Test func everyEnrollmentChangeChangesTheDomainState() {
    let user = FakePresenceAuthorizer()
    let first = user.biometryDomainState()
    #expect(first != nil && user.biometryDomainState() == first)
    user.changeEnrolledBiometry()
    let second = user.biometryDomainState()
    #expect(second != nil && second != first)
    user.setBiometryEnrolled(false)
    #expect(user.biometryDomainState() == nil)
    user.setBiometryEnrolled(true)
    #expect(![first, second].contains(user.biometryDomainState()))
  }
}
