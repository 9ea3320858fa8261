import Foundation

/// The subscribers of an engine's events, the record they last learnt of, and the observation of the
/// change signal while there is a subscriber.
///
/// The hub holds no reference to its engine, strong or weak: a weak reference would give the engine
/// a side table, and every retain of the engine, `Xid.getAccessToken()`'s fast path included, would
/// take the runtime's slow path (measured: 2.26 → 2.9 trivial `await`s per call). What a change
/// needs (`reload`) is handed over by the first subscriber and let go with the last one.
final class SessionEventHub: @unchecked Sendable {
  /// Reads the record again after a change and tells the hub (`learn(_:)`).
  typealias Reload = @Sendable (SessionEventHub) async -> Void

  let signal: any SessionChangeSignal
  private let lock = NSLock()
  // Guarded by `lock`.
  private var subscribers: [UInt64: AsyncStream<SessionEvent>.Continuation] = [:]
  private var nextID: UInt64 = 0
  /// The record the subscribers last learnt of; `.unknown` until it could be read.
  private var known: Known = .unknown
  private var observation: Task<Void, Never>?
  /// Set while there is a subscriber.
  private var reload: Reload?

  enum Known: Equatable {
    case unknown
    case record(RecordMark?)
  }

  init(signal: any SessionChangeSignal) { self.signal = signal }

  var hasSubscribers: Bool { lock.withLock { !subscribers.isEmpty } }

  /// A new subscriber's stream. The first one starts the observation of the signal, then reads
  /// the record the events compare with (`baseline`: `nil` when it cannot be read), both under the
  /// lock, so that no change falls between the two.
  func subscribe(baseline: () -> RecordMark??, reload: @escaping Reload) -> AsyncStream<SessionEvent> {
    let (stream, continuation) = AsyncStream.makeStream(of: SessionEvent.self, bufferingPolicy: .bufferingNewest(64))
    lock.lock()
    let id = nextID
    nextID &+= 1
    subscribers[id] = continuation
    if observation == nil {
      let changes = signal.changes()
      if let mark = baseline() { known = .record(mark) }
      self.reload = reload
      // The task holds the hub until the last subscriber cancels it (`unsubscribe(_:)`).
      observation = Task {
        for await _ in changes { await reload(self) }
      }
    }
    lock.unlock()
    continuation.onTermination = { [weak self] _ in self?.unsubscribe(id) }
    return stream
  }

  private func unsubscribe(_ id: UInt64) {
    lock.lock()
    subscribers[id] = nil
    guard subscribers.isEmpty else {
      lock.unlock()
      return
    }
    let observation = self.observation
    self.observation = nil
    reload = nil
    known = .unknown
    lock.unlock()
    // Ends the signal's stream, which releases its watch or observer.
    observation?.cancel()
  }

  /// Compares `record` with the one last known, keeps it and tells the subscribers what changed.
  func learn(_ record: RecordMark?) {
    lock.lock()
    let event: SessionEvent?
    switch known {
    case .unknown: event = nil
    case .record(let old): event = SessionEvent.between(old, record)
    }
    if !subscribers.isEmpty { known = .record(record) }
    let continuations = event == nil ? [] : Array(subscribers.values)
    lock.unlock()
    if let event { for continuation in continuations { continuation.yield(event) } }
  }

  /// After this process wrote the record: tells the other processes, and this one's subscribers.
  func didWrite() {
    signal.post()
    guard let reload = lock.withLock({ subscribers.isEmpty ? nil : self.reload }) else { return }
    Task { await reload(self) }
  }
}

extension SessionEngine {
  /// The changes of this account's session, in this process and in every other process that shares
  /// the storage (an app, its extensions and widgets, several command-line processes), as they
  /// happen: ``SessionEvent/signedIn``, ``SessionEvent/signedOut``, ``SessionEvent/refreshed``.
  ///
  /// Each call makes a new stream; several may be iterated at once. Events start with the first
  /// change after the call, and carry no data: read the session again for what it is now. A
  /// process sees its own changes too. Another process's changes arrive through the configuration's
  /// change signal (``SessionParts/changeSignal``): on each signal the engine reads the stored
  /// record again (never the in-memory copy), compares it with the one it last knew, keeps it (so
  /// a session signed out elsewhere is noticed here) and emits the difference. Storage that cannot
  /// be read (a locked keychain) tells nothing: no event until it can.
  ///
  /// The signal's watch or observer is held while a stream is iterated, and released when the last
  /// one ends (its task cancelled).
  ///
  /// ```swift
  /// for await event in engine.events() {
  ///   if event == .signedOut { showSignIn() }
  /// }
  /// ```
  public nonisolated func events() -> AsyncStream<SessionEvent> {
    let account = account, logger = configuration.parts.logger
    return eventHub.subscribe(
      baseline: {
        guard let slot = try? account.records.read() else { return nil }
        return .some(slot.record.map(RecordMark.init))
      },
      reload: { [family = familyStore() == nil ? nil : self] hub in
        await Self.storageDidChange(account: account, hub: hub, logger: logger)
        // An event is where a sibling app learns that its family signed out; ending its session
        // deletes the record, whose write makes the `signedOut` event. (The engine is held only while
        // someone subscribes, as the hub's note says, and only in an app family.)
        try? await family?.checkFamilyLink()
      })
  }

  /// Reads the record again as a change signal would make it (for tests).
  func storageDidChange() async {
    await Self.storageDidChange(account: account, hub: eventHub, logger: configuration.parts.logger)
  }

  /// The one place where the engine learns that the storage may have changed (a change signal, or
  /// this process's own write): reads the account's record from storage, updates the in-memory
  /// copy, and emits the event it makes. Static, so that the hub's observation holds the account,
  /// never the engine.
  static func storageDidChange(account: AccountSession, hub: SessionEventHub, logger: any XidLogger) async {
    do {
      // Read, kept and compared in one step of the account's actor: two signals handled at once
      // never report their reads out of order.
      _ = try await account.reloadFromStorage(reporting: hub)
    } catch {
      logger.log(
        .debug, category: "events",
        "the record could not be read after a change signal (\((error as? XidError)?.code.rawValue ?? "an error")); waiting for the next one"
      )
    }
  }
}

extension AccountSession {
  /// Reads the record from storage (never the in-memory copy), keeps it in memory (unless refreshed
  /// tokens of this process still wait to be saved: they are newer than storage) and tells `events`,
  /// with no suspension in between.
  func reloadFromStorage(reporting events: SessionEventHub) throws -> TokenRecord? {
    let record = try records.read().record
    if unsaved == nil { cached.set(record) }
    events.learn(record.map(RecordMark.init))
    return record
  }
}
