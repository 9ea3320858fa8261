import Foundation
import Testing
import Xid
import XidTestSupport
import XidTesting

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

/// What the device can do decides what the refresh token's protection can do: no biometry enrolled,
/// no passcode, and an enrollment change after sign-in.
@Suite(.noSecretLeaks)
struct PresenceEnrollmentTests {
  static func protection(_ requirement: PresenceRequirement) -> PresenceOptions {
    PresenceOptions(refreshTokenProtection: requirement)
  }

  // MARK: - Before sign-in

  @Test func withNoBiometryEnrolledTheFallbackRequirementUsesThePasscode() async throws {
    let user = FakePresenceAuthorizer()
    user.setBiometryEnrolled(false)
    let harness = try PresenceHarness(user: user, options: Self.protection(.biometryWithPasscodeFallback))
    try await harness.xid.signIn()
    harness.expireAccessToken()
    _ = try await harness.xid.getAccessToken()
    #expect(user.verifications == [.passcode])
    #expect(await harness.provider.counters.refreshes == 1)
  }

  @Test func withNoBiometryEnrolledTheCurrentSetFailsTypedBeforeAnyRequest() async throws {
    let user = FakePresenceAuthorizer()
    user.setBiometryEnrolled(false)
    let harness = try PresenceHarness(user: user, options: Self.protection(.biometryCurrentSet))
    let error = await expectXidError(.biometryNotEnrolled) { try await harness.xid.signIn() }
    #expect(error?.reason.contains("refreshTokenProtection") == true)
    await expectXidError(.biometryNotEnrolled) { _ = try await harness.xid.authorizationURL() }
    await expectXidError(.biometryNotEnrolled) {
      _ = try await harness.xid.signInWithDeviceCode(scopes: nil) { _ in }
    }
    let counters = await harness.provider.counters
    #expect(counters.discoveryFetches == 0 && counters.authorizationRequests == 0 && counters.tokenRequests == 0)
    #expect(counters.deviceAuthorizations == 0)
    #expect(harness.keyStore.counts.created == 0)
    #expect(try harness.storedRecord() == nil)
    #expect(user.prompts.isEmpty)
  }

  @Test func withNoPasscodeEveryRequirementFailsPasscodeNotSet() async throws {
    for requirement in PresenceRequirement.allCases {
      let user = FakePresenceAuthorizer()
      user.setPasscodeSet(false)
      let harness = try PresenceHarness(user: user, options: Self.protection(requirement))
      await expectXidError(.passcodeNotSet) { try await harness.xid.signIn() }
      #expect(await harness.provider.counters.tokenRequests == 0, "\(requirement)")
    }
  }

  @Test func sealingThatFailsAfterTheExchangeRevokesTheTokensAndSaysWhy() async throws {
    let user = FakePresenceAuthorizer()
    let harness = try PresenceHarness(user: user, options: Self.protection(.biometryCurrentSet))
    let url = try await harness.xid.authorizationURL()
    // The user removes their fingers while the browser is open: the key cannot be made.
    user.setBiometryEnrolled(false)
    harness.keyStore.createFailure.set {
      PresenceFailure.keychain(status: -50, operation: "create the presence key").error
    }
    let callback = try await harness.provider.browser.redirect(from: url)
    let error = await expectXidError(.biometryNotEnrolled) { try await harness.xid.handleRedirect(url: callback) }
    #expect(error?.reason.contains("revoked") == true)
    #expect(await harness.provider.counters.codeExchanges == 1)
    #expect(await harness.provider.counters.revocations == 2, "the refresh token, then the access token")
    #expect(try harness.storedRecord() == nil, "nothing half-stored")
  }

  @Test func sealingThatFailsForAnotherReasonStillRevokesAndKeepsItsError() async throws {
    let harness = try PresenceHarness(options: Self.protection(.biometryCurrentSet))
    harness.keyStore.createFailure.set {
      PresenceFailure.keychain(status: -34018, operation: "create the presence key").error
    }
    await expectXidError(.missingEntitlement) { try await harness.xid.signIn() }
    #expect(await harness.provider.counters.revocations == 2)
    #expect(try harness.storedRecord() == nil)
  }

  // MARK: - The stricter mode: the DPoP key needs the user too

  static func strict(storage: InMemoryTokenStorage = InMemoryTokenStorage()) throws -> PresenceHarness {
    try PresenceHarness(
      storage: storage, usesDPoP: true,
      options: PresenceOptions(refreshTokenProtection: .biometryCurrentSet, protectsDPoPKey: true))
  }

  @Test func inTheStricterModeTheCheckCoversTheDPoPKeyBeforeAnyKeyOrRequest() async throws {
    let harness = try Self.strict()
    harness.user.setBiometryEnrolled(false)
    let error = await expectXidError(.biometryNotEnrolled) { try await harness.xid.signIn() }
    #expect(error?.reason.contains("protectsDPoPKey") == true)
    await expectXidError(.biometryNotEnrolled) {
      _ = try await harness.xid.signInWithDeviceCode(scopes: nil) { _ in }
    }
    let counters = await harness.provider.counters
    #expect(counters.authorizationRequests == 0 && counters.tokenRequests == 0 && counters.deviceAuthorizations == 0)
    #expect(harness.keyStore.counts.signingKeys == 0 && harness.keyStore.counts.created == 0)
    #expect(harness.user.prompts.isEmpty)
  }

