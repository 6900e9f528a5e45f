import FoundationEssentials
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
/// disposed immediately, so a late-arriving subscription can never leak. A member that has
/// finished on its own can be let go with `remove(_:)`, so long-lived composites do not grow.
///
/// Members are kept in small arrays searched by key, not in a dictionary and a set: a composite
/// holds a few members at a time (a `flatMap`'s running inners), and each `flatMap` of each
/// feed's sync made one, whose hashing and two storages were a share of a quiet feed's
/// allocations.
public final class CompositeDisposable: Disposable {
    /// Names a member; reserve it before the member exists, so that a member that finishes
    /// before it is added (a synchronous subscription) can be removed first and is then not kept.
    public struct Key: Hashable, Sendable {
        fileprivate let value: Int
    }

    private struct Members: ~Copyable {
        var live: [(key: Int, member: any Disposable)] = []
        /// Keys removed before their member was added (at most a few at a time).
        var removedEarly: [Int] = []
        var nextKey = 0
        var isDisposed = false
    }
    private let members = Mutex(Members())

    public init() {}

    public func reserveKey() -> Key {
        members.withLock { members in
            defer { members.nextKey += 1 }
            return Key(value: members.nextKey)
        }
    }

    public func add(_ disposable: any Disposable) {
        add(disposable, for: reserveKey())
    }

    public func add(_ disposable: any Disposable, for key: Key) {
        let accepted = members.withLock { members -> Bool in
            guard !members.isDisposed else { return false }
            if let early = members.removedEarly.firstIndex(of: key.value) {
                members.removedEarly.remove(at: early)
            } else {
                members.live.append((key.value, disposable))
            }
            return true
        }
        if !accepted { disposable.dispose() }
    }

    /// Lets a member go without disposing it (it has finished).
    public func remove(_ key: Key) {
        members.withLock { members in
            if let index = members.live.firstIndex(where: { $0.key == key.value }) {
                members.live.remove(at: index)
            } else if !members.isDisposed {
                members.removedEarly.append(key.value)
            }
        }
    }

    public func dispose() {
        let taken = members.withLock { members in
            defer {
                members.live = []
                members.isDisposed = true
            }
            return members.live.map(\.member)
        }
        for member in taken { member.dispose() }
    }
}

/// Holds one disposable at a time; replacing it disposes the previous one. Used by operators that
/// move from one upstream subscription to the next (`catch`, `retry`).
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
