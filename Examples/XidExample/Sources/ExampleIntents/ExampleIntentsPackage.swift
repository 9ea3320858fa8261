import AppIntents

/// For apps that target iOS 17 or later: the `ExampleIntents` library's intents, for a target that
/// links the library instead of compiling its sources. The target declares its own package that lists
/// this one:
///
/// ```swift
/// struct IntentsExtensionPackage: AppIntentsPackage {
///   static var includedPackages: [any AppIntentsPackage.Type] { [ExampleIntentsPackage.self] }
/// }
/// ```
///
/// On iOS 16 there is no `AppIntentsPackage`: leave this file out of the Xcode target and compile
/// ``ShowBalanceIntent`` and ``ExampleShortcuts`` into it.
@available(iOS 17.0, *)
public struct ExampleIntentsPackage: AppIntentsPackage {}
