/// The web page's routes (#36), one table: what the server answers, which need a login, and the
/// list `GET /api/v1/routes` gives (what the security test tries without one).
public enum WebRoute: String, Sendable, CaseIterable {
    case console = "/"
    case login = "/login"
    case logout = "/logout"
    case script = "/app.js"
    case style = "/app.css"
    case status = "/api/v1/status"
    case command = "/api/v1/command"
    case screenshot = "/api/v1/screenshot"
    case routes = "/api/v1/routes"
    case playlist = "/api/v1/playlist"
    case plays = "/api/v1/plays"
    case playsCSV = "/api/v1/plays.csv"
    case schedule = "/api/v1/schedule"
    case scheduleEntries = "/api/v1/schedule/entries"
    case log = "/api/v1/log"
    case uploads = "/api/v1/uploads"
    /// One upload under way: `/api/v1/uploads/` and its id (32 hex digits).
    case upload = "/api/v1/uploads/{id}"

    public var path: String { rawValue }

    /// The methods it answers (HEAD wherever GET is).
    public var methods: [String] {
        switch self {
        case .console, .script, .style, .status, .screenshot, .routes, .plays, .playsCSV, .schedule, .log:
            return ["GET", "HEAD"]
        case .login: return ["GET", "HEAD", "POST"]
        case .logout, .command: return ["POST"]
        case .playlist, .scheduleEntries: return ["GET", "HEAD", "PUT"]
        case .uploads: return ["POST"]
        case .upload: return ["GET", "HEAD", "PATCH", "DELETE"]
        }
    }

    /// Open without a login: the login form and its style sheet, nothing else.
    public var isPublic: Bool { self == .login || self == .style }

    /// Answered with JSON (401 without a login) rather than a page (a redirect to the login).
    public var isAPI: Bool { rawValue.hasPrefix("/api/") }

    public init?(path: String) {
        if Self.uploadID(in: path) != nil {
            self = .upload
            return
        }
        guard path != Self.upload.rawValue else { return nil }
        self.init(rawValue: path)
    }

    /// The id of `/api/v1/uploads/ID` (exactly 32 lowercase hex digits: never a path of its own).
    public static func uploadID(in path: String) -> String? {
        let prefix = "/api/v1/uploads/"
        guard path.hasPrefix(prefix) else { return nil }
        let id = path.dropFirst(prefix.count)
        guard id.count == 32, id.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else { return nil }
        return String(id)
    }

    /// The most a request's body may be: a login form or a command line is small (a `load` of a
    /// few hundred URLs fits).
    public static let bodyLimit = 64 * 1024
}
