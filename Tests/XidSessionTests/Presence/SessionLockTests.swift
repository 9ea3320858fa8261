import Foundation
import Testing
import Xid
import XidTestSupport
import XidTesting

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

@Suite(.noSecretLeaks)
struct SessionLockTests {
  static let lock = PresenceOptions(sessionLock: .biometryWithPasscodeFallback)

  @Test func aClosedLockHandsOutNoTokenClaimOrRequest() async throws {
    let harness = try PresenceHarness(options: Self.lock)
    let signedIn = try await harness.xid.signIn()
    await harness.xid.lock()

    await expectXidError(.sessionLocked) { try await harness.xid.getAccessToken() }
    await expectXidError(.sessionLocked) { try await harness.xid.getAccessToken(forceRefresh: true) }
    await expectXidError(.sessionLocked) {
      try await harness.xid.send(HTTPRequest(url: harness.provider.url(for: .resource)))
    }
    await expectXidError(.sessionLocked) { try await harness.xid.userInfo() }
    let session = try #require(try await harness.xid.getSession())
    #expect(session.isLocked)
    #expect(session.subject.isEmpty && session.claims.raw.isEmpty && session.scopes.isEmpty)
    #expect(session.accessTokenExpiresAt == nil)
    #expect(session.issuer == signedIn.issuer && session.account == signedIn.account)
    #expect(!"\(session)".contains(signedIn.subject))
    #expect(await harness.provider.counters.refreshes == 0)
    #expect(await harness.provider.counters.resourceRequests == 0)
  }

  @Test func aNewProcessStartsLockedAndUnlocksWithOnePrompt() async throws {
    let harness = try PresenceHarness(options: Self.lock)
    try await harness.xid.signIn()
    let other = try harness.anotherProcess(
      options: PresenceOptions(sessionLock: .deviceOwner, authorizer: harness.user))
    #expect(other.lockState == .locked)
    await expectXidError(.sessionLocked) { try await other.getAccessToken() }

    try await other.unlock(localizedReason: "Unlock your account")
    #expect(other.lockState == .unlocked)
    #expect(harness.user.prompts == ["Unlock your account"])
    #expect(harness.user.checks == 1)
    _ = try await other.getAccessToken()
    #expect(try await other.getSession()?.isLocked == false)
  }

  @Test func signingInOpensTheLockWithoutAPrompt() async throws {
    let harness = try PresenceHarness(options: Self.lock)
    #expect(harness.xid.lockState == .locked)
    let session = try await harness.xid.signIn()
    #expect(harness.xid.lockState == .unlocked)
    _ = try await harness.xid.getAccessToken()
    #expect(try await harness.xid.getSession() == session)
    #expect(harness.user.prompts.isEmpty)
  }

  @Test func withNobodySignedInTheLockSaysToSignIn() async throws {
    let harness = try PresenceHarness(options: Self.lock)
    await expectXidError(.signInRequired) { try await harness.xid.getAccessToken() }
    #expect(try await harness.xid.getSession() == nil)
  }

  @Test func unlockChecksTheDeviceFirstAndSaysWhyItCannot() async throws {
    let harness = try PresenceHarness(options: Self.lock)
    try await harness.xid.signIn()
    await harness.xid.lock()

    harness.user.lockOut()
    let error = await expectXidError(.biometryLockout) { try await harness.xid.unlock(localizedReason: "Unlock") }
    #expect(error?.reason.contains("passcode") == true)
    #expect(harness.user.checks == 1)
    #expect(harness.user.prompts.isEmpty, "a device that cannot authorize shows no prompt")
    #expect(harness.xid.lockState == .locked)
  }

  @Test func aFailedUnlockKeepsTheLockClosedAndTheUserSignedIn() async throws {
    let harness = try PresenceHarness(options: Self.lock)
    try await harness.xid.signIn()
    await harness.xid.lock()
    let record = try harness.storedRecord()

    for (response, code): (FakePresenceAuthorizer.Response, XidError.Code) in [
      (.deny, .authenticationFailed), (.cancel, .authenticationCancelled), (.lockOut, .biometryLockout),
      (.notInteractive, .userPresenceRequired), (.invalidate, .presenceKeyInvalidated),
    ] {
      harness.user.respond(response)
      await expectXidError(code) { try await harness.xid.unlock(localizedReason: "Unlock") }
      #expect(harness.xid.lockState == .locked)
      #expect(try harness.storedRecord() == record, "a failed unlock never signs the user out")
      #expect(try await harness.xid.getSession()?.isLocked == true)
    }
    harness.user.approve()
    try await harness.xid.unlock(localizedReason: "Unlock")
    _ = try await harness.xid.getAccessToken()
  }

