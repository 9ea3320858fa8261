import Dispatch
import XidCore

/// The listening socket and open connections behind a ``LoopbackHTTPServer``.
///
/// Concurrency: every stored `var` is read and written on `queue` only, a serial queue that also runs
/// every Dispatch source of the server. That is what
/// makes the `@unchecked Sendable` sound. Descriptors are closed only in the cancel handlers of their
/// sources, never while Dispatch still watches them.
final class LoopbackServerCore: @unchecked Sendable {
  /// The port the server is bound to.
  let port: UInt16

  private let listener: Int32
  private let queue: DispatchQueue
  private let limits: LoopbackHTTPServer.Limits
  private let handler: @Sendable (HTTPRequest) async -> HTTPResponse?

  private var listenSource: DispatchSourceRead?
  private var listenerPaused = false
  private var listenerClosed = false
  private var connections: [ObjectIdentifier: LoopbackConnection] = [:]
  /// How many connections have been accepted: the next one's ``LoopbackConnection/sequence``.
  private var accepted: UInt64 = 0
  private var stopWaiters: [CheckedContinuation<Void, Never>] = []

  /// How many connections one readiness event of the listener may accept.
  private static let acceptsPerEvent = 16
  /// How long accepting pauses after `accept` failed, for example with `EMFILE`.
  private static let acceptPause = DispatchTimeInterval.milliseconds(100)

  /// Binds `127.0.0.1:port`, listens, and starts accepting connections on a queue of its own.
  ///
  /// - Throws: ``XidError`` with ``XidError/Code/loopbackServerFailure``.
  init(
    port: UInt16, limits: LoopbackHTTPServer.Limits, handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse?
  ) throws {
    let (listener, boundPort) = try LoopbackSocket.listen(port: port, backlog: 128)
    self.listener = listener
    self.port = boundPort
    self.limits = limits
    self.handler = handler
    queue = DispatchQueue(label: "Xid.LoopbackHTTPServer.\(boundPort)")
    queue.async { self.startAccepting() }
  }

  /// Closes the listener and every connection soon after, on the queue. Idempotent; callable from any
  /// thread; never blocks.
  ///
  /// It does not `shutdown()` the listener from the caller's thread to refuse connections sooner: on
  /// Linux, that crashes libdispatch's event loop while the listener's source is registered.
  func stop() {
    queue.async { self.closeEverything() }
  }

  /// Closes the listener and every connection that is not answering a request soon after; those
  /// that are close once their response is written. Idempotent; callable from any thread; never
  /// blocks.
  func stopAfterResponses() {
    queue.async {
      self.closeListener()
      for connection in self.connections.values { connection.closeUnlessAnswering() }
    }
  }

  /// Returns once the listener and every connection are closed, which happens only after ``stop()``.
  func waitUntilStopped() async {
    await withCheckedContinuation { continuation in
      queue.async {
        if self.isStopped { continuation.resume() } else { self.stopWaiters.append(continuation) }
      }
    }
  }

  // MARK: On the queue

  private var isStopped: Bool { listenerClosed && connections.isEmpty }

  private func startAccepting() {
    let source = DispatchSource.makeReadSource(fileDescriptor: listener, queue: queue)
    source.setEventHandler { self.acceptPending() }
    source.setCancelHandler {
      LoopbackSocket.closeDescriptor(self.listener)
      self.listenerClosed = true
      self.resumeWaitersIfStopped()
    }
    listenSource = source
    source.activate()
  }

  private func acceptPending() {
    for _ in 0..<Self.acceptsPerEvent {
      switch LoopbackSocket.accept(listener) {
      case .success(let descriptor):
        guard makeRoom() else {
          LoopbackSocket.closeDescriptor(descriptor)
          continue
        }
        accepted += 1
        let connection = LoopbackConnection(
          descriptor: descriptor, sequence: accepted, queue: queue, limits: limits, port: port, handler: handler,
          onClose: {
            self.connections[ObjectIdentifier($0)] = nil; self.resumeWaitersIfStopped()
          })
        connections[ObjectIdentifier(connection)] = connection
        connection.start()
      case .failure(.wouldBlock):
        return
      case .failure(.failed):
        // Out of descriptors, or the listener was shut down: a listener that stays readable would
        // spin, so pause it for a moment.
        return pauseAccepting()
      }
    }
  }

  /// Whether one more connection fits: below ``LoopbackHTTPServer/Limits/maxConnections`` open ones,
  /// or once an open one has been closed to make room: the oldest that still waits for its request,
  /// else the oldest that has been answered and only drains the rest of its input.
  /// Connections that send nothing (a browser's spares, or a local program's many) must not keep out
  /// the one request that matters, such as a sign-in's redirect, nor may they once the read timeout
  /// has answered them; only when every connection is answering a request is the new one turned away.
  private func makeRoom() -> Bool {
    var open = 0
    var oldestWaiting: LoopbackConnection?
    var oldestLingering: LoopbackConnection?
    for connection in connections.values where !connection.isClosed {
      open += 1
      if connection.isWaitingForRequest, connection.sequence < oldestWaiting?.sequence ?? .max {
        oldestWaiting = connection
      } else if connection.isLingering, connection.sequence < oldestLingering?.sequence ?? .max {
        oldestLingering = connection
      }
    }
    guard open >= limits.maxConnections else { return true }
    guard let evicted = oldestWaiting ?? oldestLingering else { return false }
    evicted.close()
    return true
  }

  private func pauseAccepting() {
    guard let listenSource, !listenerPaused else { return }
    listenSource.suspend()
    listenerPaused = true
    queue.asyncAfter(deadline: .now() + Self.acceptPause) {
      guard self.listenerPaused else { return }
      self.listenerPaused = false
      self.listenSource?.resume()
    }
  }

  /// Cancels the listener's source and closes every connection. Idempotent.
  private func closeEverything() {
    closeListener()
    for connection in connections.values { connection.close() }
  }

  /// Cancels the listener's source, which closes the listening socket. Idempotent.
  private func closeListener() {
    if let listenSource {
      listenSource.cancel()
      if listenerPaused {
        listenerPaused = false
        listenSource.resume()  // a suspended source would never run its cancel handler
      }
      self.listenSource = nil
    }
  }

  private func resumeWaitersIfStopped() {
    guard isStopped else { return }
    let waiters = stopWaiters
    stopWaiters = []
    for waiter in waiters { waiter.resume() }
  }
}
