public import CamsyncWire

/// One reply of a turn: an envelope made for its request, or one encoded once for every request of
/// the turn that asks the same thing — the whole state's snapshot, megabytes at ten thousand nodes,
/// which a dozen observers asking in one turn must not cost a dozen encodings on the loop's thread.
enum TurnReply: Sendable {
    case envelope(Envelope)
    case shared(Publication, requestID: UInt64)

    var requestID: UInt64 {
        switch self {
        case .envelope(let envelope): envelope.requestID
        case .shared(_, let requestID): requestID
        }
    }

    func action(to routingID: [UInt8]) -> CoordinatorAction {
        switch self {
        case .envelope(let envelope): .reply(routingID: routingID, envelope)
        case .shared(let publication, let requestID): .answer(routingID: routingID, requestID: requestID, publication)
        }
    }
}

extension Publication {
    /// The reply to request `requestID`: these bytes, then the request id as an envelope of its own.
    /// Protobuf parses concatenated encodings of a message as their merge, the last value of a field
    /// winning, so this decodes as `envelope` with `requestID` set — without encoding it again.
    public func bytes(answering requestID: UInt64) -> [UInt8] {
        var tail = Envelope()
        tail.requestID = requestID
        return bytes + tail.serializedBytes()
    }
}

extension CoordinatorAction {
    /// A reply to one request, whichever way it was encoded: where it goes and what it says.
    public var reply: (routingID: [UInt8], envelope: Envelope)? {
        switch self {
        case .reply(let routingID, let envelope): return (routingID, envelope)
        case .answer(let routingID, let requestID, let publication):
            var envelope = publication.envelope
            envelope.requestID = requestID
            return (routingID, envelope)
        default: return nil
        }
    }
}
