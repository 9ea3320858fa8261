import Foundation
import Testing
import XidTestSupport

/// Apple's required-reason APIs against Xid's privacy manifests (docs/apple.md, "The privacy manifest").
///
/// App Store Connect refuses an app whose code calls a required-reason API that no privacy manifest
/// declares. Each library target that ships in apps declares, in a `PrivacyInfo.xcprivacy` of its own,
/// exactly the categories its code calls: these tests find the calls in the target's sources, with
/// the patterns of ``categories`` (Apple's list of the APIs of each category), and compare them with
/// the target's manifest, both ways.
@Suite struct PrivacyManifestTests {
  static let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  /// The library targets that apps link on Apple platforms: the folders of Sources/ the audit covers.
  static let shippedInApps: Set<String> = [
    "XidJOSE", "XidProtocol", "XidDevice", "XidSession", "XidCore", "XidURLSession", "XidLoopback", "XidApple",
    "Xid", "XidAppIntents",
  ]
  /// The other folders of Sources/, and why no app ships them.
  static let notShippedInApps: [String: String] = [
    "COpenSSL": "OpenSSL's headers, Linux only",
    "COpenSSLLoader": "OpenSSL's loader, Linux only",
    "XidTesting": "the test provider, linked by test targets",
    "XidCLI": "the command-line tool's code",
    "XidTool": "the command-line tool",
  ]
  /// The target that carries Xid's own manifest (no tracking, no collected data), because every
  /// product links it.
  static let sdkManifestTarget = "XidJOSE"

  /// One of Apple's categories of required-reason APIs: the reasons Apple approves for it, and the
  /// calls of its APIs.
  struct Category: Sendable {
    /// The manifest's `NSPrivacyAccessedAPIType`.
    let type: String
    /// The approved reasons, from Apple's "Describing use of required reason API".
    let reasons: Set<String>
    /// Regular expressions, each matching a use of one of the category's APIs in Swift or C code.
    let calls: [String]
  }

