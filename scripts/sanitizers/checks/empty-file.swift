// Reading an empty file through swift-foundation leaks 4,096 bytes on Linux: readBytesFromFile reads
// a file of size 0 into a 4 KiB malloc buffer, and readDataFromFile returns Data() for a length of 0
// without freeing it. Run with one argument: string, data, manager (each leaks 4,096 bytes) or handle
// (nothing leaked).
import Foundation

let path = FileManager.default.temporaryDirectory.appendingPathComponent("empty-\(getpid())").path
_ = FileManager.default.createFile(atPath: path, contents: nil)
defer { unlink(path) }
let url = URL(fileURLWithPath: path)
switch CommandLine.arguments.dropFirst().first ?? "string" {
case "string": print(try String(contentsOf: url, encoding: .utf8).count)
case "data": print(try Data(contentsOf: url).count)
case "manager": print(FileManager.default.contents(atPath: path)?.count ?? -1)
default:
  let handle = try FileHandle(forReadingFrom: url)
  print(try handle.readToEnd()?.count ?? 0)
  try handle.close()
}
