/// The one policy for a transition that cannot happen. Two kinds are told apart:
/// - an answer or event that arrives after the phase that asked for it ended (a late read, a
///   leadership already given up) can happen, and is logged and ignored where it arrives
///   (`answerOfAnotherPhase`, the guards at each entry point);
/// - a transition the core's own bookkeeping rules out (a read due while leading, a step-down with
///   no leadership held, the HA state of an embedded coordinator) is a bug: the core stops with a
///   message that names the transition and the state it was in, whatever world runs it.
extension CoordinatorCore {
    func cannotHappen(_ transition: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
        preconditionFailure("\(transition) cannot happen in state \(role) (term \(term), sequence \(sequence))", file: file, line: line)
    }
}
