import Foundation
import Testing
import Xid
import XidTestSupport
import XidTesting

@testable import XidProtocol
@testable import XidSession

/// A change signal in this process only, standing in for the Darwin notification: the shared logic
/// (the hub's streams, coalescing, start and stop) with a source that counts its starts and stops.
final class FakeChangeSignal: SessionChangeSignal {
  let starts: LockedValue<Int>
  let stops: LockedValue<Int>
  let posts = LockedValue(0)
  private let fireBox: LockedValue<(@Sendable () -> Void)?>
  let hub: ChangeSignalHub

  init() {
    let starts = LockedValue(0), stops = LockedValue(0)
    let fireBox = LockedValue<(@Sendable () -> Void)?>(nil)
    self.starts = starts
    self.stops = stops
    self.fireBox = fireBox
    hub = ChangeSignalHub { fire in
      starts.update { $0 += 1 }
      fireBox.set(fire)
      return {
        fireBox.set(nil)
        stops.update { $0 += 1 }
      }
    }
  }

  func post() {
    posts.update { $0 += 1 }
    fireBox.get()?()
  }

  func changes() -> AsyncStream<Void> { hub.changes() }
}

/// Collects a stream's events in a task, for checks with a generous timeout.
final class EventCollector: Sendable {
  let events = LockedValue<[SessionEvent]>([])
  let task: Task<Void, Never>

  init(_ stream: AsyncStream<SessionEvent>) {
    let events = self.events
    task = Task { for await event in stream { events.update { $0.append(event) } } }
  }

  /// Waits (at most `timeout`) until the events collected satisfy `condition`.
  func wait(
    timeout: Duration = .seconds(60), until condition: @Sendable ([SessionEvent]) -> Bool
  ) async -> [SessionEvent] {
    let deadline = ContinuousClock.now + timeout
    while !condition(events.get()) && ContinuousClock.now < deadline {
      try? await Task.sleep(for: .milliseconds(10))
    }
    return events.get()
  }

  func cancel() { task.cancel() }
}

/// Waits (at most a minute) until `condition` holds; returns whether it did.
func eventually(_ condition: @Sendable () -> Bool) async -> Bool {
  let deadline = ContinuousClock.now + .seconds(60)
  while !condition() {
    if ContinuousClock.now >= deadline { return false }
    try? await Task.sleep(for: .milliseconds(10))
  }
  return true
}

/// The inotify descriptors of this process that watch `directory` (`/proc/self/fdinfo` lists each
/// watch's inode). Counting only this folder's watches keeps the count free of other suites' watches,
/// which run alongside and open and close descriptors of their own (a process-wide count failed CI).
func inotifyWatchCount(of directory: URL) -> Int {
  var status = stat()
  guard stat(directory.path, &status) == 0 else { return 0 }
  let watched = "ino:" + String(UInt64(status.st_ino), radix: 16) + " "
  let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fdinfo")) ?? []
  return entries.filter { entry in
    guard let info = try? String(contentsOfFile: "/proc/self/fdinfo/" + entry, encoding: .utf8) else { return false }
    return info.split(separator: "\n").contains { $0.hasPrefix("inotify ") && $0.contains(watched) }
  }.count
}

@Suite(.serialized, .timeLimit(.minutes(3)))
struct SessionEventTests {
  @Test func eventDerivationFollowsTheRecordsSignInAndVersion() {
    let first = RecordMark(signInID: "a", version: 1)
    #expect(SessionEvent.between(nil, nil) == nil)
    #expect(SessionEvent.between(nil, first) == .signedIn)
    #expect(SessionEvent.between(first, nil) == .signedOut)
    #expect(SessionEvent.between(first, RecordMark(signInID: "a", version: 2)) == .refreshed)
    #expect(SessionEvent.between(first, RecordMark(signInID: "b", version: 2)) == .signedIn)
    #expect(SessionEvent.between(first, RecordMark(signInID: "b", version: 1)) == .signedIn)
    #expect(SessionEvent.between(first, first) == nil)
    #expect(SessionEvent.between(RecordMark(signInID: "a", version: 3), RecordMark(signInID: "a", version: 2)) == nil)
  }

