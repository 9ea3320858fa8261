import Foundation

/// The text of the file at `url`, decoded as UTF-8.
///
/// Use it instead of `String(contentsOf:encoding:)` for files that may be empty (a process's output,
/// a control file): on Linux, swift-foundation reads an empty file into a 4 KiB buffer that it never
/// frees (`readBytesFromFile` returns it with length 0, and `readDataFromFile` then returns `Data()`
/// without calling its deallocator), which LeakSanitizer reports at exit. `FileHandle` reads
/// without that path.
///
/// - Throws: when the file cannot be opened or read.
public func textFile(at url: URL) throws -> String {
  let handle = try FileHandle(forReadingFrom: url)
  defer { try? handle.close() }
  return String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
}