  @Test func concurrentUnlocksShareOnePrompt() async throws {
    let user = GatedAuthorizer()
    let harness = try PresenceHarness(options: PresenceOptions(sessionLock: .deviceOwner, authorizer: user))
    try await harness.xid.signIn()
    await harness.xid.lock()
    try await withThrowingTaskGroup(of: Void.self) { group in
      for _ in 0..<20 { group.addTask { try await harness.xid.unlock(localizedReason: "Unlock") } }
      await user.waitForPrompt()
      #expect(harness.xid.lockState == .unlocking)
      user.release()
      try await group.waitForAll()
    }
    #expect(user.prompts == 1)
    #expect(harness.xid.lockState == .unlocked)
  }

  @Test func lockDeauthorizesAndTheNextUnlockAsksAgain() async throws {
    let harness = try PresenceHarness(options: Self.lock)
    try await harness.xid.signIn()
    await harness.xid.lock()
    #expect(harness.user.deauthorizations == 1)
    try await harness.xid.unlock(localizedReason: "first")
    try await harness.xid.unlock(localizedReason: "not asked: already open")
    await harness.xid.lock()
    #expect(harness.user.deauthorizations == 2)
    #expect(!harness.user.isAuthorized)
    try await harness.xid.unlock(localizedReason: "second")
    #expect(harness.user.prompts == ["first", "second"])
  }

  @Test func lockingWhileTheUserIsAskedKeepsTheLockClosed() async throws {
    let user = GatedAuthorizer()
    let harness = try PresenceHarness(options: PresenceOptions(sessionLock: .deviceOwner, authorizer: user))
    try await harness.xid.signIn()
    await harness.xid.lock()
    let unlocking = Task { try await harness.xid.unlock(localizedReason: "Unlock") }
    await user.waitForPrompt()
    await harness.xid.lock()
    user.release()
    await expectXidError(.cancelled) { try await unlocking.value }
    #expect(harness.xid.lockState == .locked)
  }

  @Test func signOutLocks() async throws {
    let harness = try PresenceHarness(options: Self.lock)
    try await harness.xid.signIn()
    try await harness.xid.signOut()
    #expect(harness.xid.lockState == .locked)
    #expect(harness.user.deauthorizations == 1)
    #expect(try harness.storedRecord() == nil)
  }

  @Test func signOutWorksWhileLocked() async throws {
    let harness = try PresenceHarness(options: Self.lock)
    try await harness.xid.signIn()
    await harness.xid.lock()
    try await harness.xid.signOut()
    #expect(try harness.storedRecord() == nil)
    #expect(await harness.provider.counters.revocations == 1)
  }

  // MARK: - Relock in the background

  @Test func theLockClosesAfterTheConfiguredTimeInTheBackground() async throws {
    let harness = try PresenceHarness(
      options: PresenceOptions(sessionLock: .deviceOwner, relockAfterBackground: .seconds(60)))
    try await harness.xid.signIn()
    harness.xid.setScenePhase(.inactive)
    harness.xid.setScenePhase(.background)
    harness.provider.clock.advance(by: .seconds(59))
    #expect(harness.xid.lockState == .unlocked)
    _ = try await harness.xid.getAccessToken()

    harness.provider.clock.advance(by: .seconds(1))
    await expectXidError(.sessionLocked) { try await harness.xid.getAccessToken() }
    #expect(harness.xid.lockState == .locked)
    harness.xid.setScenePhase(.active)
    #expect(harness.xid.lockState == .locked, "coming back does not open it")
    await expectEventually { harness.user.deauthorizations == 1 }
  }

