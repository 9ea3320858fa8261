// swift-corelibs-foundation's Process retains itself through its run loop source until
// waitUntilExit() runs. Run with one argument:
//   handler  waits through terminationHandler only: the Process objects (and what they hold) leak
//   wait     calls waitUntilExit() in terminationHandler (it returns at once): nothing leaked but one
//            32-byte side table, of the RunLoop that Process.run() references weakly, which lives on
//            (LeakSanitizer cannot follow an object's shifted pointer to its side table)
import Foundation

let mode = CommandLine.arguments.dropFirst().first ?? "handler"
for _ in 0..<2 {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/bin/true")
  let done = DispatchSemaphore(value: 0)
  process.terminationHandler = {
    if mode == "wait" { $0.waitUntilExit() }
    done.signal()
  }
  try process.run()
  done.wait()
}
Thread.sleep(forTimeInterval: 0.3)
