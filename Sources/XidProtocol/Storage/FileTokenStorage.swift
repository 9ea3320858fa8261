import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Token storage in files, for macOS and Linux programs: one file per key in a private directory.
///
/// The directory is created with mode 0700 and each file with mode 0600. Every write goes to a
/// temporary file that is flushed to disk (`fsync`) and then renamed over the old one, so a reader or a
/// crash never sees half a record. Several processes may share the directory; Xid coordinates their
/// refreshes with a lock file in it.
///
/// A writer that dies between creating its temporary file and the rename (`kill -9`, a power cut)
/// leaves a whole record in it. Each temporary file is named for its writer (its pid, and where that
/// pid means something: the host and pid namespace), and writing or deleting a key removes the
/// temporary files of that key whose writer no longer exists (`kill(pid, 0)` fails with `ESRCH`).
/// Those of a live writer stay, since its write may be in flight, as are those of another machine or
/// container sharing the directory. A dead writer's pid given to a new process keeps its file until
/// that process ends too. Temporary files of versions before this naming are left alone.
public struct FileTokenStorage: TokenStorageAdapter {
  /// The directory the files live in.
  public let directory: URL
  /// The directory's path, without a trailing slash.
  private let directoryPath: String

  /// Uses `directory`, or by default `$XDG_STATE_HOME/xid`, else `~/.local/state/xid`.
  ///
  /// - Throws: ``XidError/Code/storageFailure`` when the directory cannot be created, or something
  ///   other than a directory is in its place.
  public init(directory: URL? = nil) throws {
    self.directory = directory ?? Self.defaultDirectory()
    directoryPath = self.directory.fileSystemPath
    try Self.makePrivateDirectory(directoryPath)
  }

