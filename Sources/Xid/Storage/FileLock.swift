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

  /// Runs `body` while holding the lock.
  ///
  /// - Parameter timeout: how long to wait for another holder.
  /// - Throws: ``XidError/Code/lockTimeout`` when the lock stays taken for `timeout`,
  ///   ``XidError/Code/storageFailure`` when the lock file cannot be opened, and whatever `body` throws.
  public func withLock<R>(
    isolation: isolated (any Actor)? = #isolation, timeout: Duration = .seconds(10), _ body: () async throws -> R
  ) async throws -> R {
    let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw FileTokenStorage.failure("open the lock file", path) }
    defer { close(fd) }  // closing the descriptor also releases the lock
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: timeout)
    var pause = Duration.milliseconds(1)
    while flock(fd, LOCK_EX | LOCK_NB) != 0 {
      guard errno == EWOULDBLOCK || errno == EINTR else { throw FileTokenStorage.failure("lock", path) }
      guard clock.now < deadline else {
        throw XidError(
          .lockTimeout, "another process held the lock \(path) for more than \(timeout); try again")
      }
      try await Task.sleep(for: pause)
      pause = min(pause * 2, .milliseconds(20))
    }
    defer { flock(fd, LOCK_UN) }
    return try await body()
  }
}
