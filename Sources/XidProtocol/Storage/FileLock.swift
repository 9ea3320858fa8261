import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// An exclusive lock shared by every process that opens the same lock file (`flock(2)`), so that an
/// app and its extensions, or several command-line processes, never refresh the same account at once.
///
/// Waiting never blocks a thread: the lock is tried without blocking and, while another process holds
/// it, tried again after short sleeps of the current task, until a deadline.
package struct FileLock: Sendable {
  /// The lock file.
  package let path: String
  /// The folder of the lock file.
  private let directory: String

  /// A lock on the file `name` in `directory`. The file (mode 0600), and the folder (mode 0700) when it
  /// does not exist yet, such as the `Xid` folder of an App Group container, are created when the
  /// lock is first taken.
  package init(directory: URL, name: String) {
    self.directory = directory.fileSystemPath
    path = self.directory + "/" + name
  }

  /// Takes the lock, waiting for another holder for at most `timeout`. Release it with
  /// ``Holder/release()`` (closing the holder's descriptor also releases it).
  ///
  /// - Parameters:
  ///   - timeout: how long to wait, in real time and, when `clock` is given, on `clock` too: the wait
  ///     ends when either has passed `timeout` (a test that moves its clock ends it at once).
  ///   - clock: the clock of the configuration, or `nil` for real time alone.
  /// - Throws: ``XidError/Code/lockTimeout`` when the lock stays taken for `timeout`, and
  ///   ``XidError/Code/storageFailure`` when the lock file cannot be opened (or its folder made).
  package func acquire(timeout: Duration = .seconds(10), clock xidClock: (any XidClock)? = nil) async throws -> Holder {
    var fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    if fd < 0 && errno == ENOENT {
      try makeFolder()
      fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    }
    guard fd >= 0 else { throw FileTokenStorage.failure("open the lock file", path) }
    let holder = Holder(descriptor: fd)
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: timeout)
    let clockDeadline = xidClock.map { (clock: $0, deadline: $0.now.addingTimeInterval(timeout.timeInterval)) }
    var pause = Duration.milliseconds(1)
    while flock(fd, LOCK_EX | LOCK_NB) != 0 {
      guard errno == EWOULDBLOCK || errno == EINTR else {
        let error = FileTokenStorage.failure("lock", path)
        holder.release()
        throw error
      }
      guard clock.now < deadline, clockDeadline.map({ $0.clock.now < $0.deadline }) ?? true else {
        holder.release()
        throw XidError(.lockTimeout, "another process held the lock \(path) for more than \(timeout); try again")
      }
      do {
        try await Task.sleep(for: pause)
      } catch {
        holder.release()
        throw error
      }
      pause = min(pause * 2, .milliseconds(20))
    }
    return holder
  }

  /// Creates the lock's folder, private to the user (another process may create it at the same time).
  private func makeFolder() throws {
    do {
      try FileManager.default.createDirectory(
        atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    } catch {
      throw XidError(
        .storageFailure, "cannot create the folder of the lock file \(path): \(error.localizedDescription)")
    }
  }

  /// A held lock: the open lock file. Releasing is idempotent.
  package final class Holder: @unchecked Sendable {
    // `descriptor` is only touched while `lock` is held.
    private let lock = NSLock()
    private var descriptor: Int32

    init(descriptor: Int32) { self.descriptor = descriptor }

    /// Releases the lock and closes the lock file.
    package func release() {
      lock.withLock {
        guard descriptor >= 0 else { return }
        flock(descriptor, LOCK_UN)
        close(descriptor)
        descriptor = -1
      }
    }

    deinit { release() }
  }
}
