// BareStart: the reference for XidColdStart (see Benchmarks/cold-start.sh): a Swift process that
// starts Foundation, reads a small file and writes its length.
//
//   BareStart FILE

import Foundation

let arguments = ProcessInfo.processInfo.arguments
guard arguments.count == 2, let data = FileManager.default.contents(atPath: arguments[1]) else {
  FileHandle.standardError.write(Data("usage: BareStart FILE (a readable file)\n".utf8))
  exit(2)
}
print(data.count)