  static func engine(provider: TestProvider, storage: any TokenStorageAdapter, signal: any SessionChangeSignal) throws
    -> SessionEngine
  {
    var parts = SessionParts(
      transport: provider.transport, storage: storage, clock: provider.clock, userAgent: provider.userAgent,
      logger: DiscardingLogger())
    parts.changeSignal = signal
    return try SessionEngine(
      configuration: XidConfiguration(
        identity: ClientIdentity(
          issuer: provider.issuer, clientId: TestClient.example.id, redirectUri: TestClient.example.redirectURIs[0]),
        parts: parts))
  }

  /// Two engines over one storage and one signal, as two processes are: the other's sign-in,
  /// refresh and sign-out each reach this one's subscribers, and the sign-out ends the session this
  /// one kept in memory.
  @Test func anotherEnginesSignInRefreshAndSignOutReachTheSubscribers() async throws {
    let provider = try TestProvider()
    let storage = InMemoryTokenStorage()
    let signal = FakeChangeSignal()
    let here = try Self.engine(provider: provider, storage: storage, signal: signal)
    let there = try Self.engine(provider: provider, storage: storage, signal: signal)
    let first = EventCollector(here.events())
    let second = EventCollector(here.events())
    defer {
      first.cancel()
      second.cancel()
    }
    _ = try await there.signIn(options: SignInOptions(), userAgent: provider.userAgent)
    #expect(await first.wait { $0.count >= 1 } == [.signedIn])
    #expect(try await here.session() != nil)

    _ = try await there.accessToken(forceRefresh: true)
    #expect(await first.wait { $0.count >= 2 } == [.signedIn, .refreshed])

    try await there.signOut(callEndSession: false, userAgent: nil)
    #expect(await first.wait { $0.count >= 3 } == [.signedIn, .refreshed, .signedOut])
    #expect(await second.wait { $0.count >= 3 } == [.signedIn, .refreshed, .signedOut])
    // The in-memory copy was replaced at the signal: this engine knows the session is over.
    #expect(try await here.session() == nil)
    #expect(signal.posts.get() >= 3)
  }

  /// A new sign-in over an existing session (another sign-in ID) is a sign-in, and a process sees
  /// its own changes.
  @Test func aSignInOverAnotherSessionIsASignInAndOwnChangesAreSeen() async throws {
    let provider = try TestProvider()
    let signal = FakeChangeSignal()
    let engine = try Self.engine(provider: provider, storage: InMemoryTokenStorage(), signal: signal)
    _ = try await engine.signIn(options: SignInOptions(), userAgent: provider.userAgent)
    let events = EventCollector(engine.events())
    defer { events.cancel() }
    _ = try await engine.signIn(options: SignInOptions(), userAgent: provider.userAgent)
    #expect(await events.wait { $0.count >= 1 } == [.signedIn])
  }

  /// A signal that changes nothing (another key written, a duplicate) makes no event.
  @Test func aSignalWithoutAChangeMakesNoEvent() async throws {
    let provider = try TestProvider()
    let signal = FakeChangeSignal()
    let engine = try Self.engine(provider: provider, storage: InMemoryTokenStorage(), signal: signal)
    let events = EventCollector(engine.events())
    defer { events.cancel() }
    signal.post()
    signal.post()
    await engine.storageDidChange()
    _ = try await engine.signIn(options: SignInOptions(), userAgent: provider.userAgent)
    #expect(await events.wait { $0.count >= 1 } == [.signedIn])
    signal.post()
    await engine.storageDidChange()
    try? await Task.sleep(for: .milliseconds(50))
    #expect(events.events.get() == [.signedIn])
  }

  /// The signal's source starts with the first subscriber and stops after the last one is cancelled.
  @Test func theSignalIsObservedOnlyWhileSomeoneSubscribes() async throws {
    let provider = try TestProvider()
    let signal = FakeChangeSignal()
    let engine = try Self.engine(provider: provider, storage: InMemoryTokenStorage(), signal: signal)
    #expect(signal.starts.get() == 0)
    let first = EventCollector(engine.events())
    let second = EventCollector(engine.events())
    #expect(signal.starts.get() == 1)
    first.cancel()
    try? await Task.sleep(for: .milliseconds(20))
    #expect(signal.stops.get() == 0)
    second.cancel()
    #expect(await eventually { signal.stops.get() == 1 })
    #expect(!signal.hub.isRunning)
    let third = EventCollector(engine.events())
    #expect(signal.starts.get() == 2)
    third.cancel()
    #expect(await eventually { signal.stops.get() == 2 })
  }