  @Test func inTheStricterModeSealingThatFailsRevokesNothingAsksNothingMoreAndDeletesTheKey() async throws {
    let storage = InMemoryTokenStorage()
    let harness = try Self.strict(storage: storage)
    let provider = harness.provider
    harness.keyStore.createFailure.set {
      PresenceFailure.keychain(status: -34018, operation: "create the presence key").error
    }
    let error = await expectXidError(.missingEntitlement) {
      _ = try await harness.xid.signInWithDeviceCode(scopes: nil) { authorization in
        await provider.completeDeviceAuthorization(userCode: authorization.userCode)
      }
    }
    // Not revoked, and it says so: the tokens are bound to the key, which is deleted.
    #expect(error?.reason.contains("DPoP key") == true && error?.reason.contains("were revoked") == false)
    #expect(error?.reason.contains("were not revoked") == true, "\(error?.reason ?? "")")
    #expect(harness.user.prompts.count == 1, "the token request's proof only")
    #expect(await harness.provider.counters.revocations == 0, "revoking needs a proof, which might ask")
    #expect(try harness.storedRecord() == nil)
    #expect(await provider.counters.tokenRequests >= 1, "the tokens were issued")
    let dpopKeys = try storage.keys(withPrefix: DPoPKeyStore.storageKey(thumbprint: ""))
    #expect(dpopKeys.isEmpty, "the tokens are bound to a key that is gone")
  }

  // MARK: - After sign-in: the enrolled biometry changes

  @Test func aChangedEnrollmentIsAnInvalidatedKeyNotAnUnrecognisedUser() async throws {
    let harness = try PresenceHarness(options: Self.protection(.biometryCurrentSet))
    try await harness.xid.signIn()
    let record = try harness.storedRecord()
    #expect(record?["sealed_biometry"]?.stringValue != nil)
    harness.user.changeEnrolledBiometry()
    harness.expireAccessToken()
    let error = await expectXidError(.presenceKeyInvalidated) { try await harness.xid.getAccessToken() }
    #expect(error?.reason.contains("enrolled") == true && error?.reason.contains("sign") == true)
    #expect(try harness.storedRecord() == record, "the record is kept until sign-out")
    #expect(await harness.provider.counters.refreshes == 0)
  }

  @Test func removingEveryEnrollmentInvalidatesACurrentSetKey() async throws {
    let harness = try PresenceHarness(options: Self.protection(.biometryCurrentSet))
    try await harness.xid.signIn()
    harness.user.setBiometryEnrolled(false)
    harness.expireAccessToken()
    await expectXidError(.presenceKeyInvalidated) { try await harness.xid.getAccessToken() }
  }

  @Test func anUnrecognisedUserWithTheSameEnrollmentIsStillAFailedPrompt() async throws {
    let harness = try PresenceHarness(options: Self.protection(.biometryCurrentSet))
    try await harness.xid.signIn()
    harness.expireAccessToken()
    harness.keyStore.decryptFailure.set(PresenceFailure.keychain(status: -25293, operation: "open").error)
    await expectXidError(.authenticationFailed) { try await harness.xid.getAccessToken() }
    harness.keyStore.decryptFailure.set(PresenceFailure.tokenKit(code: -5, operation: "open").error)
    await expectXidError(.authenticationFailed) { try await harness.xid.getAccessToken() }
    harness.keyStore.decryptFailure.set(nil)
    _ = try await harness.xid.getAccessToken()
  }

  @Test func theBiometryStateStaysWithTheKeyAcrossRefreshes() async throws {
    let harness = try PresenceHarness(options: Self.protection(.biometryCurrentSet))
    try await harness.xid.signIn()
    let state = try #require(try harness.storedRecord()?["sealed_biometry"]?.stringValue)
    for _ in 0..<2 { _ = try await harness.xid.getAccessToken(forceRefresh: true) }
    #expect(try harness.storedRecord()?["sealed_biometry"]?.stringValue == state)
    #expect(harness.keyStore.counts.created == 1)
    #expect(try harness.storedRecord()?["format"] == .int(2))
  }

  @Test func theFallbackRequirementSurvivesAnEnrollmentChange() async throws {
    let harness = try PresenceHarness(options: Self.protection(.biometryWithPasscodeFallback))
    try await harness.xid.signIn()
    #expect(try harness.storedRecord()?["sealed_biometry"] == nil, "only a current-set key is bound to it")
    harness.user.changeEnrolledBiometry()
    _ = try await harness.xid.getAccessToken(forceRefresh: true)
    #expect(await harness.provider.counters.refreshes == 1)
  }

  @Test func aRecordSealedWithoutTheBiometryStateStillOpens() async throws {
    let harness = try PresenceHarness(options: Self.protection(.biometryCurrentSet))
    try await harness.xid.signIn()
    var record = try #require(try harness.storedRecord())
    record["sealed_biometry"] = nil
    try harness.storage.save(key: harness.recordKey, value: JSONValue.object(record).serialized())
    let other = try harness.anotherProcess(options: Self.protection(.biometryCurrentSet).with(harness))
    _ = try await other.getAccessToken(forceRefresh: true)
    #expect(await harness.provider.counters.refreshes == 1)
  }
}
