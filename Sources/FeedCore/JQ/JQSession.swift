import CJQ
import FeedModel
import FoundationEssentials
import Glibc

/// What the jq worker (`JQWorkerMain`) works with: compiled programs (each expression compiled
/// once and kept) and values parsed by jq. It exists only on the worker's one thread: it is not
/// `Sendable`, and neither is `JQValue`.
package struct JQSession: ~Copyable {
    private var programs: [String: OpaquePointer] = [:]

    /// `expression` compiled, from the cache when it was compiled before.
    package mutating func program(_ expression: String) throws(JQError) -> OpaquePointer {
        if let program = programs[expression] { return program }
        var error: UnsafeMutablePointer<CChar>?
        guard let program = cjq_compile(expression, &error) else {
            // jq's first line says what is wrong; the rest repeats the expression.
            var message =
                (Self.take(error) ?? "jq cannot compile it").split(separator: "\n").first.map(String.init) ?? ""
            if message.hasSuffix(":") { message.removeLast() }
            throw .compile(message)
        }
        programs[expression] = program
        return program
    }

    /// `text` (one JSON value) as jq's value.
    package func value(_ text: String) throws(JQError) -> JQValue {
        var error: UnsafeMutablePointer<CChar>?
        var text = text
        let value = text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { cjq_parse($0.baseAddress, $0.count, &error) }
        }
        guard let value else { throw .runtime(Self.take(error) ?? "jq cannot read the JSON") }
        return JQValue(value)
    }

    /// The value at `path` (a jq path as JSON text) in `root`.
    package func value(at path: String, in root: JQValue) throws(JQError) -> JQValue {
        var error: UnsafeMutablePointer<CChar>?
        var path = path
        let value = path.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { cjq_get_path(root.pointer, $0.baseAddress, $0.count, &error) }
        }
        guard let value else { throw .runtime(Self.take(error) ?? "no value at \(path)") }
        return JQValue(value)
    }

    /// Frees the compiled programs when more than `count` are kept (a worker lives for a whole
    /// run, and a fuzzer sends it endless new expressions).
    package mutating func forgetProgramsBeyond(_ count: Int) {
        guard programs.count > count else { return }
        for program in programs.values { cjq_program_free(program) }
        programs = [:]
    }

    /// The outputs of `expression` run on `value`, as compact JSON texts: at most `limit`, and
    /// whether there were more.
    package mutating func outputs(of expression: String, on value: JQValue, limit: Int) throws(JQError) -> (
        texts: [String], more: Bool
    ) {
        let program = try program(expression)
        var outputs = cjq_outputs()
        var more: Int32 = 0
        let status = cjq_run(program, value.pointer, Int32(clamping: limit), &outputs, &more)
        defer { cjq_outputs_free(&outputs) }
        if status != 0 {
            throw .runtime(outputs.error.map { String(cString: $0) } ?? "the expression failed")
        }
        guard let text = outputs.text else { return ([], more != 0) }
        let bytes = UnsafeRawBufferPointer(start: text, count: outputs.length)
        let texts = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true)
            .map { String(decoding: $0, as: UTF8.self) }
        return (texts, more != 0)
    }

    /// A message malloc'd by the C side, as a String; freed.
    private static func take(_ message: UnsafeMutablePointer<CChar>?) -> String? {
        guard let message else { return nil }
        defer { free(message) }
        return String(cString: message)
    }

    deinit {
        for program in programs.values { cjq_program_free(program) }
    }
}

/// A value parsed by jq, freed when released; only on the worker's thread.
package final class JQValue {
    package let pointer: OpaquePointer

    package init(_ pointer: OpaquePointer) { self.pointer = pointer }

    package var isObject: Bool { cjq_is_object(pointer) != 0 }

    deinit { cjq_value_free(pointer) }
}
