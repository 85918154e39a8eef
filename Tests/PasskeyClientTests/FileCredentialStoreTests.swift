import Foundation
import PasskeyClient
import PasskeyCore
import PasskeySoftwareAuthenticator
import PasskeyWire
import Testing
import PasskeyTestSupport

@Suite("File credential store")
struct FileCredentialStoreTests {
    typealias RP = TestRelyingParty

    func permissions(_ url: URL) throws -> Int? {
        (try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? NSNumber)?.intValue
    }

    func storeError(_ store: FileCredentialStore) async -> PasskeyError? {
        await thrownError { () async throws(PasskeyError) in try await store.allCredentials() }
    }

    @Test("a credential registered by one authenticator signs in from another reading the same file")
    func roundTrip() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let file = directory.file("nested/credentials.json")
        let rp = RP.relyingParty()

        let request = RP.registrationRequest(rp)
        let first = SoftwareAuthenticator(
            configuration: .init(algorithms: [.ed25519]), store: FileCredentialStore(fileURL: file))
        let registration = try await first.makeCredential(request)
        let record = try rp.verifyRegistration(registration, expectedChallenge: request.options.challenge)
            .credentialRecord(userHandle: RP.userHandle(1))

        let second = SoftwareAuthenticator(store: FileCredentialStore(fileURL: file))
        let signIn = RP.assertionRequest(rp)
        let assertion = try await second.getAssertion(signIn)
        let verified = try rp.verifyAuthentication(
            assertion, expectedChallenge: signIn.options.challenge, credential: record, expectedUser: .discoverable)
        #expect(verified.newSignCount == 1)
        #expect(verified.userHandle == RP.userHandle(1))

