import Foundation
import Testing
import Xid
import XidTestSupport

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

func temporaryDirectory() -> URL {
  FileManager.default.temporaryDirectory.appendingPathComponent("xid-tests-\(UUID().uuidString)", isDirectory: true)
}

func permissions(_ path: String) -> mode_t {
  var info = stat()
  stat(path, &info)
  return info.st_mode & 0o777
}

struct FileTokenStorageTests {
  @Test func storesLoadsAndDeletesValues() throws {
    let storage = try FileTokenStorage(directory: temporaryDirectory())
    #expect(try storage.load(key: "xid.a") == nil)
    try storage.save(key: "xid.a", value: "first")
    try storage.save(key: "xid.a", value: "second")
    try storage.save(key: "other/..\\key é", value: "x")
    #expect(try storage.load(key: "xid.a") == "second")
    #expect(try storage.load(key: "other/..\\key é") == "x")
    #expect(try storage.keys(withPrefix: "xid.") == ["xid.a"])
    try storage.delete(key: "xid.a")
    try storage.delete(key: "xid.a")
    #expect(try storage.load(key: "xid.a") == nil)
  }

  @Test func createsAPrivateDirectoryAndPrivateFiles() throws {
    let directory = temporaryDirectory()
    try FileManager.default.createDirectory(
      at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
    let storage = try FileTokenStorage(directory: directory)
    try storage.save(key: "k", value: "v")
    #expect(permissions(directory.path) == 0o700)
    #expect(permissions(directory.appendingPathComponent("k").path) == 0o600)
  }

  @Test func createsMissingParentsPrivateAndReadsADirectoryWhoseNameNeedsEscaping() throws {
    let parent = temporaryDirectory()
    let directory = parent.appendingPathComponent("a b%20c/é/state", isDirectory: true)
    let storage = try FileTokenStorage(directory: directory)
    try storage.save(key: "k", value: "v")
    #expect(permissions(directory.path) == 0o700)
    #expect(FileManager.default.fileExists(atPath: parent.path + "/a b%20c/é/state/k"))
    #expect(try FileTokenStorage(directory: directory).load(key: "k") == "v")
  }

  @Test func aFileWhereTheDirectoryShouldBeIsAStorageFailure() throws {
    let parent = temporaryDirectory()
    try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
    let file = parent.appendingPathComponent("tokens")
    try Data("not a directory".utf8).write(to: file)
    let error = expectXidError(.storageFailure) { try FileTokenStorage(directory: file) }
    #expect(error?.reason.contains(file.path) == true)
  }

  @Test func aFileWhereTheDirectoryShouldBeKeepsItsPermissions() throws {
    let parent = temporaryDirectory()
    try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
    let file = parent.appendingPathComponent("tokens")
    try Data("not a directory".utf8).write(to: file)
    chmod(file.path, 0o644)
    let link = parent.appendingPathComponent("link")
    try FileManager.default.createSymbolicLink(at: link, withDestinationURL: file)
    for path in [file, link] {
      let error = expectXidError(.storageFailure) { try FileTokenStorage(directory: path) }
      #expect(error?.reason.contains("not a directory") == true)
    }
    #expect(permissions(file.path) == 0o644)
  }

  @Test func aFileOnTheDirectorysPathIsAStorageFailure() throws {
    let parent = temporaryDirectory()
    try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
    let file = parent.appendingPathComponent("tokens")
    try Data("not a directory".utf8).write(to: file)
    let directory = file.appendingPathComponent("state", isDirectory: true)
    let error = expectXidError(.storageFailure) { try FileTokenStorage(directory: directory) }
    #expect(error?.reason.contains(directory.path) == true)
  }

  @Test func leavesNoTemporaryFilesBehind() throws {
    let storage = try FileTokenStorage(directory: temporaryDirectory())
    for index in 0..<20 { try storage.save(key: "k", value: String(repeating: "v", count: index * 100)) }
    #expect(try FileManager.default.contentsOfDirectory(atPath: storage.directory.path) == ["k"])
  }

  /// A writer killed between creating its temporary file and the rename leaves a whole record in it.
  /// Writing or removing the key removes the temporary files of its writers that are gone; those of
  /// a live writer (another process, whose write outside the account's lock may be in flight), of
  /// another key, and of another machine or container stay.
  @Test func theTemporaryFilesOfWritersThatAreGoneGoWhenTheKeyIsWrittenOrRemoved() throws {
    let directory = temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let storage = try FileTokenStorage(directory: directory)
    let key = "xid.tokens.abc"
    let dead = try Self.pidOfAProcessThatHasEnded()
    let live = try Self.runningProcess()
    defer {
      kill(live.processIdentifier, SIGKILL)
      live.waitUntilExit()
    }
    func leave(_ key: String, pid: pid_t, space: String = FileTokenStorage.pidSpace) throws -> String {
      let name = FileTokenStorage.temporaryFileName(forKey: key, pid: pid, space: space)
      try Data(#"{"refresh_token":"left behind"}"#.utf8).write(to: directory.appendingPathComponent(name))
      return name
    }
    func files() throws -> Set<String> { Set(try FileManager.default.contentsOfDirectory(atPath: directory.path)) }
    _ = try leave(key, pid: dead)
    _ = try leave(key, pid: dead)
    let inFlight = try leave(key, pid: live.processIdentifier)
    let ours = try leave(key, pid: getpid())
    let otherKey = try leave(key + ".2", pid: dead)
    let otherMachine = try leave(key, pid: dead, space: "0badf00d")
    let kept: Set = [inFlight, ours, otherKey, otherMachine]

    try storage.save(key: key, value: "new")
    #expect(try files() == kept.union([key]))
    _ = try leave(key, pid: dead)
    try storage.delete(key: key)
    #expect(try files() == kept)
  }

  /// The pid of a process that has ended and been reaped: no process has it (until the system
  /// hands it out again, which takes many new processes).
  static func pidOfAProcessThatHasEnded() throws -> pid_t {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", "exit 0"]
    try process.run()
    process.waitUntilExit()
    #expect(kill(process.processIdentifier, 0) == -1 && errno == ESRCH)
    return process.processIdentifier
  }

  /// A process that runs until the test kills it (`SIGKILL`: a test runner may ignore `SIGTERM`,
  /// and its children with it).
  static func runningProcess() throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", "exec sleep 60"]
    try process.run()
    return process
  }

  @Test func readersNeverSeeHalfAWrite() async throws {
    let storage = try FileTokenStorage(directory: temporaryDirectory())
    let values = (0..<4).map { String(repeating: Character(String($0)), count: 64 * 1024) }
    try storage.save(key: "k", value: values[0])
    try await withThrowingTaskGroup(of: Void.self) { group in
      group.addTask {
        for round in 0..<200 { try storage.save(key: "k", value: values[round % values.count]) }
      }
      group.addTask {
        for _ in 0..<400 {
          let read = try storage.load(key: "k")
          #expect(read.map(values.contains) == true)
        }
      }
      try await group.waitForAll()
    }
  }

  @Test func defaultDirectoryFollowsXDGStateHome() {
    #expect(FileTokenStorage.defaultDirectory(environment: ["XDG_STATE_HOME": "/s", "HOME": "/h"]).path == "/s/xid")
    #expect(FileTokenStorage.defaultDirectory(environment: ["HOME": "/h"]).path == "/h/.local/state/xid")
    #expect(
      FileTokenStorage.defaultDirectory(environment: ["XDG_STATE_HOME": "rel", "HOME": "/h"]).path
        == "/h/.local/state/xid")
  }
}