  /// Apple's list, category by category. `ContinuousClock`, `SuspendingClock`, `Task.sleep`,
  /// `DispatchTime` and `Date()` are not in it: they read the clock in the Swift runtime, libdispatch
  /// and Foundation, which are Apple's (docs/apple.md has the reasoning).
  static let categories: [Category] = [
    Category(
      type: "NSPrivacyAccessedAPICategoryFileTimestamp", reasons: ["DDA9.1", "C617.1", "3B52.1", "0A2A.1"],
      calls: [
        #"\b(stat|lstat|fstat|fstatat)\s*\("#,
        #"\b(getattrlist|fgetattrlist|getattrlistat|getattrlistbulk)\s*\("#,
        #"\battributesOfItem\b"#,
        #"\.(creationDate|modificationDate|fileModificationDate|contentModificationDate|contentAccessDate)\b"#,
        #"\b(creationDate|contentModificationDate|contentAccessDate)Key\b"#,
        #"\bNSFile(Creation|Modification)Date\b"#,
        #"\bNSURL(Creation|ContentModification|ContentAccess)DateKey\b"#,
      ]),
    Category(
      type: "NSPrivacyAccessedAPICategorySystemBootTime", reasons: ["35F9.1", "8FFB.1", "3D61.1"],
      calls: [#"\bsystemUptime\b"#, #"\bmach_absolute_time\b"#]),
    Category(
      type: "NSPrivacyAccessedAPICategoryDiskSpace", reasons: ["85F4.1", "E174.1", "7D9E.1", "B728.1"],
      calls: [
        #"\b(NSURLV|v)olume(AvailableCapacity(ForImportantUsage|ForOpportunisticUsage)?|TotalCapacity)Key\b"#,
        #"\.system(Free)?Size\b"#,
        #"\bNSFileSystem(Free)?Size\b"#,
        #"\battributesOfFileSystem\b"#,
        #"\b(statfs|fstatfs|statvfs|fstatvfs)\s*\("#,
        #"\b(getattrlist|fgetattrlist|getattrlistat)\s*\("#,
      ]),
    Category(
      type: "NSPrivacyAccessedAPICategoryActiveKeyboards", reasons: ["3EC4.1", "54BD.1"],
      calls: [#"\bactiveInputModes\b"#]),
    Category(
      type: "NSPrivacyAccessedAPICategoryUserDefaults", reasons: ["CA92.1", "1C8F.1", "C56D.1", "AC6B.1"],
      calls: [#"\b(NS)?UserDefaults\b"#]),
  ]

  // MARK: - The calls against the manifests

  @Test func everyRequiredReasonCallIsDeclaredByAManifestOfTheTargetThatMakesIt() throws {
    for target in Self.shippedInApps.sorted() {
      let declared = try Self.declaredCategories(of: target)
      for call in try Self.calls(in: [Self.sources.appendingPathComponent(target)])
      where !declared.contains(call.category) {
        Issue.record(
          """
          \(call.location) calls \(call.text) (\(call.category)), which no PrivacyInfo.xcprivacy of \
          \(target) declares: avoid the call, or declare it with its reason (docs/apple.md)
          """)
      }
    }
  }

  @Test func everyDeclaredCategoryIsCalledByTheTargetThatDeclaresIt() throws {
    for target in Self.shippedInApps.sorted() {
      let called = Set(try Self.calls(in: [Self.sources.appendingPathComponent(target)]).map(\.category))
      for category in try Self.declaredCategories(of: target).subtracting(called).sorted() {
        Issue.record("\(target)'s manifest declares \(category), which no code of \(target) calls any more")
      }
    }
  }

  @Test func everyManifestDeclaresNoTrackingNoCollectedDataAndOnlyApprovedReasons() throws {
    let manifests = try Self.manifests()
    #expect(manifests.map(\.target).contains(Self.sdkManifestTarget), "Xid's own manifest is in XidJOSE")
    for manifest in manifests {
      let name = "Sources/\(manifest.target)/PrivacyInfo.xcprivacy"
      #expect(Self.shippedInApps.contains(manifest.target), "\(name): the target does not ship in apps")
      #expect(manifest.plist["NSPrivacyTracking"] as? Bool == false, "\(name): NSPrivacyTracking is false")
      #expect(
        (manifest.plist["NSPrivacyTrackingDomains"] as? [Any])?.isEmpty == true,
        "\(name): NSPrivacyTrackingDomains is an empty array")
      #expect(
        (manifest.plist["NSPrivacyCollectedDataTypes"] as? [Any])?.isEmpty == true,
        "\(name): Xid collects nothing; the app declares what its provider keeps")
      try Self.checkAccessedAPITypes(of: manifest.plist, in: name)
    }
  }

  @Test func everyManifestIsACopiedResourceOfItsTargetInPackageSwift() throws {
    let package = Self.code(try textFile(at: Self.packageRoot.appendingPathComponent("Package.swift")))
    let copying = Self.targetDeclarations(in: package).filter { $0.value.contains(#".copy("PrivacyInfo.xcprivacy")"#) }
    #expect(Set(copying.keys) == Set(try Self.manifests().map(\.target)), "the manifests that Package.swift copies")
    // SwiftPM copies a manifest to the top of the target's bundle, where Apple's tools look for it.
    let nested = try Self.sourceFiles(in: [Self.sources], extensions: ["xcprivacy"]).filter {
      $0.deletingLastPathComponent().deletingLastPathComponent().standardizedFileURL != Self.sources.standardizedFileURL
    }
    #expect(nested.map(Self.relativePath) == [], "manifests below the top folder of a target")
  }

  @Test func everyFolderOfSourcesIsAuditedOrNamedAsNotShippedInApps() throws {
    let folders = Set(
      try FileManager.default.contentsOfDirectory(atPath: Self.sources.path).filter { !$0.hasPrefix(".") })
    let named = Self.shippedInApps.union(Self.notShippedInApps.keys)
    #expect(folders.subtracting(named).sorted() == [], "add new targets to shippedInApps or notShippedInApps")
    #expect(named.subtracting(folders).sorted() == [], "targets these tests name that Sources/ lacks")
  }

  /// A manifest costs nothing at run time as long as nothing opens its bundle: SwiftPM's generated
  /// `Bundle.module` is initialized on its first use only.
  @Test func noCodeThatShipsInAppsOpensItsResourceBundle() throws {
    let folders = Self.shippedInApps.sorted().map { Self.sources.appendingPathComponent($0) }
    for file in try Self.sourceFiles(in: folders) {
      let code = Self.code(try textFile(at: file))
      #expect(!code.contains("Bundle.module"), "\(Self.relativePath(file)) opens its resource bundle")
    }
  }

  // MARK: - The search itself

  @Test func theSearchFindsACallOfEachCategoryAndNotOneInAComment() throws {
    let samples: [String: String] = [
      "NSPrivacyAccessedAPICategoryFileTimestamp": "var info = stat()\nguard stat(path, &info) == 0",
      "NSPrivacyAccessedAPICategorySystemBootTime": "let up = ProcessInfo.processInfo.systemUptime",
      "NSPrivacyAccessedAPICategoryDiskSpace": "let keys: Set<URLResourceKey> = [.volumeAvailableCapacityKey]",
      "NSPrivacyAccessedAPICategoryActiveKeyboards": "let modes = UITextInputMode.activeInputModes",
      "NSPrivacyAccessedAPICategoryUserDefaults": #"let url = "https://a.example/"; UserDefaults.standard.set(1)"#,
    ]
    #expect(Set(samples.keys) == Set(Self.categories.map(\.type)), "a sample for each category")
    for (category, sample) in samples {
      #expect(try Self.calls(inCode: Self.code(sample), file: "sample").map(\.category).contains(category))
    }
    let comments = """
      // stat(path, &info), /* mach_absolute_time() */ and
      /// `UserDefaults`
      /* nested /* systemUptime */ still a comment: activeInputModes */ let status = statusCode
      """
    #expect(try Self.calls(inCode: Self.code(comments), file: "comments").isEmpty)
  }

  // MARK: - The example app

  /// The example app's own manifest declares what the example's own code calls (nothing, today), and
  /// no tracking.
  @Test func theExampleAppsManifestDeclaresWhatItsOwnCodeCalls() throws {
    let example = Self.packageRoot.appendingPathComponent("Examples/XidExample")
    let url = example.appendingPathComponent("XcodeTargets/App/PrivacyInfo.xcprivacy")
    let plist = try Self.plist(at: url)
    #expect(plist["NSPrivacyTracking"] as? Bool == false)
    #expect((plist["NSPrivacyTrackingDomains"] as? [Any])?.isEmpty == true)
    let collected = try #require(plist["NSPrivacyCollectedDataTypes"] as? [[String: Any]])
    for entry in collected {
      #expect((entry["NSPrivacyCollectedDataType"] as? String)?.hasPrefix("NSPrivacyCollectedDataType") == true)
      #expect(entry["NSPrivacyCollectedDataTypeLinked"] is Bool)
      #expect(entry["NSPrivacyCollectedDataTypeTracking"] as? Bool == false)
      #expect((entry["NSPrivacyCollectedDataTypePurposes"] as? [String])?.isEmpty == false)
    }
    try Self.checkAccessedAPITypes(of: plist, in: "the example's manifest")
    let called = Set(
      try Self.calls(in: ["Sources", "XcodeTargets"].map { example.appendingPathComponent($0) }).map(\.category))
    #expect(try Self.categories(declaredBy: plist) == called, "the example's manifest declares what it calls")
  }

  // MARK: - Manifests

  static let sources = packageRoot.appendingPathComponent("Sources")

  /// A target's manifest, at the top of its folder.
  struct Manifest {
    let target: String
    let plist: [String: Any]
  }

  /// The manifests at the top of the folders of Sources/.
  static func manifests() throws -> [Manifest] {
    try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted().compactMap { target in
      let url = sources.appendingPathComponent(target).appendingPathComponent("PrivacyInfo.xcprivacy")
      guard FileManager.default.fileExists(atPath: url.path) else { return nil }
      return Manifest(target: target, plist: try plist(at: url))
    }
  }

  static func plist(at url: URL) throws -> [String: Any] {
    let data = try Data(contentsOf: url)
    let plist = try PropertyListSerialization.propertyList(from: data, format: nil)
    return try #require(plist as? [String: Any], "\(relativePath(url)) is a dictionary")
  }

  /// The categories the manifest of `target` declares (none without a manifest).
  static func declaredCategories(of target: String) throws -> Set<String> {
    try manifests().first { $0.target == target }.map { try categories(declaredBy: $0.plist) } ?? []
  }

  static func categories(declaredBy plist: [String: Any]) throws -> Set<String> {
    let types = try #require(plist["NSPrivacyAccessedAPITypes"] as? [[String: Any]], "NSPrivacyAccessedAPITypes")
    return Set(types.compactMap { $0["NSPrivacyAccessedAPIType"] as? String })
  }

  /// The target declarations of `package` (Package.swift without its comments) by name: each
  /// `.target(…)`, `.executableTarget(…)`, … of the targets list, from its opening parenthesis to the
  /// matching one, with the `.target(…)` dependencies inside it.
  static func targetDeclarations(in package: String) -> [String: Substring] {
    var declarations: [String: Substring] = [:]
    var end = package.startIndex
    for match in package.matches(of: /\.(?:target|testTarget|executableTarget|systemLibrary)\(/)
    where match.range.lowerBound >= end {
      var depth = 1
      var index = match.range.upperBound
      while index < package.endIndex, depth > 0 {
        if package[index] == "(" { depth += 1 } else if package[index] == ")" { depth -= 1 }
        index = package.index(after: index)
      }
      end = index
      let text = package[match.range.upperBound..<index]
      if let name = text.firstMatch(of: /name: "(\w+)"/)?.output.1 { declarations[String(name)] = text }
    }
    return declarations
  }

  /// Each entry of `NSPrivacyAccessedAPITypes` names a category of Apple's list once, with at least
  /// one of its approved reasons and no other.
  static func checkAccessedAPITypes(of plist: [String: Any], in name: String) throws {
    let types = try #require(plist["NSPrivacyAccessedAPITypes"] as? [[String: Any]], "\(name): an array")
    var seen: Set<String> = []
    for entry in types {
      let type = entry["NSPrivacyAccessedAPIType"] as? String ?? "(none)"
      let category = categories.first { $0.type == type }
      #expect(category != nil, "\(name): \(type) is not one of Apple's categories")
      #expect(seen.insert(type).inserted, "\(name): \(type) is declared twice")
      let reasons = entry["NSPrivacyAccessedAPITypeReasons"] as? [String] ?? []
      #expect(!reasons.isEmpty, "\(name): \(type) gives no reason")
      if let category {
        #expect(Set(reasons).subtracting(category.reasons).sorted() == [], "\(name): reasons Apple does not list")
      }
    }
  }

  // MARK: - Calls

  struct Call {
    let category: String
    let location: String
    let text: String
  }

  /// The calls of required-reason APIs in the Swift and C files under `folders`.
  static func calls(in folders: [URL]) throws -> [Call] {
    try sourceFiles(in: folders).flatMap { file in
      try calls(inCode: code(try textFile(at: file)), file: relativePath(file))
    }
  }

  static func calls(inCode code: String, file: String) throws -> [Call] {
    let text = code as NSString
    // Where each line starts, in UTF-16 offsets (NSRegularExpression's).
    var lineStarts = [0]
    for (offset, unit) in code.utf16.enumerated() where unit == 0x0A { lineStarts.append(offset + 1) }
    var found: [Call] = []
    for category in categories {
      for pattern in category.calls {
        let expression = try NSRegularExpression(pattern: pattern)
        for match in expression.matches(in: code, range: NSRange(location: 0, length: text.length)) {
          let line = lineStarts.lastIndex { $0 <= match.range.location }.map { $0 + 1 } ?? 1
          found.append(
            Call(category: category.type, location: "\(file):\(line)", text: text.substring(with: match.range)))
        }
      }
    }
    return found
  }

  /// The files under `folders` whose names end in one of `extensions`, in order.
  static func sourceFiles(in folders: [URL], extensions: Set<String> = ["swift", "c", "h", "m", "mm"]) throws -> [URL] {
    folders.flatMap { folder in
      (FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? [])
        .filter { extensions.contains($0.pathExtension) }
        .sorted { $0.path < $1.path }
    }
  }

  static func relativePath(_ url: URL) -> String {
    let root = packageRoot.standardizedFileURL.path + "/"
    let path = url.standardizedFileURL.path
    return path.hasPrefix(root) ? String(path.dropFirst(root.count)) : path
  }

  /// `source` with its comments blanked out, newlines kept so that lines keep their numbers: a call in
  /// a comment is no call. String literals stay (a call's name in a message is reported, the safe
  /// side), and are skipped over so that the `//` of a URL starts no comment.
  static func code(_ source: String) -> String {
    var bytes = Array(source.utf8)
    let slash = UInt8(ascii: "/")
    let star = UInt8(ascii: "*")
    let quote = UInt8(ascii: "\"")
    let newline = UInt8(ascii: "\n")
    func at(_ index: Int, _ first: UInt8, _ second: UInt8) -> Bool {
      index + 1 < bytes.count && bytes[index] == first && bytes[index + 1] == second
    }
    func blank(_ index: Int) { if bytes[index] != newline { bytes[index] = UInt8(ascii: " ") } }
    enum State { case code, lineComment, blockComment(depth: Int), string(multiline: Bool) }
    var state = State.code
    var index = 0
    while index < bytes.count {
      switch state {
      case .code:
        if at(index, slash, slash) {
          state = .lineComment
          continue
        } else if at(index, slash, star) {
          state = .blockComment(depth: 1)
          blank(index)
          blank(index + 1)
          index += 2
          continue
        } else if bytes[index] == quote {
          let multiline = at(index + 1, quote, quote)
          state = .string(multiline: multiline)
          index += multiline ? 3 : 1
          continue
        }
        index += 1
      case .lineComment:
        if bytes[index] == newline { state = .code }
        blank(index)
        index += 1
      case .blockComment(let depth):
        if at(index, slash, star) || at(index, star, slash) {
          let inner = bytes[index] == slash ? depth + 1 : depth - 1
          state = inner == 0 ? .code : .blockComment(depth: inner)
          blank(index)
          blank(index + 1)
          index += 2
        } else {
          blank(index)
          index += 1
        }
      case .string(let multiline):
        if bytes[index] == UInt8(ascii: "\\") {
          index += 2
        } else if multiline, bytes[index] == quote, at(index + 1, quote, quote) {
          state = .code
          index += 3
        } else if !multiline, bytes[index] == quote || bytes[index] == newline {
          state = .code  // a newline ends an unterminated literal (a C character literal '"')
          index += 1
        } else {
          index += 1
        }
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}