        let stored = try await FileCredentialStore(fileURL: file).allCredentials()
        #expect(stored.count == 1)
        #expect(stored.first?.id == record.id)
        #expect(stored.first?.signCount == 1)
        #expect(stored.first?.algorithm == .ed25519)
        #expect(stored.first?.userName == "ann@example.com")
        #expect(stored.first?.lastUsedAt != nil)
    }

    @Test("the file is created with mode 0600, stays 0600 after rewrites, and no temporary files are left")
    func mode0600() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let file = directory.file("credentials.json")
        let authenticator = SoftwareAuthenticator(store: FileCredentialStore(fileURL: file))
        _ = try await authenticator.makeCredential(RP.registrationRequest(user: 1))
        #expect(try permissions(file) == 0o600)
        _ = try await authenticator.makeCredential(RP.registrationRequest(user: 2))
        _ = try await authenticator.getAssertion(RP.assertionRequest())
        #expect(try permissions(file) == 0o600)
        // The lock file that changes take turns on stays, private too.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted() == [".credentials.json.lock", "credentials.json"])
        #expect(try permissions(directory.file(".credentials.json.lock")) == 0o600)
    }

    @Test("stores sharing one file (as processes do) lose no passkey when they register at once")
    func concurrentRegistrations() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let file = directory.file("credentials.json")
        // A store per task: each its own actor and its own file descriptors, as separate `passkey` processes have.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for user: UInt8 in 1...16 {
                group.addTask {
                    let authenticator = SoftwareAuthenticator(store: FileCredentialStore(fileURL: file))
                    _ = try await authenticator.makeCredential(RP.registrationRequest(user: user))
                }
            }
            try await group.waitForAll()
        }
        let stored = try await FileCredentialStore(fileURL: file).allCredentials()
        #expect(Set(stored.map(\.userHandle)) == Set((UInt8(1)...16).map { RP.userHandle($0) }))
    }

    @Test("sign-ins at once with one credential from stores sharing its file each sign a counter value of their own")
    func concurrentSignIns() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let file = directory.file("credentials.json")
        let rp = RP.relyingParty()
        let request = RP.registrationRequest(rp)
        let registration = try await SoftwareAuthenticator(store: FileCredentialStore(fileURL: file)).makeCredential(request)
        let record = try rp.verifyRegistration(registration, expectedChallenge: request.options.challenge)
            .credentialRecord(userHandle: RP.userHandle(1))

        let counters = try await withThrowingTaskGroup(of: UInt32.self) { group in
            for _ in 1...16 {
                group.addTask {
                    let signIn = RP.assertionRequest(rp)
                    let assertion = try await SoftwareAuthenticator(store: FileCredentialStore(fileURL: file)).getAssertion(signIn)
                    return try rp.verifyAuthentication(
                        assertion, expectedChallenge: signIn.options.challenge, credential: record, expectedUser: .discoverable
                    ).newSignCount
                }
            }
            return try await group.reduce(into: [UInt32]()) { $0.append($1) }
        }
        #expect(counters.sorted() == Array(1...16))
        #expect(try await FileCredentialStore(fileURL: file).allCredentials().first?.signCount == 16)
    }

    @Test("a missing file is an empty store")
    func missingFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        #expect(try await FileCredentialStore(fileURL: directory.file("absent.json")).allCredentials().isEmpty)
    }

    @Test("save and remove keep the one-per-account rule in the file")
    func saveAndRemove() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let store = FileCredentialStore(fileURL: directory.file("credentials.json"))
        let authenticator = SoftwareAuthenticator(store: store)
        _ = try await authenticator.makeCredential(RP.registrationRequest(user: 1))
        let old = try #require(try await store.allCredentials().first)
        _ = try await authenticator.makeCredential(RP.registrationRequest(user: 1))
        let current = try await store.allCredentials()
        #expect(current.count == 1 && current.first?.id != old.id)
        #expect(try await store.removeCredential(id: current[0].id))
        #expect(try await store.removeCredential(id: current[0].id) == false)
        #expect(try await store.allCredentials().isEmpty)
    }

    /// Writes `text` as the store's file with mode 0600.
    func write(_ text: String, to url: URL) throws {
        try Data(text.utf8).write(to: url)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
    }

    /// A valid file with one credential, as JSON text.
    func validFile(_ directory: TemporaryDirectory) async throws -> (URL, String) {
        let file = directory.file("credentials.json")
        _ = try await SoftwareAuthenticator(store: FileCredentialStore(fileURL: file)).makeCredential(RP.registrationRequest())
        return (file, String(decoding: try Data(contentsOf: file), as: UTF8.self))
    }

    @Test("a corrupt file is a clear storage_corrupted error, not a crash")
    func corrupt() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let (file, _) = try await validFile(directory)
        try write("{\"format\": \"passkey-software-credentials\", \"version\": 1, \"credentials\": [", to: file)
        let error = await storeError(FileCredentialStore(fileURL: file))
        #expect(error?.code == .storageCorrupted)
        #expect(error?.stage == .storage)
        #expect(error?.reason.contains("not JSON") == true)

        try write("hello", to: file)
        #expect(await storeError(FileCredentialStore(fileURL: file))?.code == .storageCorrupted)
        try write("{\"format\": \"something-else\", \"version\": 1, \"credentials\": []}", to: file)
        #expect(await storeError(FileCredentialStore(fileURL: file))?.reason.contains("not a credential file") == true)
    }

    @Test("a tampered credential names the credential and member")
    func tampered() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let (file, text) = try await validFile(directory)
        let document = try JSONValue.parse(text)
        let credential = try #require(document.objectValue?["credentials"]?.arrayValue?.first?.objectValue)

        /// Rewrites the file with one member of the credential changed.
        func tamper(_ member: String, _ value: JSONValue) throws {
            var edited = credential
            edited[member] = value
            var root = try #require(document.objectValue)
            root["credentials"] = .array([.object(edited)])
            try write(JSONValue.object(root).serialized(), to: file)
        }
        let cases: [(String, JSONValue, String)] = [
            ("privateKey", .string(Base64URL.encode([1, 2, 3])), "privateKey"),
            // The P-256 group order n is not a valid private scalar.
            ("privateKey", .string("_____wAAAAD__________7zm-q2nF56E87nKwvxjJVE"), "not a valid es256 private key"),
            ("algorithm", .number(-257), "algorithm"),
            ("signCount", .number(-1), "signCount"),
            ("userHandle", .string("@@"), "userHandle"),
            ("id", .string(Base64URL.encode([1])), "id"),
            ("createdAt", .null, "createdAt"),
            ("prfSecret", .string(Base64URL.encode([1, 2, 3])), "prfSecret"),
            ("largeBlob", .string(Base64URL.encode([1, 2, 3])), "without large-blob support"),
            ("largeBlobSupported", .string("yes"), "largeBlobSupported"),
        ]
        for (member, value, expected) in cases {
            try tamper(member, value)
            let error = await storeError(FileCredentialStore(fileURL: file))
            #expect(error?.code == .storageCorrupted, "\(member)")
            #expect(error?.reason.contains("credentials[0]") == true, "\(member)")
            #expect(error?.reason.contains(expected) == true, "\(member): \(error?.reason ?? "no error")")
        }
    }

    @Test("a PRF secret survives the file, which is version 2 only while a credential has one; its outputs stay the same")
    func prfSecretInFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let (_, plain) = try await validFile(directory)
        #expect(plain.contains("\"version\": 1") && !plain.contains("prfSecret"), "a file without PRF credentials stays readable by older releases")

        let file = directory.file("prf.json")
        var request = RP.registrationRequest(user: 2)
        request.options.extensions = ["prf": ["eval": ["first": "c2FsdA"]]]
        let registered = try await SoftwareAuthenticator(store: FileCredentialStore(fileURL: file)).makeCredential(request)
        let text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
        #expect(text.contains("\"version\": 2") && text.contains("\"prfSecret\""))

        var signIn = RP.assertionRequest()
        signIn.options.extensions = ["prf": ["eval": ["first": "c2FsdA"]]]
        let assertion = try await SoftwareAuthenticator(store: FileCredentialStore(fileURL: file)).getAssertion(signIn)
        let output = assertion.clientExtensionResults["prf"]?.objectValue?["results"]?.objectValue?["first"]
        #expect(output != nil && output == registered.clientExtensionResults["prf"]?.objectValue?["results"]?.objectValue?["first"])
        #expect(try await FileCredentialStore(fileURL: file).allCredentials().first?.prfSecret?.count == 32)
    }

    @Test("a large blob survives the file, which is version 3 only while a credential supports large blobs; one store's write keeps another's sign-in")
    func largeBlobInFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let file = directory.file("blob.json")
        var request = RP.registrationRequest(user: 2)
        request.options.extensions = ["largeBlob": ["support": "required"]]
        let registered = try await SoftwareAuthenticator(store: FileCredentialStore(fileURL: file)).makeCredential(request)
        let id = try #require(Base64URL.decode(registered.id))
        var text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
        #expect(text.contains("\"version\": 3") && text.contains("\"largeBlobSupported\": true") && !text.contains("\"largeBlob\":"))

        // Two stores on one file, as two processes, at the same time: every write keeps every sign-in recorded through
        // the other (each is one step under the file's lock; read-then-save would lose some).
        let writer = FileCredentialStore(fileURL: file)
        let signer = FileCredentialStore(fileURL: file)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for round in 0..<20 {
                group.addTask { _ = try await signer.recordUse(ofCredential: id, counter: .incrementing, at: Date()) }
                group.addTask { _ = try await writer.writeLargeBlob([0xCA, UInt8(round)], toCredential: id) }
            }
            try await group.waitForAll()
        }
        #expect(try await writer.writeLargeBlob([0xCA, 0xFE], toCredential: id))
        let stored = try #require(try await FileCredentialStore(fileURL: file).allCredentials().first)
        #expect(stored.largeBlob == [0xCA, 0xFE] && stored.signCount == 20 && stored.largeBlobSupported)
        text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
        #expect(text.contains("\"largeBlob\": \"yv4\""))
        #expect(try await writer.writeLargeBlob([1], toCredential: [9, 9, 9]) == false, "no such credential")

        // A credential without large-blob support takes no blob, and its file stays version 1.
        let plainFile = directory.file("plain.json")
        let plain = try await SoftwareAuthenticator(store: FileCredentialStore(fileURL: plainFile)).makeCredential(RP.registrationRequest(user: 3))
        #expect(try await FileCredentialStore(fileURL: plainFile).writeLargeBlob([1], toCredential: try #require(Base64URL.decode(plain.id))) == false)
        #expect(String(decoding: try Data(contentsOf: plainFile), as: UTF8.self).contains("\"version\": 1"))
    }

    @Test(
        "the one-step changes are the stores' own, also through the protocol as the authenticator calls them: concurrent sign-ins, renames and blob writes lose nothing",
        arguments: ["file", "memory"])
    func oneStepThroughProtocol(kind: String) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let file = directory.file("steps.json")
        var request = RP.registrationRequest(user: 4)
        request.options.extensions = ["largeBlob": [:]]
        let memory = InMemoryCredentialStore()
        let first: any CredentialStore = kind == "file" ? FileCredentialStore(fileURL: file) : memory
        // For a file, a second store on it, as a second process; in memory, the same actor.
        let second: any CredentialStore = kind == "file" ? FileCredentialStore(fileURL: file) : memory
        let registered = try await SoftwareAuthenticator(store: first).makeCredential(request)
        let id = try #require(Base64URL.decode(registered.id))
        let handle = RP.userHandle(4)
        let counters = try await withThrowingTaskGroup(of: UInt32?.self) { group in
            for round in 0..<12 {
                let store = round % 2 == 0 ? first : second
                group.addTask { try await store.recordUse(ofCredential: id, counter: .incrementing, at: Date())?.signCount }
                group.addTask {
                    try await store.renameUser(rpID: RP.rpID, userHandle: handle, name: "name-\(round)", displayName: "")
                    return nil
                }
                group.addTask {
                    _ = try await store.writeLargeBlob([UInt8(round)], toCredential: id)
                    return nil
                }
            }
            var counters: [UInt32] = []
            for try await counter in group { if let counter { counters.append(counter) } }
            return counters
        }
        #expect(counters.sorted() == Array(1...12), "every sign-in signed its own counter value: \(counters.sorted())")
        let stored = try #require(try await first.allCredentials().first)
        #expect(stored.signCount == 12, "no sign-in was undone by a rename or a blob write")
        #expect(stored.userName.hasPrefix("name-") && stored.largeBlob?.count == 1)
    }

    @Test("called on the concrete store types too (where a synchronous method had lost to the protocol's default), the one-step changes lose nothing")
    func oneStepOnConcreteTypes() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        var request = RP.registrationRequest(user: 5)
        request.options.extensions = ["largeBlob": [:]]
        let handle = RP.userHandle(5)

        let memory = InMemoryCredentialStore()
        let memoryID = try #require(Base64URL.decode(try await SoftwareAuthenticator(store: memory).makeCredential(request).id))
        let file = directory.file("concrete.json")
        let fileID = try #require(Base64URL.decode(try await SoftwareAuthenticator(store: FileCredentialStore(fileURL: file)).makeCredential(request).id))
        let (a, b) = (FileCredentialStore(fileURL: file), FileCredentialStore(fileURL: file))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for round in 0..<12 {
                group.addTask { _ = await memory.recordUse(ofCredential: memoryID, counter: .incrementing, at: Date()) }
                group.addTask { await memory.renameUser(rpID: RP.rpID, userHandle: handle, name: "m-\(round)", displayName: "") }
                group.addTask { _ = await memory.writeLargeBlob([UInt8(round)], toCredential: memoryID) }
                group.addTask { _ = try await (round % 2 == 0 ? a : b).recordUse(ofCredential: fileID, counter: .incrementing, at: Date()) }
                group.addTask { try await (round % 2 == 0 ? b : a).renameUser(rpID: RP.rpID, userHandle: handle, name: "f-\(round)", displayName: "") }
            }
            try await group.waitForAll()
        }
        #expect(await memory.allCredentials().first?.signCount == 12)
        #expect(try await a.allCredentials().first?.signCount == 12, "no sign-in undone by a rename through the other store")
    }

    @Test("a file from a newer format version is refused with a message saying so")
    func newerVersion() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let (file, text) = try await validFile(directory)
        try write(text.replacingOccurrences(of: "\"version\": 1", with: "\"version\": 4"), to: file)
        let error = await storeError(FileCredentialStore(fileURL: file))
        #expect(error?.code == .storageCorrupted)
        #expect(error?.reason.contains("newer release") == true)
    }

    @Test("a file other users can read is refused")
    func insecureMode() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let (file, _) = try await validFile(directory)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
        let error = await storeError(FileCredentialStore(fileURL: file))
        #expect(error?.code == .storageFailed)
        #expect(error?.reason.contains("644") == true)
    }

    @Test("a corrupt store surfaces through the authenticator as a storage error")
    func corruptThroughAuthenticator() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let file = directory.file("credentials.json")
        try write("[]", to: file)
        let authenticator = SoftwareAuthenticator(store: FileCredentialStore(fileURL: file))
        let error = await thrownError { () async throws(PasskeyError) in try await authenticator.getAssertion(RP.assertionRequest()) }
        #expect(error?.code == .storageCorrupted)
        #expect(error?.userMessage == "Saved passkeys are damaged and could not be read.")
    }
}