struct FileLockTests {
  @Test func aSecondHolderWaitsAndTimesOutWithoutBlocking() async throws {
    let directory = temporaryDirectory()
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let lock = FileLock(directory: directory, name: "refresh.lock")
    // A second open file description of the same file conflicts with the first, as another process would.
    let first = try await lock.acquire()
    let error = await expectXidError(.lockTimeout) { try await lock.acquire(timeout: .milliseconds(100)) }
    #expect(error?.reason.contains("refresh.lock") == true)
    first.release()
    first.release()
    let second = try await lock.acquire(timeout: .seconds(1))
    second.release()
  }

  @Test func aWaiterGetsTheLockAsSoonAsItIsReleased() async throws {
    let directory = temporaryDirectory()
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let lock = FileLock(directory: directory, name: "refresh.lock")
    let first = try await lock.acquire()
    let waiter = Task { try await lock.acquire(timeout: .seconds(5)) }
    try await Task.sleep(for: .milliseconds(50))
    first.release()
    try await waiter.value.release()
  }
}

struct FileLockFolderTests {
  @Test func theLockFolderIsCreatedPrivateWhereTheLockIsTaken() async throws {
    let container = temporaryDirectory()
    try FileManager.default.createDirectory(at: container, withIntermediateDirectories: true)
    let folder = container.appendingPathComponent("Xid", isDirectory: true)
    let holder = try await FileLock(directory: folder, name: ".refresh.lock").acquire(timeout: .seconds(1))
    holder.release()
    #expect(permissions(folder.path) == 0o700)
  }
}

/// A keychain that behaves like `SecItem*`, returning the real status codes.
final class FakeKeychain: KeychainTokenStorage.Backend, @unchecked Sendable {
  private let lock = NSLock()
  private var items: [String: (data: Data, accessibility: KeychainTokenStorage.Accessibility, group: String?)] = [:]
  /// A status every call returns instead of doing its work (a locked device, a missing entitlement).
  var forcedStatus: Int32?
  private(set) var calls: [String] = []

