import Foundation
import Testing

/// The package's layering, read from its sources (docs/architecture.md, issue 19): no target holds
/// more than 30% of Sources, no two top-level folders of a layer of the core use each other's types,
/// and no layer of the core names a type of a layer above it. The scan is the one of
/// `scripts/folder-graph.py`: top-level type declarations, and capitalized names in the code with
/// comments and string literals taken out.
@Suite struct PackageLayeringTests {
  /// The layers of the core that hold code, lowest first (XidCore only re-exports them).
  static let coreLayers = ["XidProtocol", "XidDevice", "XidSession"]

  @Test func noTargetHoldsMoreThanThirtyPercentOfTheSources() throws {
    let lines = try SourceTree.targets().mapValues { files in files.reduce(0) { $0 + $1.nonBlankLines } }
    let total = lines.values.reduce(0, +)
    #expect(total > 10_000, "Sources holds \(total) non-blank Swift lines: the scan found too little")
    let figures = lines.sorted { ($0.value, $1.key) > ($1.value, $0.key) }
      .map { "\($0.key) \($0.value) (\(Self.percent($0.value, of: total)))" }
      .joined(separator: ", ")
    let tooLarge = lines.filter { $0.value * 10 > total * 3 }.keys.sorted()
    #expect(
      tooLarge.isEmpty,
      "\(tooLarge.joined(separator: ", ")) holds more than 30% of Sources' \(total) non-blank Swift lines: \(figures)")
  }

  @Test(arguments: coreLayers)
  func noTwoFoldersOfALayerUseEachOthersTypes(target: String) throws {
    let graph = FolderGraph(try SourceTree.files(of: target))
    #expect(graph.owner.count > 10, "\(target) declares \(graph.owner.count) types: the scan found too few")
    let pairs = graph.mutualPairs.map { a, b in
      "\(a) <-> \(b): \(a) uses \(graph.describeUses(from: a, of: b)); \(b) uses \(graph.describeUses(from: b, of: a))"
    }
    #expect(pairs.isEmpty, "folders of \(target) use each other's types:\n\(pairs.joined(separator: "\n"))")
  }

  @Test func noLayerOfTheCoreNamesATypeOfALayerAbove() throws {
    let files = try Self.coreLayers.map { try SourceTree.files(of: $0) }
    let declared = files.map { Set($0.flatMap(\.declaredTypes)) }
    for (layer, types) in zip(Self.coreLayers, declared) {
      #expect(types.count > 10, "\(layer) declares \(types.count) types: the scan found too few")
    }
    var found: [String] = []
    for lower in Self.coreLayers.indices {
      // A name a layer declares itself (or one below it does) is its own, even if a layer above
      // declares the same name.
      let own = declared[...lower].reduce(into: Set<String>()) { $0.formUnion($1) }
      for higher in Self.coreLayers.indices where higher > lower {
        let above = declared[higher].subtracting(own)
        for file in files[lower] {
          let named = file.namesUsed.intersection(above)
          if !named.isEmpty {
            found.append(
              "Sources/\(Self.coreLayers[lower])/\(file.path) names \(Self.coreLayers[higher])'s "
                + named.sorted().joined(separator: ", "))
          }
        }
      }
    }
    #expect(found.isEmpty, "a layer of the core names a type of a layer above it:\n\(found.joined(separator: "\n"))")
  }

  static func percent(_ part: Int, of total: Int) -> String {
    String(format: "%.1f%%", Double(part) * 100 / Double(max(total, 1)))
  }
}

/// One Swift file of a target under Sources.
struct SourceFile: Sendable {
  /// The path inside the target, for example `Engine/Client/OpenIDClient.swift`.
  let path: String
  let text: String

  /// The top-level folder inside the target, `.` for a file at its root.
  var folder: String {
    let components = path.split(separator: "/")
    return components.count > 1 ? String(components[0]) : "."
  }

  var nonBlankLines: Int {
    text.split(separator: "\n", omittingEmptySubsequences: true).count { $0.contains { !$0.isWhitespace } }
  }

  /// The types declared at the start of a line (top-level declarations), in order.
  var declaredTypes: [String] { TypeScan.declaredTypes(in: text) }

  /// The capitalized names the code uses, comments and string literals taken out.
  var namesUsed: Set<String> { TypeScan.namesUsed(in: text) }
}

