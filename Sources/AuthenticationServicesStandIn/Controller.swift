// Stand-in for AuthenticationServices' controller types (ASAuthorizationController.h). Declarations only.
public import Foundation

/// `ASPresentationAnchor` is `UIWindow` on iOS and visionOS, `NSWindow` on macOS.
public typealias ASPresentationAnchor = StandInWindow

/// Stands in for `UIWindow` / `NSWindow`.
open class StandInWindow: NSObject {}

public protocol ASAuthorizationProvider: NSObjectProtocol {}

public protocol ASAuthorizationCredential: NSObjectProtocol {}

open class ASAuthorizationRequest: NSObject, @unchecked Sendable {
    open var provider: any ASAuthorizationProvider { fatalError() }
}

open class ASAuthorization: NSObject, @unchecked Sendable {
    open var provider: any ASAuthorizationProvider { fatalError() }
    open var credential: any ASAuthorizationCredential { fatalError() }
}

/// The real protocol's methods are optional Objective-C requirements; here they are required, so a misspelled
/// delegate method (which Objective-C would silently never call) fails to compile.
@MainActor
public protocol ASAuthorizationControllerDelegate: NSObjectProtocol {
    func authorizationController(controller: ASAuthorizationController, didCompleteWithAuthorization authorization: ASAuthorization)
    func authorizationController(controller: ASAuthorizationController, didCompleteWithError error: any Error)
}

@MainActor
public protocol ASAuthorizationControllerPresentationContextProviding: NSObjectProtocol {
    func presentationAnchor(for controller: ASAuthorizationController) -> ASPresentationAnchor
}

open class ASAuthorizationController: NSObject {
    public init(authorizationRequests: [ASAuthorizationRequest]) { fatalError() }

    open var authorizationRequests: [ASAuthorizationRequest] { fatalError() }
    open weak var delegate: (any ASAuthorizationControllerDelegate)?
    open weak var presentationContextProvider: (any ASAuthorizationControllerPresentationContextProviding)?

    open func performRequests() { fatalError() }

    @available(iOS 16.0, macOS 13.0, *)
    @available(tvOS, unavailable)
    @available(watchOS, unavailable)
    open func performRequests(options: ASAuthorizationController.RequestOptions = []) { fatalError() }

    @available(iOS 16.0, *)
    @available(macOS, unavailable)
    @available(macCatalyst, unavailable)
    @available(tvOS, unavailable)
    @available(watchOS, unavailable)
    open func performAutoFillAssistedRequests() { fatalError() }

    @available(iOS 16.0, macOS 13.0, tvOS 18.0, *)
    @available(watchOS, unavailable)
    open func cancel() { fatalError() }

    @available(iOS 16.0, macOS 13.0, *)
    public struct RequestOptions: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static var preferImmediatelyAvailableCredentials: RequestOptions { fatalError() }
    }
}