  /// `$XDG_STATE_HOME/xid`, or `~/.local/state/xid` when the variable is unset or not absolute.
  public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
    if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
      return URL(fileURLWithPath: state, isDirectory: true).appendingPathComponent("xid", isDirectory: true)
    }
    let home =
      environment["HOME"].map { URL(fileURLWithPath: $0, isDirectory: true) }
      ?? URL(fileURLWithPath: NSHomeDirectory(), isDirectory: true)
    return home.appendingPathComponent(".local/state/xid", isDirectory: true)
  }

  /// Where the cross-process refresh lock lives: this directory.
  public var refreshLockDirectory: URL? { directory }

  /// How the processes sharing this directory learn of one another's changes: on Linux a
  /// ``FolderChangeSignal`` (an inotify watch of the directory); elsewhere none
  /// (``NoChangeSignal``), and events then report this process's changes only.
  public var changeSignal: any SessionChangeSignal {
    #if os(Linux)
      FolderChangeSignal(directory: directory)
    #else
      NoChangeSignal()
    #endif
  }

  public func save(key: String, value: String) throws {
    let path = self.path(for: key)
    let temporary = directoryPath + "/" + Self.temporaryFileName(forKey: key, pid: getpid())
    defer { removeStaleTemporaryFiles(of: key) }
    let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw Self.failure("create a temporary file in", directoryPath) }
    let bytes = Array(value.utf8)
    var written = 0
    var ok = true
    while written < bytes.count {
      let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, $0.count - written) }
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else {
        ok = false
        break
      }
      written += n
    }
    ok = ok && fsync(fd) == 0
    let savedErrno = errno
    close(fd)
    guard ok, rename(temporary, path) == 0 else {
      errno = savedErrno
      let error = Self.failure("write", path)
      unlink(temporary)
      throw error
    }
    syncDirectory()
  }

  public func load(key: String) throws -> String? {
    let path = self.path(for: key)
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    if fd < 0 {
      if errno == ENOENT { return nil }
      throw Self.failure("open", path)
    }
    defer { close(fd) }
    var data = [UInt8]()
    var buffer = [UInt8](repeating: 0, count: 16 * 1024)
    while true {
      let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if n < 0 && errno == EINTR { continue }
      guard n >= 0 else { throw Self.failure("read", path) }
      if n == 0 { break }
      data.append(contentsOf: buffer[0..<n])
      guard data.count <= 1 << 20 else {
        throw XidError(.storageFailure, "the file \(path) is larger than 1 MiB; it is not an Xid record")
      }
    }
    return String(decoding: data, as: UTF8.self)
  }

  public func delete(key: String) throws {
    let path = self.path(for: key)
    defer { removeStaleTemporaryFiles(of: key) }
    guard unlink(path) == 0 || errno == ENOENT else { throw Self.failure("delete", path) }
    syncDirectory()
  }

  /// Deletes the temporary files of `key` whose writer is gone: a process of this pid space
  /// (``pidSpace``) that no longer exists. Those of a live process (this one included) and of another
  /// pid space stay. Best effort: a file that cannot be deleted stays for the next write.
  private func removeStaleTemporaryFiles(of key: String) {
    let prefix = "." + Self.fileName(for: key) + "." + Self.pidSpace + "-"
    let ownPID = getpid()
    guard let directory = opendir(directoryPath) else { return }
    var stale: [String] = []
    while let entry = readdir(directory) {
      var bytes = entry.pointee.d_name
      let name = withUnsafeBytes(of: &bytes) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
      guard name.hasPrefix(prefix), name.hasSuffix(".tmp") else { continue }
      // `<pid>-<random>`, and no dot: a longer key's temporary files have one.
      let writer = name.dropFirst(prefix.count).dropLast(4).split(separator: "-", omittingEmptySubsequences: false)
      guard writer.count == 2, !writer[1].contains("."), UInt32(writer[1], radix: 16) != nil,
        let pid = pid_t(writer[0]), pid > 0, pid != ownPID
      else { continue }
      if kill(pid, 0) != 0 && errno == ESRCH { stale.append(name) }
    }
    closedir(directory)
    for name in stale { unlink(directoryPath + "/" + name) }
  }

  /// The stored keys that start with `prefix`: for tools and tests, since Xid itself lists no keys.
  public func keys(withPrefix prefix: String) throws -> [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directoryPath)) ?? []
    return names.filter { !$0.hasPrefix(".") }.compactMap(Self.key(fromFileName:)).filter { $0.hasPrefix(prefix) }
      .sorted()
  }

  // MARK: - Paths

  private func path(for key: String) -> String { directoryPath + "/" + Self.fileName(for: key) }

  /// The name of a temporary file of `key` written by the process `pid` of the pid space `space`
  /// (``pidSpace``, this process's by default): `.<file name>.<space>-<pid>-<random>.tmp`, a dot
  /// file, so never a key's. Its writer's pid tells whether the file is stale once the writer is gone.
  static func temporaryFileName(forKey key: String, pid: pid_t, space: String = pidSpace) -> String {
    "." + fileName(for: key) + "." + space + "-" + String(pid) + "-"
      + String(UInt32.random(in: .min ... .max), radix: 16)
      + ".tmp"
  }

  /// Where this process's pids mean something: 8 hex digits of a hash (FNV-1a) of the host's name
  /// and, on Linux, of the pid namespace (`/proc/self/ns/pid`). A pid of another machine sharing the
  /// directory (an NFS home) or of another container sharing it says nothing about a process here.
  static let pidSpace: String = {
    var text = ""
    var host = [CChar](repeating: 0, count: 256)
    if gethostname(&host, host.count - 1) == 0 { text = String(cString: host) }
    #if os(Linux)
      var link = [CChar](repeating: 0, count: 128)
      if readlink("/proc/self/ns/pid", &link, link.count - 1) > 0 { text += "/" + String(cString: link) }
    #endif
    var hash: UInt32 = 2_166_136_261
    for byte in text.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
    let hex = String(hash, radix: 16)
    return String(repeating: "0", count: 8 - hex.count) + hex
  }()

  /// Keys become file names: letters, digits, `-`, `_` and (but first) `.` stay, every other byte
  /// becomes `%XX`, so no key names a dot file, a path or a parent directory.
  private static func fileName(for key: String) -> String {
    var name = ""
    for byte in key.utf8 {
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
        name.unicodeScalars.append(Unicode.Scalar(byte))
      case UInt8(ascii: ".") where !name.isEmpty:
        name.unicodeScalars.append(".")
      default:
        name += String(format: "%%%02X", byte)
      }
    }
    return name
  }

  private static func key(fromFileName name: String) -> String? {
    name.removingPercentEncoding
  }

  private func syncDirectory() {
    let fd = open(directoryPath, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return }
    fsync(fd)
    close(fd)
  }

  /// Creates the directory at `path` with mode 0700 (and its missing parents), or restricts an
  /// existing one to 0700.
  ///
  /// One `chmod(2)` of the path with a trailing slash, in the common case where the directory exists:
  /// POSIX resolves a path that ends in a slash only to a directory, so a file in its place fails with
  /// `ENOTDIR` and a missing directory with `ENOENT`. Nothing here reads a file's metadata (no `stat`),
  /// so Apple's file-timestamp category has nothing to declare (docs/apple.md, "The privacy manifest");
  /// and `mkdir(2)` before FileManager, whose attribute dictionary alone costs about 0.2 ms at a
  /// process's start, a tenth of a cold token read (docs/performance.md, "Cold start").
  static func makePrivateDirectory(_ path: String) throws {
    let directory = path + "/"
    // An existing directory may have been created with wider permissions.
    if chmod(directory, 0o700) == 0 { return }
    switch errno {
    case ENOENT:
      try createDirectory(path)
      // mkdir's mode passes through the umask, and another process may have created it first.
      guard chmod(directory, 0o700) == 0 else { throw failure("restrict the permissions of", path) }
    case ENOTDIR:
      throw XidError(
        .storageFailure, "cannot use \(path) as the token directory: it, or a folder on its path, is not a directory")
    default:
      throw failure("restrict the permissions of", path)
    }
  }

  /// Creates the directory at `path`, and its missing parents, private to the user. Another process
  /// creating it at the same time is no failure.
  private static func createDirectory(_ path: String) throws {
    if mkdir(path, 0o700) == 0 || errno == EEXIST { return }
    guard errno == ENOENT else { throw failure("create the token directory", path) }
    do {
      try FileManager.default.createDirectory(
        atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    } catch {
      throw XidError(.storageFailure, "cannot create the token directory \(path): \(error.localizedDescription)")
    }
  }

  static func failure(_ operation: String, _ path: String) -> XidError {
    let reason = String(cString: strerror(errno))
    return XidError(.storageFailure, "cannot \(operation) \(path): \(reason)")
  }
}