  private func key(_ item: KeychainTokenStorage.Item) -> String {
    "\(item.service)|\(item.accessGroup ?? "")|\(item.account ?? "")"
  }

  private func perform<R>(_ name: String, _ forced: (Int32) -> R, _ body: () -> R) -> R {
    lock.withLock {
      calls.append(name)
      if let forcedStatus { return forced(forcedStatus) }
      return body()
    }
  }

  func update(_ item: KeychainTokenStorage.Item, data: Data) -> Int32 {
    perform("update", { $0 }) {
      guard items[key(item)] != nil else { return KeychainTokenStorage.Status.itemNotFound }
      items[key(item)] = (data, item.accessibility, item.accessGroup)
      return KeychainTokenStorage.Status.success
    }
  }

  func add(_ item: KeychainTokenStorage.Item, data: Data) -> Int32 {
    perform("add", { $0 }) {
      guard items[key(item)] == nil else { return KeychainTokenStorage.Status.duplicateItem }
      items[key(item)] = (data, item.accessibility, item.accessGroup)
      return KeychainTokenStorage.Status.success
    }
  }

  func copyData(_ item: KeychainTokenStorage.Item) -> (status: Int32, data: Data?) {
    perform("copy", { ($0, nil) }) {
      guard let stored = items[key(item)] else { return (KeychainTokenStorage.Status.itemNotFound, nil) }
      return (KeychainTokenStorage.Status.success, stored.data)
    }
  }

  func delete(_ item: KeychainTokenStorage.Item) -> Int32 {
    perform("delete", { $0 }) {
      items.removeValue(forKey: key(item)) == nil
        ? KeychainTokenStorage.Status.itemNotFound : KeychainTokenStorage.Status.success
    }
  }

  func copyAccounts(_ item: KeychainTokenStorage.Item) -> (status: Int32, accounts: [String]) {
    perform("list", { ($0, []) }) {
      let prefix = "\(item.service)|\(item.accessGroup ?? "")|"
      let accounts = items.keys.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
      return (
        accounts.isEmpty ? KeychainTokenStorage.Status.itemNotFound : KeychainTokenStorage.Status.success, accounts
      )
    }
  }

  func accessibility(service: String, group: String?, account: String) -> KeychainTokenStorage.Accessibility? {
    lock.withLock { items["\(service)|\(group ?? "")|\(account)"]?.accessibility }
  }
}

struct KeychainTokenStorageTests {
  @Test func updatesFirstAndAddsOnlyWhenAbsent() throws {
    let keychain = FakeKeychain()
    let storage = KeychainTokenStorage(accessGroup: "TEAM.com.example.shared", backend: keychain)
    try storage.save(key: "k", value: "one")
    try storage.save(key: "k", value: "two")
    #expect(keychain.calls == ["update", "add", "update"])
    #expect(try storage.load(key: "k") == "two")
    #expect(
      keychain.accessibility(service: "dev.xid.tokens", group: "TEAM.com.example.shared", account: "k")
        == .afterFirstUnlockThisDeviceOnly)
    #expect(try storage.keys(withPrefix: "") == ["k"])
    try storage.delete(key: "k")
    try storage.delete(key: "k")
    #expect(try storage.load(key: "k") == nil)
    #expect(try storage.keys(withPrefix: "") == [])
  }

  @Test func aLockedDeviceIsReportedAsStorageLockedNeverAsSignedOut() {
    let keychain = FakeKeychain()
    keychain.forcedStatus = KeychainTokenStorage.Status.interactionNotAllowed
    let storage = KeychainTokenStorage(backend: keychain)
    expectXidError(.storageLocked) { try storage.load(key: "k") }
    expectXidError(.storageLocked) { try storage.save(key: "k", value: "v") }
  }

  @Test func aMissingEntitlementNamesTheAccessGroupToAdd() {
    let keychain = FakeKeychain()
    keychain.forcedStatus = KeychainTokenStorage.Status.missingEntitlement
    let storage = KeychainTokenStorage(accessGroup: "TEAM.com.example.shared", backend: keychain)
    let error = expectXidError(.missingEntitlement) { try storage.load(key: "k") }
    #expect(error?.reason.contains("TEAM.com.example.shared") == true)
  }

  @Test func otherStatusesAreStorageFailures() {
    let keychain = FakeKeychain()
    keychain.forcedStatus = -50
    let error = expectXidError(.storageFailure) { try KeychainTokenStorage(backend: keychain).delete(key: "k") }
    #expect(error?.reason.contains("-50") == true)
  }
}
