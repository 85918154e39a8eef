// Stand-in for the Swift refinements of the largeBlob (iOS 17) and PRF (iOS 18) extension types, as the SDK's
// AuthenticationServices.swiftinterface declares them. Declarations only. Unavailable on tvOS and watchOS.
public import Foundation

@available(iOS 17.0, macOS 14.0, *)
public struct ASAuthorizationPublicKeyCredentialLargeBlobRegistrationInput {
    public static var supportRequired: Self { fatalError() }
    public static var supportPreferred: Self { fatalError() }
    public enum SupportRequirement: Hashable {
        case required
        case preferred
    }
    public var supportRequirement: SupportRequirement
}

@available(iOS 17.0, macOS 14.0, *)
public struct ASAuthorizationPublicKeyCredentialLargeBlobAssertionInput {
    public static var read: Self { fatalError() }
    public static func write(_ data: Data) -> Self { fatalError() }
    public enum Operation {
        case read
        case write(Data)
    }
    public var operation: Operation
}

@available(iOS 17.0, macOS 14.0, *)
public struct ASAuthorizationPublicKeyCredentialLargeBlobRegistrationOutput {
    public var isSupported: Bool
}

@available(iOS 17.0, macOS 14.0, *)
public struct ASAuthorizationPublicKeyCredentialLargeBlobAssertionOutput {
    public enum OperationResult {
        case read(data: Data?)
        case write(success: Bool)
    }
    public var result: OperationResult
}

@available(iOS 18.0, macOS 15.0, visionOS 2.0, *)
public struct ASAuthorizationPublicKeyCredentialPRFAssertionInput {
    public struct InputValues {
        public init(saltInput1: Data, saltInput2: Data? = nil) { fatalError() }
        public var saltInput1: Data
        public var saltInput2: Data?
    }
    public static func inputValues(_ inputValues: InputValues, perCredentialInputValues: [Data: InputValues]? = nil) -> Self { fatalError() }
    public static func perCredentialInputValues(_ perCredentialInputValues: [Data: InputValues]) -> Self { fatalError() }
    public let inputValues: InputValues?
    public let perCredentialInputValues: [Data: InputValues]?
}

@available(iOS 18.0, macOS 15.0, visionOS 2.0, *)
public struct ASAuthorizationPublicKeyCredentialPRFRegistrationInput {
    public typealias InputValues = ASAuthorizationPublicKeyCredentialPRFAssertionInput.InputValues
    public static var checkForSupport: Self { fatalError() }
    public static func inputValues(_ inputValues: InputValues) -> Self { fatalError() }
    public let shouldCheckForSupport: Bool
    public let inputValues: InputValues?
}

@available(iOS 18.0, macOS 15.0, visionOS 2.0, *)
public struct ASAuthorizationPublicKeyCredentialPRFAssertionOutput {
    public let first: SymmetricKey
    public let second: SymmetricKey?
}

@available(iOS 18.0, macOS 15.0, visionOS 2.0, *)
public struct ASAuthorizationPublicKeyCredentialPRFRegistrationOutput {
    public let isSupported: Bool
    public let first: SymmetricKey?
    public let second: SymmetricKey?
}
