import Foundation

/// The file an option names with `@FILE` (`xid request -d @FILE`, `xid login --authorization-details
/// @FILE.json`).
enum ArgumentFile {
  /// The contents of the file at `path`, the `what` of a command.
  ///
  /// - Throws: ``CommandFailure`` naming `what` and the path when it cannot be read.
  static func read(_ path: String, as what: String) throws -> Data {
    do {
      return try Data(contentsOf: URL(fileURLWithPath: path))
    } catch {
      throw CommandFailure(.failure, "cannot read \(what) from \(path): \(error.localizedDescription)")
    }
  }
}
