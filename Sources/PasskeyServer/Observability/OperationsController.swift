import Hummingbird
import NIOCore
import PasskeyAPI
import PasskeyRelyingParty

/// The operator's routes: `GET /metrics` (Prometheus text, behind `--metrics-token` when one is set) and `GET /health`
/// (200 while the database answers, 503 when it does not).
struct OperationsController<Context: RequestContext>: Sendable {
    let metrics: CeremonyMetrics
    /// The hash of `--metrics-token`; nil serves the metrics to anyone who can reach them.
    let metricsTokenHash: [UInt8]?
    let health: DatabaseHealth

    init(metrics: CeremonyMetrics, metricsToken: String?, health: DatabaseHealth) {
        self.metrics = metrics
        metricsTokenHash = metricsToken.map(BearerSecrets.hash)
        self.health = health
    }

    func addRoutes(to router: Router<Context>) {
        router.get("metrics", use: metricsPage)
        router.get("health", use: healthCheck)
    }

    /// `GET /metrics`.
    func metricsPage(_ request: Request, context: Context) async -> Response {
        if let metricsTokenHash {
            // Compares hashes: equal-length values, no early exit on the secret's bytes.
            let sent = BearerSecrets.bearer(request.headers[.authorization]).map(BearerSecrets.hash)
            guard sent == metricsTokenHash else {
                var response = Response.error(APIError(.metricsTokenInvalid, "Send the metrics token as Authorization: Bearer <token>."))
                response.headers[.wwwAuthenticate] = #"Bearer realm="metrics""#
                return response
            }
        }
        return Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.exposition())))
    }

    /// `GET /health`.
    func healthCheck(_ request: Request, context: Context) async -> Response {
        guard await health.probe(logger: context.logger) else {
            return Response.json(HealthAnswer.databaseUnreachable, status: .serviceUnavailable)
        }
        return Response.json(HealthAnswer.healthy)
    }
}
