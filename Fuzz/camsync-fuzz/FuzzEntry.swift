import CamsyncHostile

/// libFuzzer's entry point: one input = one frame at the coordinator, against a fresh copy of
/// the realistic base cluster (see `HostileInput.fuzzOne`). Built only by `make fuzz`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    HostileInput.fuzzOne(UnsafeRawPointer(data), size)
}

/// libFuzzer's driver (in libclang_rt.fuzzer, linked by `-sanitize=fuzzer`).
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

/// SwiftPM links an executable target with `--defsym main=<module>_main`, which would hide
/// libFuzzer's own `main`; so provide that symbol and hand over to libFuzzer's driver.
@_cdecl("camsync_fuzz_main")
public func camsyncFuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments, fuzzOneInput)
}
