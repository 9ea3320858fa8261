/// Time the system grants a process to finish work that must not be suspended halfway.
///
/// Xid holds the account's lock file (in the App Group container on iOS) while it refreshes, signs in
/// or signs out, and iOS kills a process that is suspended while it holds a file lock in a shared
/// container (exception `0xdead10cc`). So Xid does that work inside an activity of this kind, and when
/// the system says the time is up it gives up at once: the refresh is cancelled, the lock released,
/// and nothing is saved afterwards.
///
/// `XidApple` provides the two iOS ones: `ProcessExpiringActivity`
/// (`ProcessInfo.performExpiringActivity`, safe in app extensions, the default on iOS) and
/// `BackgroundTaskActivity` (`UIApplication.beginBackgroundTask`, for apps, from closures the app
/// provides). Set one with ``SessionParts/backgroundActivity``.
public protocol BackgroundActivity: Sendable {
  /// Begins an activity called `name`.
  ///
  /// - Parameters:
  ///   - name: what the work is, for the system's diagnostics.
  ///   - onExpiry: called at most once, from any thread, when the system ends the time early (or
  ///     grants none); Xid then abandons the work and ends the activity.
  /// - Returns: the activity, which Xid ends when the work is done.
  func begin(name: String, onExpiry: @escaping @Sendable () -> Void) async -> BackgroundActivityLease
}

/// A begun ``BackgroundActivity``: ending it gives the time back to the system. Ending is idempotent,
/// so the work's end and the expiry path may both end it.
public final class BackgroundActivityLease: Sendable {
  private let ending: LockedValue<(@Sendable () -> Void)?>

  /// A lease that calls `end` (once) when it is ended.
  public init(end: @escaping @Sendable () -> Void) { ending = LockedValue(end) }

  /// A lease for an activity the system did not grant, or that needs no ending.
  public static var none: BackgroundActivityLease { BackgroundActivityLease {} }

  /// Ends the activity; later calls do nothing.
  public func end() {
    let end = ending.update { ending -> (@Sendable () -> Void)? in
      defer { ending = nil }
      return ending
    }
    end?()
  }

  deinit { end() }
}
