import Foundation
import Xid

/// The other programs `xid` runs: the browser and, when installed, `qrencode`. Only macOS and Linux
/// run programs; elsewhere (the package also builds for iOS) there are none.
enum SystemCommands {
  /// The browser command: `--browser`, else `$BROWSER`, else `open` (macOS) or `xdg-open`.
  static func browserCommand(_ option: String?, environment: [String: String]) -> String {
    if let option { return option }
    if let browser = environment["BROWSER"], !browser.trimmingCharacters(in: .whitespaces).isEmpty { return browser }
    #if os(macOS)
      return "open"
    #else
      return "xdg-open"
    #endif
  }

  /// The full path of `program` (a path, or a name looked up on `PATH`), if it is executable.
  static func find(_ program: String, environment: [String: String]) -> String? {
    if program.contains("/") { return FileManager.default.isExecutableFile(atPath: program) ? program : nil }
    let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
    for directory in path.split(separator: ":") where !directory.isEmpty {
      let candidate = "\(directory)/\(program)"
      if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return nil
  }

  /// Opens `url` with `command` (split on spaces, the URL added as its last argument).
  ///
  /// - Throws: ``XidError/Code/invalidConfiguration`` when the command cannot be started.
  static func open(_ url: URL, with command: String) async throws {
    #if os(macOS) || os(Linux)
      try await BrowserLauncher.command(command).open(url)
    #else
      throw XidError(.invalidConfiguration, "this platform cannot run a browser command")
    #endif
  }

  /// `text` as a QR code drawn with Unicode blocks by `qrencode -t UTF8`, or `nil` when `qrencode`
  /// is not installed or fails.
  static func qrCode(_ text: String, environment: [String: String]) -> String? {
    #if os(macOS) || os(Linux)
      guard let qrencode = find("qrencode", environment: environment) else { return nil }
      let process = Process()
      process.executableURL = URL(fileURLWithPath: qrencode)
      process.arguments = ["-t", "UTF8", "-m", "2", "--", text]
      let output = Pipe()
      process.standardOutput = output
      process.standardError = FileHandle.nullDevice
      process.standardInput = FileHandle.nullDevice
      do { try process.run() } catch { return nil }
      let data = output.fileHandleForReading.readDataToEndOfFile()
      process.waitUntilExit()
      guard process.terminationStatus == 0, !data.isEmpty else { return nil }
      return String(decoding: data, as: UTF8.self)
    #else
      return nil
    #endif
  }
}
