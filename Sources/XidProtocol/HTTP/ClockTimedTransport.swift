import Foundation

/// A transport that gives up on a request when the configured clock reaches its deadline
/// (``SessionPolicy/requestTimeout``): the answer that never comes ends as a
/// ``XidError/Code/networkFailure``, whatever the transport underneath does.
///
/// The deadline is read on the configuration's ``XidClock``, so a test that moves its clock makes a
/// request that hangs time out at once, in no real time. The request is cancelled when the time is up;
/// its result is not awaited, so a transport that ignores cancellation cannot hold the caller.
struct ClockTimedTransport: HTTPTransport {
  let base: any HTTPTransport
  let timeout: Duration
  let clock: any XidClock

  func send(_ request: HTTPRequest) async throws -> HTTPResponse {
    try Task.checkCancellation()
    let deadline = clock.now.addingTimeInterval(timeout.timeInterval)
    let race = FirstOutcome<HTTPResponse>()
    let timedOut = XidError(
      .networkFailure,
      "no response from \(request.url.host ?? "the provider") within \(timeout.timeInterval) s (the configuration's requestTimeout); the request was abandoned"
    )
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        race.start(continuation)
        race.add(
          Task { [base] in
            do { race.finish(.success(try await base.send(request))) } catch { race.finish(.failure(error)) }
          })
        race.add(
          Task { [clock] in
            do {
              try await clock.sleep(until: deadline)
              race.finish(.failure(timedOut))
            } catch {}  // cancelled: the answer came first
          })
      }
    } onCancel: {
      race.finish(.failure(CancellationError()))
    }
  }
}

/// Resumes a continuation with the first outcome it is given, then cancels the tasks that were racing.
private final class FirstOutcome<Value: Sendable>: Sendable {
  private struct State: Sendable {
    var continuation: CheckedContinuation<Value, any Error>?
    var early: Result<Value, any Error>?
    var finished = false
    var tasks: [Task<Void, Never>] = []
  }

  private let state = LockedValue(State())

  /// Sets the continuation; resumes it at once when an outcome (a cancellation) came first.
  func start(_ continuation: CheckedContinuation<Value, any Error>) {
    let early = state.update { state -> Result<Value, any Error>? in
      guard state.early == nil else { return state.early }
      state.continuation = continuation
      return nil
    }
    if let early { continuation.resume(with: early) }
  }

  /// Keeps `task`, to cancel it once the race is over (at once when it is over already).
  func add(_ task: Task<Void, Never>) {
    let over = state.update { state -> Bool in
      if !state.finished { state.tasks.append(task) }
      return state.finished
    }
    if over { task.cancel() }
  }

  /// The first call wins; later ones do nothing.
  func finish(_ outcome: Result<Value, any Error>) {
    let (continuation, tasks) = state.update { state -> (CheckedContinuation<Value, any Error>?, [Task<Void, Never>]) in
      guard !state.finished else { return (nil, []) }
      state.finished = true
      if state.continuation == nil { state.early = outcome }
      defer {
        state.continuation = nil
        state.tasks = []
      }
      return (state.continuation, state.tasks)
    }
    continuation?.resume(with: outcome)
    for task in tasks { task.cancel() }
  }
}
