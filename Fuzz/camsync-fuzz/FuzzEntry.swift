import CamsyncHostile

/// libFuzzer's entry point: one input = one frame at the coordinator, against a fresh copy of
/// the realistic base cluster (see `HostileInput.fuzzOne`). Built only by `make fuzz`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafeRawPointer?, _ size: Int) -> Int32 {
    HostileInput.fuzzOne(data, size)
}
