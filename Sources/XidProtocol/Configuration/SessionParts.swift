/// The parts a session runs on: the network, the token store, the clock, how the user signs in, the
/// time the system grants, where DPoP keys are made and where log messages go.
///
/// A part left `nil` is the platform's: the `Xid` module fills it in (``XidConfiguration`` explains
/// which); a program that links `XidCore` alone gives the transport and the storage it needs.
public struct SessionParts: Sendable {
  /// The HTTP transport for the provider and for authorized requests. `nil` uses the platform's:
  /// the `Xid` module fills in `URLSessionTransport`; a program that links `XidCore` alone passes one.
  public var transport: (any HTTPTransport)?
  /// Where the session's state is kept. `nil` uses the platform's: the `Xid` module fills in the
  /// keychain on Apple platforms and ``FileTokenStorage`` elsewhere (`Xid.setTokenStorage(_:)` sets it
  /// too); `SessionEngine` needs one.
  public var storage: (any TokenStorageAdapter)?
  /// The one time source of the session, its protocol engine and its locks: expiry, validation,
  /// timeouts and polling read it, and tests move it.
  public var clock: any XidClock
  /// How the user signs in: a browser, a web authentication session, a test provider's user. `nil`
  /// uses the platform's default: `WebAuthenticationSessionUserAgent` on iOS and visionOS, and on macOS
  /// for a redirect URI that is not loopback; `LoopbackUserAgent` for a loopback redirect URI on
  /// macOS, and on Linux.
  public var userAgent: (any AuthorizationUserAgent)?
  /// The time the system grants for a refresh, a sign-in's save or a sign-out, during which Xid holds
  /// the account's lock. `nil` uses the platform's: the `Xid` module fills in
  /// `ProcessExpiringActivity` on iOS (safe in app extensions); an app may pass a
  /// `BackgroundTaskActivity` built on `UIApplication.beginBackgroundTask`. Elsewhere, none.
  public var backgroundActivity: (any BackgroundActivity)?
  /// Where DPoP keys are made when ``SessionPolicy/usesDPoP`` is on. `nil` uses the platform's: the
  /// `Xid` module picks the Secure Enclave on Apple devices that have one; otherwise
  /// ``SoftwareDPoPKeyFactory``.
  public var dpopKeyFactory: (any DPoPKeyFactory)?
  /// Where Xid's log messages go.
  public var logger: any XidLogger
  /// How the processes sharing the storage tell one another that the session changed, for
  /// `SessionEngine.events()`. `nil` uses the platform's: the `Xid` module fills in a Darwin
  /// notification named from the keychain access group on Apple platforms, and
  /// ``FileTokenStorage/changeSignal`` (an inotify watch of its folder) on Linux; the engine uses
  /// the latter for a ``FileTokenStorage`` too. Otherwise none: events then report this process's
  /// changes only. Set it after ``init(transport:storage:clock:userAgent:backgroundActivity:dpopKeyFactory:logger:)``.
  public var changeSignal: (any SessionChangeSignal)?
  /// Where an app family's records are kept (``ClientIdentity/family``): a storage every app of
  /// the family reads, such as a keychain storage in the family's shared access group
  /// (`ThisDeviceOnly`), whose `refreshLockDirectory` (in the family's App Group) holds the family's
  /// lock. `nil` uses ``storage``: then the apps of the family share that one. Set it after
  /// ``init(transport:storage:clock:userAgent:backgroundActivity:dpopKeyFactory:logger:)``.
  public var familyStorage: (any TokenStorageAdapter)?

  /// Creates the parts; each one left out is the platform's (or, for the clock and logger, the
  /// system's).
  ///
  /// - Parameters:
  ///   - transport: the HTTP transport; `nil` for the platform's.
  ///   - storage: where the session's state is kept; `nil` for the platform's.
  ///   - clock: the time source, ``SystemClock`` by default.
  ///   - userAgent: how the user signs in; `nil` for the platform's.
  ///   - backgroundActivity: the time asked of the system while the account's lock is held; `nil`
  ///     for the platform's.
  ///   - dpopKeyFactory: where DPoP keys are made; `nil` for the platform's.
  ///   - logger: where log messages go, ``defaultXidLogger()`` by default.
  public init(
    transport: (any HTTPTransport)? = nil, storage: (any TokenStorageAdapter)? = nil,
    clock: any XidClock = SystemClock(), userAgent: (any AuthorizationUserAgent)? = nil,
    backgroundActivity: (any BackgroundActivity)? = nil, dpopKeyFactory: (any DPoPKeyFactory)? = nil,
    logger: any XidLogger = defaultXidLogger()
  ) {
    self.transport = transport
    self.storage = storage
    self.clock = clock
    self.userAgent = userAgent
    self.backgroundActivity = backgroundActivity
    self.dpopKeyFactory = dpopKeyFactory
    self.logger = logger
    self.changeSignal = nil
    self.familyStorage = nil
  }
}
