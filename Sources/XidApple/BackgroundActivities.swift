#if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
  import Foundation
  import XidCore

  /// Background time from `ProcessInfo.performExpiringActivity`: safe in app extensions (widgets, App
  /// Intents) and in apps, and the default on iOS.
  ///
  /// The system keeps the process running while the activity lasts and, when it needs the time back,
  /// tells Xid, which cancels the work and releases the account's lock at once.
  ///
  /// `performExpiringActivity` ends its assertion when its block returns, so the block waits on a
  /// semaphore until Xid ends the activity. It runs on a queue of the system, never on a thread of
  /// Swift's concurrency pool.
  public struct ProcessExpiringActivity: BackgroundActivity {
    /// Creates the activity source.
    public init() {}

    public func begin(name: String, onExpiry: @escaping @Sendable () -> Void) async -> BackgroundActivityLease {
      let ended = DispatchSemaphore(value: 0)
      ProcessInfo.processInfo.performExpiringActivity(withReason: name) { expired in
        if expired {
          // A second call, on timeout, or the first one when no time is granted.
          onExpiry()
        } else {
          ended.wait()
        }
      }
      return BackgroundActivityLease { ended.signal() }
    }
  }
#endif

#if os(iOS) || os(tvOS) || os(visionOS)
  import Foundation
  import XidCore

  /// Background time from `UIApplication.beginBackgroundTask`, for apps, through closures the app
  /// provides: Xid's code never names `UIApplication.shared`, which app extensions cannot use.
  ///
  /// ```swift
  /// // In the app target only; extensions keep the default, ProcessExpiringActivity.
  /// configuration.parts.backgroundActivity = BackgroundTaskActivity(
  ///   begin: { name, expire in
  ///     let task = UIApplication.shared.beginBackgroundTask(withName: name) {
  ///       MainActor.assumeIsolated { expire() }
  ///     }
  ///     return task == .invalid ? nil : task.rawValue
  ///   },
  ///   end: { UIApplication.shared.endBackgroundTask(UIBackgroundTaskIdentifier(rawValue: $0)) })
  /// ```
  ///
  /// When the system ends the task's time, Xid cancels the work, releases the account's lock and ends
  /// the task, all before the expiration handler returns. A task the system refuses (`begin` returns
  /// `nil`, for `.invalid`) means no time is left, and the work is abandoned before it takes the lock.
  public struct BackgroundTaskActivity: BackgroundActivity {
    /// Begins a background task called `name` whose expiration handler calls `expirationHandler`, and
    /// returns its identifier, or `nil` when the system granted none.
    public typealias Begin =
      @MainActor @Sendable (_ name: String, _ expirationHandler: @escaping @MainActor @Sendable () -> Void) -> Int?
    /// Ends the background task with this identifier.
    public typealias End = @MainActor @Sendable (_ identifier: Int) -> Void

    private let beginTask: Begin
    private let endTask: End

    /// Creates the activity source from the app's calls to `UIApplication`.
    public init(begin: @escaping Begin, end: @escaping End) {
      beginTask = begin
      endTask = end
    }

    public func begin(name: String, onExpiry: @escaping @Sendable () -> Void) async -> BackgroundActivityLease {
      let identifier = LockedValue<Int?>(nil)
      let endTask = self.endTask
      let lease = BackgroundActivityLease {
        guard let id = identifier.get() else { return }
        if Thread.isMainThread {
          MainActor.assumeIsolated { endTask(id) }
        } else {
          Task { @MainActor in endTask(id) }
        }
      }
      let granted = await MainActor.run { () -> Bool in
        let id = beginTask(name) {
          onExpiry()
          lease.end()
        }
        identifier.set(id)
        return id != nil
      }
      if !granted { onExpiry() }
      return lease
    }
  }
#endif
