import Hummingbird
import PasskeyCore
import PasskeyRelyingParty
import PasskeyStorage

/// The app's router: its own routes, and the passkey routes over `repository` (the database of its choice).
func buildRouter<Repository: CeremonyRepository>(repository: Repository, origin: String, rpID: String) -> Router<BasicRequestContext> {
    let router = Router()
    let users = AppUsers()
    users.addRoutes(to: router)
    let passkeys = CeremonyService(
        repository: repository, relyingParty: RelyingParty(id: rpID, name: "Example app", origins: [origin]),
        configuration: CeremonyConfiguration(rpID: rpID))
    PasskeyRoutes(passkeys: passkeys, users: users).addRoutes(to: router)
    return router
}
