import Foundation

/// Where the checks keep their state and outcomes: a folder of the App Group container, which the
/// app and both extensions can read and write. Each file is JSON, written atomically.
///
/// Nothing here is a secret: outcomes, the random value of the extensions' check, and the sealed
/// random bytes of check 3 with a hash of the enrolled biometry's state.
public struct DiagnosticsFolder: Sendable, Hashable {
  /// The files.
  public enum File: Sendable, Hashable {
    /// The app's latest results of checks 1 to 3.
    case appResults
    /// The app's latest ``ExtensionRequest``.
    case extensionRequest
    /// The app's latest holds of the lock (``AppLockHold``).
    case lockHolds
    /// Check 3's key, between its two runs.
    case enrollmentChange
    /// An extension's latest ``ExtensionRecord``.
    case extensionRecord(DiagnosticsProcess)

    /// The file's name.
    public var name: String {
      switch self {
      case .appResults: "app-results.json"
      case .extensionRequest: "extension-request.json"
      case .lockHolds: "lock-holds.json"
      case .enrollmentChange: "enrollment-change.json"
      case .extensionRecord(let process): "extension-\(process.rawValue).json"
      }
    }
  }

  /// The folder.
  public let url: URL

  /// The folder at `url`, made when first written.
  public init(url: URL) { self.url = url }

  /// The folder `XidDiagnostics` of the App Group container at `container`.
  public init(appGroupContainer container: URL) {
    self.init(url: container.appendingPathComponent("XidDiagnostics", isDirectory: true))
  }

  private func fileURL(_ file: File) -> URL { url.appendingPathComponent(file.name, isDirectory: false) }

  /// The value in `file`; `nil` when there is none.
  public func read<Value: Decodable>(_ type: Value.Type, from file: File) throws -> Value? {
    let path = fileURL(file).path
    guard FileManager.default.fileExists(atPath: path) else { return nil }
    let data = try Data(contentsOf: fileURL(file))
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    return try decoder.decode(type, from: data)
  }

  /// Writes `value` to `file`, replacing it atomically.
  public func write(_ value: some Encodable, to file: File) throws {
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .iso8601
    encoder.outputFormatting = [.sortedKeys]
    try encoder.encode(value).write(to: fileURL(file), options: .atomic)
  }

  /// Removes `file`; a missing one is not an error.
  public func remove(_ file: File) throws {
    guard FileManager.default.fileExists(atPath: fileURL(file).path) else { return }
    try FileManager.default.removeItem(at: fileURL(file))
  }

  /// The app's latest results of checks 1 to 3 (none when there are none).
  public func appResults() throws -> [DiagnosticsResult] {
    try read([DiagnosticsResult].self, from: .appResults) ?? []
  }

  /// Keeps `result` as the app's latest of its check.
  public func save(_ result: DiagnosticsResult) throws {
    var results = try appResults().filter { $0.check != result.check }
    results.append(result)
    try write(results, to: .appResults)
  }

  /// Notes a hold of the lock by the app, keeping the latest few.
  public func save(_ hold: AppLockHold) throws {
    let holds = (try read([AppLockHold].self, from: .lockHolds) ?? []) + [hold]
    try write(Array(holds.suffix(5)), to: .lockHolds)
  }

  /// What the extensions stored, with the app's request and holds.
  public func extensionObservation() throws -> ExtensionObservation {
    ExtensionObservation(
      request: try read(ExtensionRequest.self, from: .extensionRequest),
      holds: try read([AppLockHold].self, from: .lockHolds) ?? [],
      records: try [DiagnosticsProcess.intent, .widget].compactMap {
        try read(ExtensionRecord.self, from: .extensionRecord($0))
      })
  }

  /// Every result: the app's latest, and checks 4 and 5 from the extensions' records.
  public func results() throws -> [DiagnosticsResult] {
    try appResults() + extensionObservation().results()
  }
}