  @Test func theNotificationNameIsTheAccessGroupsAndNoneWithoutOne() {
    #expect(
      sessionChangeNotificationName(accessGroup: "ABCDE12345.com.example.shared")
        == "ABCDE12345.com.example.shared.xid.session-changed")
    #expect(sessionChangeNotificationName(accessGroup: nil) == nil)
    #expect(sessionChangeNotificationName(accessGroup: " ") == nil)
  }

  /// Bursts are coalesced: a stream keeps at most one signal waiting.
  @Test func aBurstOfSignalsWaitsAsOne() async {
    let signal = FakeChangeSignal()
    let stream = signal.changes()
    for _ in 0..<100 { signal.post() }
    signal.hub.finish()
    var received = 0
    for await _ in stream { received += 1 }
    #expect(received == 1)
    #expect(signal.stops.get() == 1)
  }

  #if os(Linux)
    /// The watch of a real folder: a record saved or deleted by ``FileTokenStorage`` signals, and
    /// ending the stream closes the inotify descriptor.
    @Test func theFolderWatchSignalsSavesAndDeletionsAndClosesItsDescriptor() async throws {
      let directory = temporaryDirectory()
      let storage = try FileTokenStorage(directory: directory)
      let signal = FolderChangeSignal(directory: directory)
      #expect(inotifyWatchCount(of: directory) == 0)
      let count = LockedValue(0)
      let stream = signal.changes()
      #expect(signal.isWatching)
      #expect(inotifyWatchCount(of: directory) == 1)
      let task = Task { for await _ in stream { count.update { $0 += 1 } } }
      try storage.save(key: "record", value: "one")
      #expect(await eventually { count.get() >= 1 })
      let seen = count.get()
      try storage.delete(key: "record")
      #expect(await eventually { count.get() > seen })
      task.cancel()
      #expect(await eventually { !signal.isWatching && inotifyWatchCount(of: directory) == 0 })
    }

    /// Two processes over one FileTokenStorage folder: a worker process signs in and then out, and
    /// this process's engine emits signedIn and signedOut, and knows the session is over.
    @Test(.workerProcessesOneAtATime) func anotherProcesssSignInAndSignOutReachThisProcess() async throws {
      let provider = try await TestProvider.startLoopback()
      let root = temporaryDirectory()
      let state = root.appendingPathComponent("state"), control = root.appendingPathComponent("control")
      try FileManager.default.createDirectory(at: control, withIntermediateDirectories: true)
      let storage = try FileTokenStorage(directory: state)
      let engine = try SessionEngine(
        configuration: XidConfiguration(
          identity: ClientIdentity(
            issuer: provider.issuer, clientId: TestClient.example.id, redirectUri: TestClient.example.redirectURIs[0]),
          parts: SessionParts(transport: provider.transport, storage: storage, logger: DiscardingLogger())))
      let events = EventCollector(engine.events())
      #expect(try await engine.session() == nil)

      #expect(try await Self.runWorker(provider: provider, state: state, control: control, once: "signIn") == 0)
      #expect(await events.wait { $0.contains(.signedIn) } == [.signedIn])
      #expect(try await engine.session() != nil)

      #expect(try await Self.runWorker(provider: provider, state: state, control: control, once: "signOut") == 0)
      #expect(await events.wait { $0.contains(.signedOut) } == [.signedIn, .signedOut])
      #expect(try await engine.session() == nil)

      #expect(inotifyWatchCount(of: state) == 1)
      events.cancel()
      #expect(await eventually { inotifyWatchCount(of: state) == 0 })
    }

    /// Runs the worker once with `XID_WORKER_ONCE=once`; its exit status.
    static func runWorker(provider: TestProvider, state: URL, control: URL, once: String) async throws -> Int32 {
      let process = Process()
      process.executableURL = builtExecutable(named: "XidRefreshWorker")
      process.arguments = [
        provider.issuer.absoluteString, TestClient.example.id, TestClient.example.redirectURIs[0].absoluteString,
        state.path, control.path, "0", "1", "0",
      ]
      process.environment = ProcessInfo.processInfo.environment.merging(["XID_WORKER_ONCE": once]) { $1 }
      return try await withCheckedThrowingContinuation { continuation in
        process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
        do { try process.run() } catch {
          process.terminationHandler = nil
          continuation.resume(throwing: error)
        }
      }
    }
  #endif
}
