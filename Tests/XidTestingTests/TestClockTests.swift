import Foundation
import Testing
import XidCore
import XidTesting

struct TestClockTests {
  @Test func passingTimeMovesTheWallClockAndTheMonotonicReadingTogether() async throws {
    let clock = TestClock()
    let (wall, monotonic) = (clock.now, clock.monotonicNow)
    clock.advance(by: .seconds(90))
    try await clock.sleep(for: .seconds(10))
    #expect(clock.now.timeIntervalSince(wall) == 100)
    #expect(clock.monotonicNow - monotonic == .seconds(100))
  }

  @Test func settingTheWallClockLeavesTheMonotonicReadingWhereItIs() {
    let clock = TestClock()
    let monotonic = clock.monotonicNow
    clock.set(to: clock.now.addingTimeInterval(-3600))
    clock.advance(by: .seconds(-60))
    clock.set(to: clock.now.addingTimeInterval(86_400))
    #expect(clock.monotonicNow == monotonic)
  }

  @Test func theSystemClocksCoarseReadingIsWithinATickOfThePreciseOne() {
    let clock = SystemClock()
    for _ in 0..<100 {
      let before = Date()
      let coarse = clock.coarseNow
      let after = Date()
      // The last tick's time: not after the precise reading taken next, and at most a tick (1 to
      // 10 ms) behind the one taken before; 50 ms leaves room for a descheduled thread.
      #expect(coarse <= after.addingTimeInterval(0.001))
      #expect(coarse >= before.addingTimeInterval(-0.05))
    }
  }

  @Test func aClockThatTestsMoveIsReadCoarselyAsItIsReadPrecisely() {
    let clock = TestClock()
    clock.set(to: Date(timeIntervalSince1970: 1_800_000_000))
    #expect(clock.coarseNow == clock.now)
    clock.advance(by: .seconds(90))
    #expect(clock.coarseNow == clock.now)
  }

  @Test func theSystemClocksMonotonicReadingNeverGoesBack() {
    let clock = SystemClock()
    var last = clock.monotonicNow
    for _ in 0..<1000 {
      let next = clock.monotonicNow
      #expect(next >= last)
      last = next
    }
  }

  @Test func aDeadlineIsReachedOnlyWhenTheTestMovesTheClock() async throws {
    let clock = TestClock()
    let deadline = clock.now.addingTimeInterval(30)
    let reached = LockedFlag()
    let waiting = Task {
      try await clock.sleep(until: deadline)
      reached.set()
    }
    try await Task.sleep(for: .milliseconds(50))
    #expect(!reached.value)
    clock.advance(by: .seconds(29))
    try await Task.sleep(for: .milliseconds(50))
    #expect(!reached.value)
    clock.advance(by: .seconds(1))
    try await waiting.value
    #expect(reached.value)
    // A deadline already passed returns at once; sleeping for a duration never waits.
    try await clock.sleep(until: deadline)
    #expect(clock.sleeps.isEmpty)
  }

  @Test func aWaitForADeadlineEndsWhenItsTaskIsCancelled() async throws {
    let clock = TestClock()
    let waiting = Task { try await clock.sleep(until: clock.now.addingTimeInterval(60)) }
    waiting.cancel()
    await #expect(throws: CancellationError.self) { try await waiting.value }
  }
}

/// A flag set from another task.
private final class LockedFlag: @unchecked Sendable {
  private let lock = NSLock()
  private var isSet = false
  var value: Bool { lock.withLock { isSet } }
  func set() { lock.withLock { isSet = true } }
}
