import Foundation
import XidCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A stand-in for the system keychain whose items are files in a directory, so that several processes
/// share them as an app and its extensions share a keychain access group. It returns the real
/// `SecItem` status codes, and serializes its calls across processes with a lock file, as the
/// keychain daemon does.
///
/// Two files in the directory change how it answers, for every process at once:
/// - `locked` (``lock()``): every call returns `errSecInteractionNotAllowed`, as on a locked device;
/// - `fail-writes` (``failNextWrites(_:)``): holds a count; that many writes (`update`, `add`) fail
///   with `errSecIO` before the item changes;
/// - `fail-reads` (``failNextReads(_:)``): holds a count; that many reads of an item (`copyData`)
///   fail with `errSecInteractionNotAllowed`, as while a device locks with an item readable only
///   when unlocked.
public struct FileKeychainBackend: KeychainTokenStorage.Backend {
  /// `errSecIO`: an I/O error.
  public static let ioError: Int32 = -36

  /// Where the items are.
  public let directory: URL

  /// A keychain in `directory`, created (mode 0700) when missing.
  public init(directory: URL) throws {
    self.directory = directory
    try FileManager.default.createDirectory(
      at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
  }

  // MARK: Conditions

  /// Makes every call fail with `errSecInteractionNotAllowed` until ``unlock()``.
  public func lock() throws { try Data().write(to: directory.appendingPathComponent("locked")) }

  /// Ends ``lock()``.
  public func unlock() throws {
    try? FileManager.default.removeItem(at: directory.appendingPathComponent("locked"))
  }

  /// Makes the next `count` writes fail with `errSecIO`, whichever process makes them.
  public func failNextWrites(_ count: Int) throws {
    try Data(String(count).utf8).write(to: directory.appendingPathComponent("fail-writes"))
  }

  /// How many of the writes ``failNextWrites(_:)`` asked to fail have not failed yet.
  public var pendingWriteFailures: Int {
    (try? String(contentsOf: directory.appendingPathComponent("fail-writes"), encoding: .utf8)).flatMap { Int($0) } ?? 0
  }

  /// Makes the next `count` reads of an item fail with `errSecInteractionNotAllowed`, whichever
  /// process makes them.
  public func failNextReads(_ count: Int) throws {
    try Data(String(count).utf8).write(to: directory.appendingPathComponent("fail-reads"))
  }

  /// How many of the reads ``failNextReads(_:)`` asked to fail have not failed yet.
  public var pendingReadFailures: Int {
    (try? String(contentsOf: directory.appendingPathComponent("fail-reads"), encoding: .utf8)).flatMap { Int($0) } ?? 0
  }

  /// The accounts of the items stored, for assertions.
  public func storedAccounts() -> [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    return names.filter { $0.hasPrefix("item-") }.compactMap { Self.decode(String($0.dropFirst(5))) }
      .compactMap { $0.split(separator: "|", omittingEmptySubsequences: false).last.map(String.init) }.sorted()
  }

  // MARK: Backend

  public func update(_ item: KeychainTokenStorage.Item, data: Data) -> Int32 {
    serialized(write: true) {
      guard FileManager.default.fileExists(atPath: path(item)) else { return KeychainTokenStorage.Status.itemNotFound }
      return store(data, at: path(item))
    }
  }

  public func add(_ item: KeychainTokenStorage.Item, data: Data) -> Int32 {
    serialized(write: true) {
      guard !FileManager.default.fileExists(atPath: path(item)) else {
        return KeychainTokenStorage.Status.duplicateItem
      }
      return store(data, at: path(item))
    }
  }

  public func copyData(_ item: KeychainTokenStorage.Item) -> (status: Int32, data: Data?) {
    var data: Data?
    let status = serialized(write: false) {
      if consumeFailure(of: "fail-reads") { return KeychainTokenStorage.Status.interactionNotAllowed }
      guard let contents = FileManager.default.contents(atPath: path(item)) else {
        return KeychainTokenStorage.Status.itemNotFound
      }
      data = contents
      return KeychainTokenStorage.Status.success
    }
    return (status, data)
  }

  public func delete(_ item: KeychainTokenStorage.Item) -> Int32 {
    serialized(write: false) {
      unlink(path(item)) == 0 ? KeychainTokenStorage.Status.success : KeychainTokenStorage.Status.itemNotFound
    }
  }

  public func copyAccounts(_ item: KeychainTokenStorage.Item) -> (status: Int32, accounts: [String]) {
    var accounts: [String] = []
    let status = serialized(write: false) {
      let prefix = "\(item.service)|\(item.accessGroup ?? "")|"
      let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
      accounts = names.filter { $0.hasPrefix("item-") }.compactMap { Self.decode(String($0.dropFirst(5))) }
        .filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
      return accounts.isEmpty ? KeychainTokenStorage.Status.itemNotFound : KeychainTokenStorage.Status.success
    }
    return (status, accounts)
  }

  // MARK: Files

  private func path(_ item: KeychainTokenStorage.Item) -> String {
    let name = "\(item.service)|\(item.accessGroup ?? "")|\(item.account ?? "")"
    return directory.appendingPathComponent("item-" + name.utf8.map { String(format: "%02x", $0) }.joined()).path
  }

  private static func decode(_ hex: String) -> String? {
    var bytes: [UInt8] = []
    var index = hex.startIndex
    while index < hex.endIndex {
      let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) ?? hex.endIndex
      guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
      bytes.append(byte)
      index = next
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Writes `data` whole: a temporary file renamed over the item.
  private func store(_ data: Data, at path: String) -> Int32 {
    let temporary = path + ".\(UInt32.random(in: .min ... .max)).tmp"
    guard FileManager.default.createFile(atPath: temporary, contents: data), rename(temporary, path) == 0 else {
      unlink(temporary)
      return Self.ioError
    }
    return KeychainTokenStorage.Status.success
  }

  /// Runs `body` holding the keychain's lock file, after the conditions are checked.
  private func serialized(write: Bool, _ body: () -> Int32) -> Int32 {
    let fd = open(directory.appendingPathComponent(".keychain.lock").path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    guard fd >= 0 else { return Self.ioError }
    defer { close(fd) }
    while flock(fd, LOCK_EX) != 0 {
      guard errno == EINTR else { return Self.ioError }
    }
    defer { flock(fd, LOCK_UN) }
    if FileManager.default.fileExists(atPath: directory.appendingPathComponent("locked").path) {
      return KeychainTokenStorage.Status.interactionNotAllowed
    }
    if write, consumeFailure(of: "fail-writes") { return Self.ioError }
    return body()
  }

  /// Counts down the file `name` (`fail-writes`, `fail-reads`): whether this call fails.
  private func consumeFailure(of name: String) -> Bool {
    let url = directory.appendingPathComponent(name)
    guard let text = try? String(contentsOf: url, encoding: .utf8), let count = Int(text), count > 0 else {
      return false
    }
    if count == 1 {
      try? FileManager.default.removeItem(at: url)
    } else {
      try? Data(String(count - 1).utf8).write(to: url)
    }
    return true
  }
}
