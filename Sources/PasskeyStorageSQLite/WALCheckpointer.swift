import Foundation
import GRDBSQLite
import PasskeyStorage

/// Copies the write-ahead log into the database file on a thread of its own, so that the writer's commits do not wait
/// for it.
///
/// SQLite's default runs a checkpoint after the commit that takes the WAL past 1 000 frames, on the committing
/// connection: the writer thread copies every page changed since the last checkpoint into the database file and syncs
/// it, and every write queued behind it waits that long. With many accounts each sign-in changes pages of its own (its
/// passkey's row, its account's row), so that copy is about one random write per frame, and those stalls were the
/// slowest sign-ins with a million accounts.
///
/// Here the writer's connection reports each commit's WAL size (`sqlite3_wal_hook`, which replaces SQLite's automatic
/// checkpoint on that connection). Every ``backgroundFrames`` new frames, this thread runs a passive checkpoint on its
/// own connection while the writer goes on committing. The writer still runs one itself once the WAL holds
/// ``restartFrames``: SQLite starts the WAL over from its beginning only when a writer begins with the whole WAL copied,
/// so the writer copies what arrived since the last background pass (little) and the WAL stays bounded as before.
/// Durability does not change: a commit is synced in the WAL before it is answered, whoever copies it later.
final class WALCheckpointer: @unchecked Sendable {
    /// New frames since the last request that wake the background thread.
    static let backgroundFrames: Int32 = 256
    /// WAL size (frames) from which the writer checkpoints after each commit, as SQLite's default does from 1 000.
    static let restartFrames: Int32 = 1_000

    // Guarded by `condition`.
    private let condition = NSCondition()
    private var requested = false
    private var stopped = false
    private var passes = 0
    /// The WAL's size when the background thread was last asked; used on the writer thread only.
    private var lastRequest: Int32 = 0
    private let path: String

    /// Starts the background thread for the database at `path` (in WAL mode already).
    init(path: String) {
        self.path = path
        let thread = Thread { [self] in run() }
        thread.name = "passkey-sqlite-checkpointer"
        thread.start()
    }

    /// Reports `connection`'s commits to this checkpointer instead of SQLite's automatic checkpoint. The checkpointer
    /// must outlive the connection (the hook holds it unretained).
    func install(on connection: RawConnection) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        _ = sqlite3_wal_hook(connection.handle, { context, handle, _, frames in
            guard let context, let handle else { return SQLITE_OK }
            Unmanaged<WALCheckpointer>.fromOpaque(context).takeUnretainedValue().committed(handle, frames: frames)
            return SQLITE_OK
        }, context)
    }

    /// After a commit on the writer's connection, with the WAL holding `frames` frames.
    private func committed(_ handle: OpaquePointer, frames: Int32) {
        if frames < lastRequest { lastRequest = 0 }  // the WAL started over
        if frames >= Self.restartFrames {
            // What the background pass has not copied yet, so that the next transaction can start the WAL over. Busy
            // (the background pass holds the checkpoint lock) is fine: the next commit tries again.
            _ = sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
        } else if frames - lastRequest >= Self.backgroundFrames {
            lastRequest = frames
            condition.lock()
            requested = true
            condition.signal()
            condition.unlock()
        }
    }

    /// Background checkpoints run so far (tests).
    var backgroundPasses: Int {
        condition.lock()
        defer { condition.unlock() }
        return passes
    }

    func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    private func run() {
        // Its own connection, synced as the writer's: a checkpoint syncs the WAL before it copies and the file after.
        // Should it fail to open, nothing is lost but the overlap: the writer's own checkpoints from ``restartFrames`` on
        // copy everything, as SQLite's default did.
        let connection = try? RawConnection(writerPath: path)
        while true {
            condition.lock()
            while !requested && !stopped { condition.wait() }
            let stop = stopped
            requested = false
            condition.unlock()
            if stop { return }
            guard let connection else { continue }
            _ = sqlite3_wal_checkpoint_v2(connection.handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            condition.lock()
            passes += 1
            condition.unlock()
        }
    }
}
