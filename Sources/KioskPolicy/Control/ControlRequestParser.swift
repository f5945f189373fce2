/// Reads one request line: `{"command": ["seek", 30, "relative"], "request_id": 7}`, or a bare
/// name `{"command": "pause"}`. Numbers may also come as text ("30"), since shell clients pass
/// words; anything else of the wrong type, a missing or extra argument, or a value out of range is
/// refused with a message that names the command, the argument and what was expected.
public enum ControlRequestParser {
    public static let maximumSeekSeconds = 1e9

    public static func parse(_ line: String) throws(ControlRequestError) -> ControlRequest {
        guard let value = ControlValue.parse(line) else {
            throw ControlRequestError("malformed JSON: the line is not a JSON text")
        }
        guard case .object = value else {
            throw ControlRequestError("malformed request: expected a JSON object such as {\"command\": [\"pause\"]}, got \(value.typeName)")
        }
        let requestID = value["request_id"]
        guard let command = value["command"] else {
            throw ControlRequestError("malformed request: no \"command\" member", requestID: requestID)
        }
        var words: [ControlValue]
        switch command {
        case .string: words = [command]
        case .array(let items): words = items
        default:
            throw ControlRequestError("malformed request: \"command\" must be an array or a string, got \(command.typeName)",
                                      requestID: requestID)
        }
        guard !words.isEmpty else { throw ControlRequestError("malformed request: \"command\" is empty", requestID: requestID) }
        guard case .string(let name) = words.removeFirst() else {
            throw ControlRequestError("malformed request: the command name must be a string", requestID: requestID)
        }
        do {
            return ControlRequest(command: try ControlCommandTable.parse(name, words), requestID: requestID, name: name)
        } catch {
            throw ControlRequestError(error.description, requestID: requestID)
        }
    }
}

extension ControlCommand {
    /// Every command's name and arguments, from the table (`commands` and error messages).
    public static var usage: [(name: String, arguments: String)] { ControlCommandTable.all.map { ($0.name, $0.arguments) } }
}
