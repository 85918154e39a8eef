/// What a ceremony's handler learned that its event should record even when the step fails: the username the request
/// named (a failed step's answer has none). One per request, used by that request's task only.
final class CeremonyNote {
    var username: String?
    /// What a successful step did, when its kind does not say it (a backend's `PATCH /users/{id}`: disabled or enabled).
    var detail: String?
}
