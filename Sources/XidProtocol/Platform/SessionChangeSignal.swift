import Foundation

/// A signal between the processes that share a token storage (an app, its extensions and widgets,
/// several command-line processes): "the stored session may have changed".
///
/// A signal never carries data, and never a token: a process that receives one reads the record
/// again, which is the truth. A signal that is lost, or arrives twice, costs nothing. A process
/// receives its own signals too.
///
/// Xid supplies one per platform (``SessionParts/changeSignal``): on Linux ``FolderChangeSignal``,
/// a watch of ``FileTokenStorage``'s directory; on Apple platforms `DarwinChangeSignal` (the
/// `XidApple` module), a Darwin notification named from the keychain access group.
public protocol SessionChangeSignal: Sendable {
  /// Tells the other processes that this process wrote the session (a sign-in, a refresh, a
  /// sign-out). Never blocks; a signal that watches the storage itself does nothing here.
  func post()

  /// The signals as they arrive, bursts coalesced into one element. Each call makes a new stream;
  /// the operating system's resources (a watch, an observer) are held while a stream is iterated
  /// and released when the last one ends (its task cancelled, or the stream dropped).
  func changes() -> AsyncStream<Void>
}

/// The part of a change signal that every platform shares: the streams of its subscribers, the
/// operating system's source started for the first one and stopped after the last one, and bursts
/// coalesced (each stream keeps at most one signal waiting).
package final class ChangeSignalHub: @unchecked Sendable {
  /// Starts the operating system's source, which calls its argument for each change (on any
  /// thread), and returns what stops it. `nil` when it cannot start (the streams then stay quiet).
  package typealias Start = @Sendable (_ fire: @escaping @Sendable () -> Void) -> (@Sendable () -> Void)?

  private let start: Start
  private let lock = NSLock()
  // Guarded by `lock`.
  private var subscribers: [UInt64: AsyncStream<Void>.Continuation] = [:]
  private var nextID: UInt64 = 0
  private var stop: (@Sendable () -> Void)?
  private var running = false

  /// A hub whose source `start` starts.
  package init(start: @escaping Start) { self.start = start }

  /// Whether the operating system's source runs (for tests).
  package var isRunning: Bool { lock.withLock { running } }

  /// A new stream of the signals; the source starts with the first stream.
  package func changes() -> AsyncStream<Void> {
    let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    let id: UInt64
    let starts: Bool
    lock.lock()
    id = nextID
    nextID &+= 1
    subscribers[id] = continuation
    starts = !running
    running = true
    lock.unlock()
    continuation.onTermination = { [weak self] _ in self?.remove(id) }
    if starts {
      // Started outside the lock: a source may fire at once.
      let stop = start { [weak self] in self?.fire() }
      lock.lock()
      if running && self.stop == nil {
        self.stop = stop
        lock.unlock()
      } else {
        // Every stream ended while the source started.
        lock.unlock()
        stop?()
      }
    }
    return stream
  }

  /// Delivers one signal to every stream (coalesced with any still waiting).
  package func fire() {
    let continuations = lock.withLock { Array(subscribers.values) }
    for continuation in continuations { continuation.yield() }
  }

  /// Ends every stream (their waiting signals are still delivered); the source stops.
  package func finish() {
    let continuations = lock.withLock { Array(subscribers.values) }
    for continuation in continuations { continuation.finish() }
  }

  private func remove(_ id: UInt64) {
    lock.lock()
    subscribers[id] = nil
    guard subscribers.isEmpty, running else {
      lock.unlock()
      return
    }
    running = false
    let stop = self.stop
    self.stop = nil
    lock.unlock()
    stop?()
  }
}

extension SessionChangeSignal where Self == NoChangeSignal {
  /// A signal that never fires and posts nowhere: for storage no other process shares.
  public static var none: NoChangeSignal { NoChangeSignal() }
}

/// A signal that never fires and posts nowhere: the default for storage no other process shares
/// (``InMemoryTokenStorage``, custom adapters).
public struct NoChangeSignal: SessionChangeSignal {
  /// Creates the signal.
  public init() {}
  /// Does nothing.
  public func post() {}
  /// A stream that stays quiet until it is cancelled.
  public func changes() -> AsyncStream<Void> { AsyncStream { _ in } }
}

/// The name of the Darwin notification that signals a change to the sessions of a keychain access
/// group: `"<group>.xid.session-changed"`, the same in every process of the group, and `nil` without
/// a group (the app's own keychain, which no other process reads).
///
/// - Parameter accessGroup: the full, team-prefixed keychain access group.
public func sessionChangeNotificationName(accessGroup: String?) -> String? {
  guard let group = accessGroup?.trimmingCharacters(in: .whitespaces), !group.isEmpty else { return nil }
  return group + ".xid.session-changed"
}
