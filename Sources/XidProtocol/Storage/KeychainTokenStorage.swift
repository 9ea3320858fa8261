import Foundation

/// Token storage in the keychain: the default on Apple platforms.
///
/// Each key is a generic-password item (service = ``service``, account = the key) that is never
/// synchronized to iCloud, is readable by default after the first unlock on this device only
/// (`kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`, so App Intents and widgets can read it while
/// the device is locked), and, with an ``accessGroup``, shared by the app and its extensions.
///
/// Writes update the existing item first and add it only when it is absent. Statuses that do not mean
/// "signed out" are reported as such: `errSecInteractionNotAllowed` (device locked, or the app was
/// prewarmed before first unlock) becomes ``XidError/Code/storageLocked``, and
/// `errSecMissingEntitlement` (-34018) becomes ``XidError/Code/missingEntitlement`` naming the group.
///
/// On other platforms the type exists so that its logic can be tested with a fake ``Backend``.
public struct KeychainTokenStorage: TokenStorageAdapter {
  /// When the items can be read (`kSecAttrAccessible…`).
  public enum Accessibility: String, Sendable, Hashable {
    /// After the first unlock since boot, this device only (the default: extensions can read tokens
    /// while the device is locked).
    case afterFirstUnlockThisDeviceOnly
    /// Only while the device is unlocked, this device only.
    case whenUnlockedThisDeviceOnly
    /// Only while the device is unlocked and has a passcode, this device only.
    case whenPasscodeSetThisDeviceOnly
  }

  /// One keychain item, as the storage addresses it.
  public struct Item: Sendable, Hashable {
    /// `kSecAttrService`.
    public var service: String
    /// `kSecAttrAccount`; `nil` when listing all items of the service.
    public var account: String?
    /// `kSecAttrAccessGroup`, the full team-prefixed group.
    public var accessGroup: String?
    /// `kSecAttrAccessible`.
    public var accessibility: Accessibility
  }

  /// The `SecItem` calls the storage makes. The system one is used on Apple platforms; tests use a fake
  /// that returns the real status codes.
  public protocol Backend: Sendable {
    /// `SecItemUpdate` of the item's data and accessibility.
    func update(_ item: Item, data: Data) -> Int32
    /// `SecItemAdd` of the item with its data.
    func add(_ item: Item, data: Data) -> Int32
    /// `SecItemCopyMatching` returning the item's data.
    func copyData(_ item: Item) -> (status: Int32, data: Data?)
    /// `SecItemDelete` of the item.
    func delete(_ item: Item) -> Int32
    /// `SecItemCopyMatching` returning the accounts of every item of the service and group.
    func copyAccounts(_ item: Item) -> (status: Int32, accounts: [String])
  }

  /// The keychain's status codes this storage interprets (from `SecBase.h`).
  public enum Status {
    /// `errSecSuccess`.
    public static let success: Int32 = 0
    /// `errSecItemNotFound`.
    public static let itemNotFound: Int32 = -25300
    /// `errSecDuplicateItem`.
    public static let duplicateItem: Int32 = -25299
    /// `errSecInteractionNotAllowed`: the device is locked, or the item needs user interaction.
    public static let interactionNotAllowed: Int32 = -25308
    /// `errSecMissingEntitlement`: the access group is not in the app's entitlements.
    public static let missingEntitlement: Int32 = -34018
  }

  /// The items' service.
  public let service: String
  /// The keychain access group shared with the app's extensions, if any.
  public let accessGroup: String?
  /// When the items can be read.
  public let accessibility: Accessibility
  /// Where the cross-process refresh lock lives: the App Group container shared with the extensions.
  public let refreshLockDirectory: URL?
  private let backend: any Backend

  /// Creates a keychain storage with an explicit backend (tests use a fake one).
  ///
  /// - Parameters:
  ///   - service: the items' service, by default `"dev.xid.tokens"`.
  ///   - accessGroup: the full, team-prefixed keychain access group (`"ABCDE12345.com.example.shared"`)
  ///     shared by the app and its extensions; `nil` for the app's default group.
  ///   - accessibility: when items can be read.
  ///   - refreshLockDirectory: a directory every sharing process can write (the App Group container),
  ///     for the lock that keeps two processes from refreshing at once.
  public init(
    service: String = "dev.xid.tokens", accessGroup: String? = nil,
    accessibility: Accessibility = .afterFirstUnlockThisDeviceOnly, refreshLockDirectory: URL? = nil,
    backend: any Backend
  ) {
    self.service = service
    self.accessGroup = accessGroup
    self.accessibility = accessibility
    self.refreshLockDirectory = refreshLockDirectory
    self.backend = backend
  }

  /// The directory of the refresh lock in an App Group container: its `Xid` folder, which Xid creates
  /// (mode 0700) the first time it takes the lock.
  public static func refreshLockDirectory(inAppGroupContainer container: URL) -> URL {
    container.appendingPathComponent("Xid", isDirectory: true)
  }

  private func item(_ account: String?) -> Item {
    Item(service: service, account: account, accessGroup: accessGroup, accessibility: accessibility)
  }

  public func save(key: String, value: String) throws {
    let data = Data(value.utf8)
    var status = backend.update(item(key), data: data)
    if status == Status.itemNotFound {
      status = backend.add(item(key), data: data)
      // Another process added it between our update and add: update that one.
      if status == Status.duplicateItem { status = backend.update(item(key), data: data) }
    }
    try check(status, "save")
  }

  public func load(key: String) throws -> String? {
    let (status, data) = backend.copyData(item(key))
    if status == Status.itemNotFound { return nil }
    try check(status, "read")
    guard let data else { throw XidError(.storageFailure, "the keychain returned no data for an existing item") }
    return String(decoding: data, as: UTF8.self)
  }

  public func delete(key: String) throws {
    let status = backend.delete(item(key))
    if status == Status.itemNotFound { return }
    try check(status, "delete")
  }

  /// The stored keys that start with `prefix`: for tools and tests, since Xid itself lists no keys.
  public func keys(withPrefix prefix: String) throws -> [String] {
    let (status, accounts) = backend.copyAccounts(item(nil))
    if status == Status.itemNotFound { return [] }
    try check(status, "list")
    return accounts.filter { $0.hasPrefix(prefix) }.sorted()
  }

  private func check(_ status: Int32, _ operation: String) throws {
    switch status {
    case Status.success: return
    case Status.interactionNotAllowed:
      throw XidError(
        .storageLocked,
        "the keychain cannot \(operation) tokens while the device is locked (errSecInteractionNotAllowed); the user is still signed in, try again after unlock"
      )
    case Status.missingEntitlement:
      throw XidError(
        .missingEntitlement,
        "the keychain refused access group \"\(accessGroup ?? "(default)")\" (errSecMissingEntitlement, -34018): add it to the Keychain Sharing entitlement of the app and of each extension"
      )
    default:
      throw XidError(.storageFailure, "the keychain could not \(operation) tokens (OSStatus \(status))")
    }
  }
}