  @Test func comingBackInTimeKeepsTheLockOpen() async throws {
    let harness = try PresenceHarness(
      options: PresenceOptions(sessionLock: .deviceOwner, relockAfterBackground: .seconds(60)))
    try await harness.xid.signIn()
    harness.xid.setScenePhase(.background)
    harness.provider.clock.advance(by: .seconds(30))
    harness.xid.setScenePhase(.active)
    harness.provider.clock.advance(by: .seconds(120))
    #expect(harness.xid.lockState == .unlocked)
    harness.xid.setScenePhase(.background)
    harness.provider.clock.advance(by: .seconds(60))
    harness.xid.setScenePhase(.inactive)
    #expect(harness.xid.lockState == .locked, "the time counts from the last time it left")
  }

  @Test func settingTheDeviceClockBackInTheBackgroundDoesNotHoldTheLockOpen() async throws {
    let harness = try PresenceHarness(
      options: PresenceOptions(sessionLock: .deviceOwner, relockAfterBackground: .seconds(60)))
    try await harness.xid.signIn()
    let clock = harness.provider.clock
    harness.xid.setScenePhase(.background)
    clock.advance(by: .seconds(30))
    // The user sets the date back a day; the time away goes on counting.
    clock.set(to: clock.now.addingTimeInterval(-86_400))
    #expect(harness.xid.lockState == .unlocked, "30 seconds away so far")
    clock.advance(by: .seconds(30))
    #expect(harness.xid.lockState == .locked)
    harness.xid.setScenePhase(.active)
    #expect(harness.xid.lockState == .locked)
    await expectXidError(.sessionLocked) { try await harness.xid.getAccessToken() }
  }

  /// The relock measures the time away, which setting the date does not change: a date set forward
  /// (by the user, or by network time correcting a wrong clock) closes nothing early. Closing early
  /// would not be a risk, only a prompt for nothing; one measure, the time that passed, decides.
  @Test func settingTheDeviceClockForwardInTheBackgroundDoesNotCloseTheLockEarly() async throws {
    let harness = try PresenceHarness(
      options: PresenceOptions(sessionLock: .deviceOwner, relockAfterBackground: .seconds(60)))
    try await harness.xid.signIn()
    let clock = harness.provider.clock
    harness.xid.setScenePhase(.background)
    clock.set(to: clock.now.addingTimeInterval(86_400))
    #expect(harness.xid.lockState == .unlocked)
    clock.advance(by: .seconds(59))
    #expect(harness.xid.lockState == .unlocked)
    clock.advance(by: .seconds(1))
    #expect(harness.xid.lockState == .locked)
  }

  @Test func relockAfterZeroClosesAsSoonAsTheAppLeaves() async throws {
    let harness = try PresenceHarness(
      options: PresenceOptions(sessionLock: .deviceOwner, relockAfterBackground: .zero))
    try await harness.xid.signIn()
    harness.xid.setScenePhase(.inactive)
    #expect(harness.xid.lockState == .unlocked, "inactive is still in the foreground")
    harness.xid.setScenePhase(.background)
    #expect(harness.xid.lockState == .locked)
  }

  @Test func withoutARelockTimeTheBackgroundChangesNothing() async throws {
    let harness = try PresenceHarness(options: Self.lock)
    try await harness.xid.signIn()
    harness.xid.setScenePhase(.background)
    harness.provider.clock.advance(by: .seconds(86_400))
    #expect(harness.xid.lockState == .unlocked)
  }

  // MARK: - Observing

  @Test func lockStatesReportEveryChange() async throws {
    let user = GatedAuthorizer()
    let harness = try PresenceHarness(options: PresenceOptions(sessionLock: .deviceOwner, authorizer: user))
    try await harness.xid.signIn()
    await harness.xid.lock()
    var states = try harness.xid.lockStates().makeAsyncIterator()
    #expect(await states.next() == .locked)
    let unlocking = Task { try await harness.xid.unlock(localizedReason: "Unlock") }
    #expect(await states.next() == .unlocking)
    await user.waitForPrompt()
    user.release()
    try await unlocking.value
    #expect(await states.next() == .unlocked)
    try await harness.xid.signOut()
    #expect(await states.next() == .locked)
  }

