import ArgumentParser
import CamsyncClient
import CamsyncPolicy
import CamsyncVerbs
import CamsyncWire
import Foundation
import ZeroMQ

struct CtlWatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print the live event stream (sequence, time, node, command, events); follows coordinator restarts.",
        discussion: """
            Examples (F=deploy/topologies/lab.yaml; the second: the journal's history, then live):
              camsync ctl watch -f $F --device ipad-1 --json
              camsync ctl watch -f $F --from-sequence 0

            With --from-sequence N the history after N is replayed from the coordinator's journal first \
            (a replay request), then the live stream follows without a gap; batches the live stream \
            misses are replayed too. If the journal no longer holds batch N+1 the command says so and \
            exits with code 3 (take a snapshot: `ctl status`).

            With --device the stream is that device's group (the device and its displays): the batches \
            of `all` that name the group, each naming the group's previous batch, so a missed one is \
            noticed and replayed from the journal like a gap of the whole stream; each line's topic is \
            the group's (`ev.DEVICE`).

            Each sequence is printed once: a batch a new HA leader publishes again after a failover \
            (SPEC K7), or one the live stream repeats after a replay, is skipped.
            """)

    @OptionGroup var cluster: ClusterOptions
    @Flag(help: "One JSON object per line.") var json = false
    @Option(help: "Only this device's group: the device and the displays attached to it.") var device: String?
    @Option(help: "Stop after this many seconds (0 = until interrupted).") var seconds: Double = 0
    @Flag(help: "Also print coordinator heartbeats.") var heartbeats = false
    @Option(help: "Replay every batch after this sequence from the journal before following the live stream.")
    var fromSequence: UInt64?

    func run() throws {
        let resolved = try cluster.resolve()
        let group = device.map { NodeID($0) }
        // An observer follows everything on the event socket; a group is a filter of it (a node's own
        // feed is pushed on its command connection, docs/PROTOCOL.md "The feed").
        let topics = [EventTopic.everyBatch, EventTopic.heartbeat]
        let subscriber = try EventSubscriber(context: ZMQContext(), endpoint: resolved.eventEndpoint, topics: topics,
                                             curve: resolved.curve)
        defer { subscriber.close() }
        if !json { emit("watching \(resolved.eventEndpoint) (\(topics.map(Self.printable).joined(separator: ", "))); Ctrl-C to stop") }
        let deadline = seconds > 0 ? Date().addingTimeInterval(seconds) : nil
        var position = EventStreamPosition()
        var history: CoordinatorClient?
        func journal() throws -> CoordinatorClient {
            if let history { return history }
            let endpoint = resolved.commandEndpoints.count > 1 ? try resolved.leaderCommandEndpoint() : resolved.commandEndpoint
            let client = try CoordinatorClient(context: ZMQContext(), endpoint: endpoint, sender: "admin", curve: resolved.curve)
            history = client
            return client
        }
        if let fromSequence {
            position.shown(through: try replay(after: fromSequence, through: nil, of: group, with: journal()))
        }
        defer { history?.close() }
        var lastHeard = Date()
        var silentNoted = false
        while deadline.map({ Date() < $0 }) ?? true {
            guard let (topic, envelope) = try subscriber.next(timeoutMilliseconds: 500) else {
                if !silentNoted, Date().timeIntervalSince(lastHeard) > 3 {
                    if !json { emit("… no heartbeat from the coordinator for 3 s; still listening (it may be restarting)") }
                    silentNoted = true
                }
                continue
            }
            lastHeard = Date()
            silentNoted = false
            switch position.note(term: envelope.term) {
            case .deposed: continue  // HA: a deposed leader's late publications carry a lower term than one already seen (K6).
            case .rose(let from) where from != 0 && !json: emit("— coordinator restarted: term \(from) → \(envelope.term)")
            default: break
            }
            switch envelope.body {
            case .eventBatch(let batch)?:
                let previous = position.lastShown
                if let group {
                    // A batch of the group names the group's previous one: a later one means some were missed.
                    guard let entry = batch.groups.first(where: { $0.group == group.rawValue }),
                          let missed = position.show(batch.sequence, groupPrevious: entry.sequence) else { continue }
                    if missed {
                        if !json { emit("— batches of \(group) were missed; replaying them from the journal") }
                        position.shown(through: try replay(after: previous, through: batch.sequence - 1, of: group, with: journal()))
                    }
                } else {
                    // Shown already: replayed, or published again by a new leader (K7).
                    guard let missed = position.show(batch.sequence) else { continue }
                    if missed > 0 {
                        if let history {
                            position.shown(through: try replay(after: previous, through: batch.sequence - 1, of: nil, with: history))
                        } else if !json {
                            emit("— missed \(missed) event batches (subscriber was behind)")
                        }
                    }
                }
                emit(render(batch, topic: Self.printable(group.map { EventTopic.node($0) } ?? topic)))
            case .coordinatorHeartbeat(let heartbeat)? where heartbeats:
                emit(json ? "{\"heartbeat\":{\"term\":\(heartbeat.term),\"lastSequence\":\(heartbeat.lastSequence)}}"
                           : "♥ term \(heartbeat.term) last sequence \(heartbeat.lastSequence)")
            default:
                continue
            }
        }
    }

    /// A topic as printed: a group's without its zero byte.
    static func printable(_ topic: String) -> String { topic.replacingOccurrences(of: "\u{0}", with: "") }

    /// Prints the journal's batches after `sequence` (up to `last`, or all it has), of `group` only when
    /// one is given; returns the last sequence read.
    private func replay(after sequence: UInt64, through last: UInt64?, of group: NodeID?,
                        with client: CoordinatorClient) throws -> UInt64 {
        var after = sequence
        while true {
            let page: Camsync_V1_Replay
            do {
                page = try client.replay(after: after)
            } catch let error as ClientError {
                if let refusal = error.refusal, refusal.code == .compacted {
                    FileHandle.standardError.write(Data("ctl watch: \(refusal.message)\n".utf8))
                    throw ExitCode(3)
                }
                throw error
            }
            for batch in page.batches {
                if let last, batch.sequence > last { return last }   // the live stream shows the rest
                after = batch.sequence
                guard group.map({ group in batch.groups.contains { $0.group == group.rawValue } }) ?? true else { continue }
                emit(render(batch, topic: "replay"))
            }
            if page.batches.isEmpty || after >= (last ?? page.lastSequence) { return after }
        }
    }

    private func render(_ batch: Camsync_V1_EventBatch, topic: String) -> String {
        let command = (try? batch.domainCommand()).map { $0.words.description } ?? "(undecodable command)"
        let events = ((try? batch.domainEvents()) ?? []).map(\.words)
        let origin = batch.originNode.isEmpty ? "coordinator" : batch.originNode
        if json {
            let object: [String: Any] = [
                "sequence": batch.sequence, "term": batch.term, "timeMs": batch.timeMs, "node": origin,
                "topic": topic, "command": command, "events": events,
            ]
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
            return String(decoding: data, as: UTF8.self)
        }
        let time = Date(timeIntervalSince1970: Double(batch.timeMs) / 1000)
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm:ss.SSS"
        // The command's words start with the node it acted through; the origin is said only when it differs.
        let said = command.hasPrefix(origin + " ") ? command : "\(origin): \(command)"
        var lines = ["#\(batch.sequence) \(formatter.string(from: time)) \(said)"]
        lines += events.map { "    → \($0)" }
        return lines.joined(separator: "\n")
    }
}

/// Writes a line straight to stdout (unbuffered), so a pipe or file sees each event as it happens.
func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