/// The package's Sources folder, found from this file's path.
enum SourceTree {
  static let sources = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()  // XidLayeringTests
    .deletingLastPathComponent()  // Tests
    .deletingLastPathComponent()  // the package
    .appendingPathComponent("Sources")

  /// Every target folder of Sources with its Swift files.
  static func targets() throws -> [String: [SourceFile]] {
    let names = try FileManager.default.contentsOfDirectory(atPath: sources.path).filter { name in
      var isFolder: ObjCBool = false
      return FileManager.default.fileExists(atPath: sources.appendingPathComponent(name).path, isDirectory: &isFolder)
        && isFolder.boolValue
    }
    return try Dictionary(uniqueKeysWithValues: names.map { ($0, try files(of: $0)) })
  }

  /// The Swift files of `target`, in path order.
  static func files(of target: String) throws -> [SourceFile] {
    let folder = sources.appendingPathComponent(target)
    guard let paths = FileManager.default.enumerator(atPath: folder.path) else {
      throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: folder.path])
    }
    return try paths.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.sorted().map { path in
      SourceFile(path: path, text: try String(contentsOf: folder.appendingPathComponent(path), encoding: .utf8))
    }
  }
}

/// The regular expressions of `scripts/folder-graph.py`.
enum TypeScan {
  /// A type declaration at the start of a line, after its attributes and modifiers.
  static let declaration = try! NSRegularExpression(
    pattern: #"^(?:@\w+(?:\([^)]*\))?\s+)*"#
      + #"(?:(?:public|package|internal|fileprivate|private|final|indirect|nonisolated|open)\s+)*"#
      + #"(?:struct|class|enum|protocol|actor|typealias)\s+([A-Z]\w*)"#,
    options: [.anchorsMatchLines])
  /// A line comment, a block comment, or a string literal (multi-line ones first).
  static let commentOrString = try! NSRegularExpression(
    pattern: #"//[^\n]*|/\*.*?\*/|"""(?:\\.|[^\\])*?"""|"(?:\\.|[^"\\\n])*""#,
    options: [.dotMatchesLineSeparators])
  /// A capitalized identifier.
  static let capitalized = try! NSRegularExpression(pattern: #"\b([A-Z]\w*)\b"#)

  static func declaredTypes(in text: String) -> [String] {
    captures(of: declaration, in: text)
  }

  static func namesUsed(in text: String) -> Set<String> {
    let code = commentOrString.stringByReplacingMatches(
      in: text, range: NSRange(location: 0, length: (text as NSString).length), withTemplate: "")
    return Set(captures(of: capitalized, in: code))
  }

  static func captures(of expression: NSRegularExpression, in text: String) -> [String] {
    let string = text as NSString
    return expression.matches(in: text, range: NSRange(location: 0, length: string.length)).map {
      string.substring(with: $0.range(at: 1))
    }
  }
}

/// Which top-level folders of a target use which folders' types.
struct FolderGraph {
  /// The folder that declares each type (the first in path order, as a type declared twice is
  /// ambiguous).
  let owner: [String: String]
  /// `uses[a][b][type]`: how many files of folder `a` name `type`, declared in folder `b`.
  let uses: [String: [String: [String: Int]]]

  init(_ files: [SourceFile]) {
    var owner: [String: String] = [:]
    for file in files {
      for type in file.declaredTypes where owner[type] == nil { owner[type] = file.folder }
    }
    var uses: [String: [String: [String: Int]]] = [:]
    for file in files {
      for name in file.namesUsed {
        guard let declaring = owner[name], declaring != file.folder else { continue }
        uses[file.folder, default: [:]][declaring, default: [:]][name, default: 0] += 1
      }
    }
    self.owner = owner
    self.uses = uses
  }

  /// The pairs of folders that use each other's types, each once, in order.
  var mutualPairs: [(String, String)] {
    uses.flatMap { a, used in used.keys.filter { b in a < b && uses[b]?[a] != nil }.map { (a, $0) } }
      .sorted { ($0.0, $0.1) < ($1.0, $1.1) }
  }

  /// The types of `b` that `a` names, each with the number of `a`'s files that name it.
  func describeUses(from a: String, of b: String) -> String {
    (uses[a]?[b] ?? [:]).sorted { $0.key < $1.key }
      .map { "\($0.key) (\($0.value) file\($0.value == 1 ? "" : "s"))" }
      .joined(separator: ", ")
  }
}
