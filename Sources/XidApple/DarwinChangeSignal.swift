#if canImport(Darwin) && canImport(CoreFoundation)
  import CoreFoundation
  import Foundation
  import XidCore
  import XidProtocol

  /// The change signal of a keychain access group on Apple platforms: a Darwin notification
  /// (`CFNotificationCenterGetDarwinNotifyCenter`) named `"<group>.xid.session-changed"`, which the
  /// app, its extensions and widgets of that group post after each write of the session and observe.
  ///
  /// A Darwin notification carries no data: a process that receives one reads the record again. The
  /// posting process receives its own too. The observer is registered for the first stream of
  /// ``changes()`` and removed after the last one ends; bursts are coalesced (each stream keeps at
  /// most one signal waiting).
  public final class DarwinChangeSignal: SessionChangeSignal {
    /// The notification's name.
    public let name: String
    private let hub: ChangeSignalHub

    /// The signal of `accessGroup` (the full, team-prefixed keychain access group); `nil` without
    /// one (an app's own keychain, which no other process reads).
    public init?(accessGroup: String?) {
      guard let name = sessionChangeNotificationName(accessGroup: accessGroup) else { return nil }
      self.name = name
      hub = ChangeSignalHub { fire in Self.observe(name, fire: fire) }
    }

    /// Posts the notification to every process observing it, this one included.
    public func post() {
      CFNotificationCenterPostNotification(
        CFNotificationCenterGetDarwinNotifyCenter(), CFNotificationName(name as CFString), nil, nil, true)
    }

    /// The notifications as they arrive, bursts coalesced.
    public func changes() -> AsyncStream<Void> { hub.changes() }

    /// What the C callback reaches through the observer pointer.
    private final class Receiver: @unchecked Sendable {
      let fire: @Sendable () -> Void
      init(fire: @escaping @Sendable () -> Void) { self.fire = fire }
    }

    /// Registers the observer of `name`; returns what removes it.
    private static func observe(_ name: String, fire: @escaping @Sendable () -> Void) -> (@Sendable () -> Void)? {
      let center = CFNotificationCenterGetDarwinNotifyCenter()
      let receiver = Unmanaged.passRetained(Receiver(fire: fire))
      let pointer = UnsafeRawPointer(receiver.toOpaque())
      CFNotificationCenterAddObserver(
        center, pointer,
        { _, observer, _, _, _ in
          guard let observer else { return }
          Unmanaged<Receiver>.fromOpaque(observer).takeUnretainedValue().fire()
        }, name as CFString, nil, .deliverImmediately)
      let address = UInt(bitPattern: pointer)
      return {
        guard let pointer = UnsafeRawPointer(bitPattern: address) else { return }
        CFNotificationCenterRemoveObserver(
          CFNotificationCenterGetDarwinNotifyCenter(), pointer, CFNotificationName(name as CFString), nil)
        Unmanaged<Receiver>.fromOpaque(pointer).release()
      }
    }
  }
#endif
