import Foundation

extension URL {
  /// The path of a file URL as the file system takes it: percent-decoded, without a trailing slash
  /// (except for the root, `/`).
  ///
  /// Read with `path(percentEncoded: false)` rather than `path`: on Linux, a process's first `path`
  /// costs about 0.3 ms (FoundationEssentials makes a generic type's metadata at run time), which
  /// is a seventh of the cold start of a process that reads its token (docs/performance.md).
  var fileSystemPath: String {
    let path = self.path(percentEncoded: false)
    guard let last = path.utf8.lastIndex(where: { $0 != UInt8(ascii: "/") }) else { return path.isEmpty ? "" : "/" }
    let end = path.utf8.index(after: last)
    // `end` is followed by a "/" or is the end, so it lies on a scalar boundary.
    return end == path.utf8.endIndex ? path : String(path.utf8[..<end])!
  }
}
