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
public struct FileLock: Sendable {
  /// The lock file.
  public let path: String

  /// A lock on the file `name` in `directory` (created with mode 0600 when missing).
  public init(directory: URL, name: String) {
    path = directory.appendingPathComponent(name).path
  }

  /// Takes the lock, waiting for another holder for at most `timeout`. Release it with
  /// ``Holder/release()`` (closing the holder's descriptor also releases it).
  ///
  /// - Throws: ``XidError/Code/lockTimeout`` when the lock stays taken for `timeout`, and
  ///   ``XidError/Code/storageFailure`` when the lock file cannot be opened.
  public func acquire(timeout: Duration = .seconds(10)) async throws -> Holder {
    let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw FileTokenStorage.failure("open the lock file", path) }
    let holder = Holder(descriptor: fd)
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: timeout)
    var pause = Duration.milliseconds(1)
    while flock(fd, LOCK_EX | LOCK_NB) != 0 {
      guard errno == EWOULDBLOCK || errno == EINTR else {
        let error = FileTokenStorage.failure("lock", path)
        holder.release()
        throw error
      }
      guard clock.now < deadline else {
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

  /// A held lock: the open lock file. Releasing is idempotent.
  public final class Holder: @unchecked Sendable {
    // `descriptor` is only touched while `lock` is held.
    private let lock = NSLock()
    private var descriptor: Int32

    init(descriptor: Int32) { self.descriptor = descriptor }

    /// Releases the lock and closes the lock file.
    public func release() {
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
