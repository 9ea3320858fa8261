import Foundation
import Xid

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The profiles, one JSON file each (mode 0600) in `profiles/` of the state directory.
struct ProfileStore: Sendable {
  /// The folder of the profile files.
  let directory: URL

  init(stateDirectory: URL) {
    directory = stateDirectory.appendingPathComponent("profiles", isDirectory: true)
  }

  /// The file of the profile `name`.
  func file(for name: ProfileName) -> URL { directory.appendingPathComponent(name.value + ".json") }

  /// The profile `name`, or `nil` when it was never saved.
  ///
  /// - Throws: ``CommandFailure`` when the file exists but cannot be read.
  func load(_ name: ProfileName) throws -> Profile? {
    let file = file(for: name)
    guard FileManager.default.fileExists(atPath: file.path) else { return nil }
    do {
      return try JSONDecoder().decode(Profile.self, from: Data(contentsOf: file))
    } catch {
      throw CommandFailure(
        .failure,
        "the profile file \(file.path) cannot be read; fix it, or delete it and run 'xid login\(name.flag)' again")
    }
  }

  /// Saves `profile` as `name`: written to a private temporary file, then renamed over the old one.
  func save(_ profile: Profile, as name: ProfileName) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    let data = try encoder.encode(profile) + Data("\n".utf8)
    do {
      try FileManager.default.createDirectory(
        at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    } catch {
      throw XidError(.storageFailure, "cannot create \(directory.path): \(error.localizedDescription)")
    }
    let target = file(for: name)
    let temporary = directory.appendingPathComponent(".\(name.value).\(UInt32.random(in: .min ... .max)).tmp")
    let fd = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw XidError(.storageFailure, "cannot write \(temporary.path)") }
    let written = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
    guard written == data.count, rename(temporary.path, target.path) == 0 else {
      unlink(temporary.path)
      throw XidError(.storageFailure, "cannot write the profile \(target.path)")
    }
  }
}
