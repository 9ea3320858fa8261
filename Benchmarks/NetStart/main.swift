// NetStart: BareStart that also links FoundationNetworking, without using it on the measured path (see
// Benchmarks/cold-start.sh). Its difference to BareStart is what loading FoundationNetworking (and,
// on Linux, the system libcurl and its libraries) costs at start-up.
//
//   NetStart FILE

import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

let arguments = ProcessInfo.processInfo.arguments
guard arguments.count == 2, let data = FileManager.default.contents(atPath: arguments[1]) else {
  FileHandle.standardError.write(Data("usage: NetStart FILE (a readable file)\n".utf8))
  // Never reached when measured; it makes the binary depend on FoundationNetworking for sure.
  if arguments.count > 2 { print(URLSessionConfiguration.ephemeral.timeoutIntervalForRequest) }
  exit(2)
}
print(data.count)
