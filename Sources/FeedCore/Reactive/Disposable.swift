import Synchronization

/// A handle that cancels work: a subscription, a scheduled action, a network transfer.
///
/// `dispose()` is idempotent and may be called from any thread, any number of times; the work it
/// cancels is torn down at most once.
public protocol Disposable: Sendable {
    func dispose()
}

/// Namespace for the small disposables the operators are built from.
public enum Disposables {
    /// A disposable with nothing to cancel.
    public static let empty: any Disposable = AnonymousDisposable {}

    /// Runs `action` the first time it is disposed, never again.
    public static func create(_ action: @escaping @Sendable () -> Void) -> any Disposable {
        AnonymousDisposable(action)
    }
}

/// Runs its action exactly once, on the first `dispose()`.
public final class AnonymousDisposable: Disposable {
    private let action: Mutex<(@Sendable () -> Void)?>

    public init(_ action: @escaping @Sendable () -> Void) {
        self.action = Mutex(action)
    }

    public var isDisposed: Bool { action.withLock { $0 == nil } }

    public func dispose() {
        let pending = action.withLock { action in
            defer { action = nil }
            return action
        }
        pending?()
    }
}

/// Owns a set of disposables and disposes them together. Anything added after disposal is
/// disposed immediately, so a late-arriving subscription can never leak.
public final class CompositeDisposable: Disposable {
    private let members: Mutex<[any Disposable]?> = Mutex([])

    public init() {}

    public func add(_ disposable: any Disposable) {
        let accepted = members.withLock { members -> Bool in
            guard members != nil else { return false }
            members?.append(disposable)
            return true
        }
        if !accepted { disposable.dispose() }
    }

    public func dispose() {
        let taken = members.withLock { members in
            defer { members = nil }
            return members ?? []
        }
        for member in taken { member.dispose() }
    }
}

/// Holds one disposable at a time; replacing it disposes the previous one. Used by operators that
/// move from one upstream subscription to the next (`catch`, `retry`, `flatMap(.latest)`).
public final class SerialDisposable: Disposable {
    private struct Slot: ~Copyable {
        var current: (any Disposable)?
        var isDisposed = false
    }
    private let slot = Mutex(Slot())

    public init() {}

    public var isDisposed: Bool { slot.withLock { $0.isDisposed } }

    /// Installs `disposable`, disposing the one it replaces; disposes `disposable` at once if this
    /// serial disposable is already disposed.
    public func replace(with disposable: any Disposable) {
        let (old, rejected) = slot.withLock { slot -> ((any Disposable)?, Bool) in
            if slot.isDisposed { return (nil, true) }
            defer { slot.current = disposable }
            return (slot.current, false)
        }
        old?.dispose()
        if rejected { disposable.dispose() }
    }

    public func dispose() {
        let old = slot.withLock { slot -> (any Disposable)? in
            slot.isDisposed = true
            defer { slot.current = nil }
            return slot.current
        }
        old?.dispose()
    }
}
