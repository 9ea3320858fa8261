import Foundation

#if os(Linux)
  import Glibc

  /// The change signal of a ``FileTokenStorage`` directory on Linux: an inotify watch of the folder.
  ///
  /// A file that is renamed into the folder (every save: ``FileTokenStorage`` writes a temporary
  /// file and renames it), written and closed, or deleted signals a change; the dot files (the
  /// temporary files and the locks) do not. One read of the watch is one signal, however many
  /// changes it holds, and a stream keeps at most one signal waiting: bursts are coalesced.
  ///
  /// ``post()`` does nothing: the watch sees every process's writes, this one's too. The watch is
  /// read by a dispatch source, never a cooperative thread, and its descriptor is closed when the
  /// last stream ends.
  public struct FolderChangeSignal: SessionChangeSignal {
    /// The folder watched.
    public let directory: URL
    private let hub: ChangeSignalHub

    /// Watches `directory` (the folder of a ``FileTokenStorage``) while a stream of ``changes()``
    /// is iterated.
    public init(directory: URL) {
      self.directory = directory
      let path = directory.fileSystemPath
      hub = ChangeSignalHub { fire in Self.watch(path, fire: fire) }
    }

    /// Does nothing: the watch sees this process's writes too.
    public func post() {}

    /// The changes of the folder, bursts coalesced. The watch is made for the first stream and
    /// closed after the last one ends; a folder that cannot be watched gives a stream that stays
    /// quiet (a lost signal costs nothing: the record is read at each use).
    public func changes() -> AsyncStream<Void> { hub.changes() }

    /// Whether the folder is watched now (for tests).
    package var isWatching: Bool { hub.isRunning }

    private static let mask =
      UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CREATE)
      | UInt32(IN_DELETE_SELF | IN_MOVE_SELF)

    /// Starts the watch of `path`; `nil` when inotify refuses it.
    private static func watch(_ path: String, fire: @escaping @Sendable () -> Void) -> (@Sendable () -> Void)? {
      let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
      guard fd >= 0 else { return nil }
      guard inotify_add_watch(fd, path, mask) >= 0 else {
        close(fd)
        return nil
      }
      let source = DispatchSource.makeReadSource(
        fileDescriptor: fd, queue: DispatchQueue(label: "dev.xid.folder-change-signal"))
      source.setEventHandler {
        if drain(fd) { fire() }
      }
      source.setCancelHandler { close(fd) }
      source.resume()
      let handle = SourceHandle(source)
      return { handle.cancel() }
    }

    /// A dispatch source, whose `cancel()` is safe from any thread.
    private final class SourceHandle: @unchecked Sendable {
      let source: any DispatchSourceRead
      init(_ source: any DispatchSourceRead) { self.source = source }
      func cancel() { source.cancel() }
    }

    /// Reads every event waiting on `fd`. Returns whether one of them concerns a file that is not a
    /// dot file (or the folder itself).
    private static func drain(_ fd: Int32) -> Bool {
      var relevant = false
      let size = 16 * 1024
      let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
      defer { buffer.deallocate() }
      while true {
        let count = read(fd, buffer, size)
        guard count > 0 else { break }
        var offset = 0
        let header = MemoryLayout<inotify_event>.size
        while offset + header <= count {
          let event = buffer.load(fromByteOffset: offset, as: inotify_event.self)
          let nameLength = Int(event.len)
          if nameLength == 0 {
            relevant = true  // the folder itself, or the kernel's queue overflowed
          } else {
            let name = buffer.advanced(by: offset + header).assumingMemoryBound(to: CChar.self)
            if name.pointee != CChar(UInt8(ascii: ".")) { relevant = true }
          }
          offset += header + nameLength
        }
      }
      return relevant
    }
  }
#endif