  @Test func aRelockThatFellDueIsReportedOnce() async throws {
    let harness = try PresenceHarness(
      options: PresenceOptions(sessionLock: .deviceOwner, relockAfterBackground: .seconds(60)))
    try await harness.xid.signIn()
    harness.xid.setScenePhase(.background)
    harness.provider.clock.advance(by: .seconds(60))
    var states = try harness.xid.lockStates().makeAsyncIterator()
    #expect(await states.next() == .locked)
    harness.xid.setScenePhase(.active)
    try await harness.xid.unlock(localizedReason: "Unlock")
    #expect(await states.next() == .unlocking)
    #expect(await states.next() == .unlocked)
  }

  @Test func withoutALockNothingIsLocked() async throws {
    let harness = try PresenceHarness(options: PresenceOptions())
    try await harness.xid.signIn()
    #expect(harness.xid.lockState == .unlocked)
    await harness.xid.lock()
    _ = try await harness.xid.getAccessToken()
    try await harness.xid.unlock(localizedReason: "never shown")
    #expect(harness.user.prompts.isEmpty)
    var states: [SessionLockState] = []
    for await state in try harness.xid.lockStates() { states.append(state) }
    #expect(states == [.unlocked])
  }

  // MARK: - Configuration

  @Test func optionsThatCannotWorkAreRefused() throws {
    let provider = try TestProvider()
    for (options, words) in [
      (PresenceOptions(relockAfterBackground: .seconds(5)), "needs a sessionLock"),
      (PresenceOptions(sessionLock: .deviceOwner, relockAfterBackground: .seconds(-1)), "negative"),
      (PresenceOptions(refreshTokenProtection: .deviceOwner, authenticationReuse: .seconds(3601)), "3600"),
      (PresenceOptions(refreshTokenProtection: .deviceOwner, refreshReason: ""), "refreshReason"),
    ] {
      var configuration = SessionHarness.configuration(provider, logger: DiscardingLogger())
      configuration.presence = options
      let error = expectXidError(.invalidConfiguration) { try configuration.validate() }
      #expect(error?.reason.contains(words) == true, "\(error?.reason ?? "")")
    }
  }

  #if os(Linux)
    @Test func aLockNeedsAnAuthorizerWhereThePlatformHasNone() async throws {
      let provider = try TestProvider()
      var configuration = SessionHarness.configuration(provider, logger: DiscardingLogger())
      configuration.presence = PresenceOptions(sessionLock: .deviceOwner)
      let xid = try Xid(configuration: configuration.storing(in: InMemoryTokenStorage()))
      let error = await expectXidError(.invalidConfiguration) { try await xid.getAccessToken() }
      #expect(error?.reason.contains("PresenceOptions.authorizer") == true)
    }
  #endif

  @Test func anEmptyReasonIsRefused() async throws {
    let harness = try PresenceHarness(options: Self.lock)
    await expectXidError(.invalidConfiguration) { try await harness.xid.unlock(localizedReason: "") }
  }
}

/// An authorizer that holds its prompt until the test releases it, and counts prompts.
final class GatedAuthorizer: PresenceAuthorizer, @unchecked Sendable {
  private let state = LockedValue<(prompts: Int, released: Bool, waiters: [CheckedContinuation<Void, Never>])>(
    (0, false, []))
  private let asked = AsyncStream<Void>.makeStream()

  var prompts: Int { state.get().prompts }

  func checkCanAuthorize() async throws {}

  func authorize(localizedReason: String) async throws {
    state.update { $0.prompts += 1 }
    asked.continuation.yield()
    await withCheckedContinuation { continuation in
      let resume = state.update { state -> Bool in
        if state.released { return true }
        state.waiters.append(continuation)
        return false
      }
      if resume { continuation.resume() }
    }
  }

  func deauthorize() async {}

  /// Returns once a prompt is showing.
  func waitForPrompt() async {
    var iterator = asked.stream.makeAsyncIterator()
    _ = await iterator.next()
  }

  /// Lets every prompt succeed.
  func release() {
    let waiters = state.update { state -> [CheckedContinuation<Void, Never>] in
      state.released = true
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }
}

/// Waits, yielding, until `condition` holds (a deauthorization the lock starts without waiting for
/// it); fails after many rounds rather than after a time.
func expectEventually(
  sourceLocation: SourceLocation = #_sourceLocation, _ condition: @Sendable () -> Bool
) async {
  for _ in 0..<10_000 {
    if condition() { return }
    await Task.yield()
  }
  Issue.record("the condition never held", sourceLocation: sourceLocation)
}
