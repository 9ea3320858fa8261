/// One call of the app to Xid (a request, a refresh, a sign-in) that may need the user: the
/// confirmation of presence it gets first is used for everything else it does, so that the user sees
/// at most one prompt per call. It lives in a task-local value, so that it reaches every key the call
/// uses (the sealed refresh token, the DPoP key of the stricter mode) without being passed along.
package final class PresenceScope: Sendable {
  /// The call under way in this task, if any.
  static var current: PresenceScope? { local.get() }
  // A TaskLocal instance rather than the `@TaskLocal` wrapper, whose form differs between the Swift 6
  // standard library and the one of Xcode 15's SDKs.
  private static let local = TaskLocal<PresenceScope?>(wrappedValue: nil)

  private let held = LockedValue<(context: any PresenceContext, endsWithCall: Bool)?>(nil)

  /// The evaluated context this call holds.
  var context: (any PresenceContext)? { held.get()?.context }

  /// Keeps `context` for the rest of the call; `endsWithCall` invalidates it when the call ends (a
  /// context kept for reuse is not).
  func hold(_ context: any PresenceContext, endsWithCall: Bool) { held.set((context, endsWithCall)) }

  /// Drops `context` when it is the one held (it went stale).
  func drop(_ context: any PresenceContext) {
    held.update { if $0?.context === context { $0 = nil } }
  }

  /// Runs `body` as one call: in the call under way, or in a new one whose context is invalidated at
  /// its end.
  package static func run<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
    if current != nil { return try await body() }
    let scope = PresenceScope()
    defer { scope.end() }
    return try await local.withValue(scope, operation: body)
  }

  /// Runs `body` as one call on `actor`, the caller's: an actor's method is one call as it stands,
  /// its body touching the actor's state without a hop. The isolation is passed rather than taken
  /// with `#isolation`, which the iOS 17 SDK's standard library lacks.
  package static func run<T>(on actor: isolated some Actor, _ body: () async throws -> T) async throws -> T {
    if current != nil { return try await body() }
    let scope = PresenceScope()
    defer { scope.end() }
    return try await local.withValue(scope, operation: body)
  }

  private func end() {
    let ending = held.update { held -> (any PresenceContext)? in
      defer { held = nil }
      return held?.endsWithCall == true ? held?.context : nil
    }
    ending?.invalidate()
  }
}
