import FeedBase
import FeedModel
import FeedReactive
import FoundationEssentials
import Synchronization

/// `follow` with no FEED: every feed as the store has it while the session runs. A feed added
/// by another process (`feeds add|import`) is followed, one removed is dropped, one changed
/// (`feeds set`, `feeds add --replace`) is followed anew with its new settings, each within
/// `watchInterval` (or `unmarkedWatchInterval`) of the change.
extension FeedReactor {
    /// How often the store's change mark is read (`FeedStoring.changeMark`).
    package static let watchInterval: Duration = .milliseconds(1_500)
    /// How often the feeds of a store that keeps no change mark are read again.
    package static let unmarkedWatchInterval: Duration = .seconds(3)

    /// Follows `records`, then the feeds the store holds whenever its mark says it changed: a
    /// merge of one `following` a feed, each ended (`take(until:)`, so what it holds is still
    /// printed and committed) when its feed is removed or changed. Ends when the session ends,
    /// or when every feed's following ended by itself (streams ended for good).
    func followingEveryFeed(_ records: [FeedRecord], session: FollowSession, limits: FollowLimits) -> Observable<
        FeedMutation
    > {
        let store = environment.store
        let scheduler = environment.scheduler
        return Observable { observer in
            let followed = FollowedFeeds()
            let feeds = Subject<FeedRecord>()
            let work = feeds.observable.flatMap(.merge(maxConcurrent: Int.max)) { record in
                let (dropped, key) = followed.started(record)
                return following(record, session: session, limits: limits)
                    .take(until: dropped)
                    // A feed not found is one removed since it was listed: dropped, not failed
                    // (the watch drops it from the followed ones at its next look).
                    .filter { mutation in
                        if case .failed(_?, .notFound) = mutation { return false }
                        return true
                    }
                    .handleEvents(onCompleted: {
                        if followed.ended(record.name, key: key) { feeds.send(.completed) }
                    })
            }
            let subscription = work.subscribe(observer.send)
            for record in records { feeds.send(.next(record)) }
            let watch = SerialDisposable()
            let mark = Locked(try? store.changeMark())
            @Sendable func look() {
                let interval = mark.value == nil ? Self.unmarkedWatchInterval : Self.watchInterval
                watch.replace(
                    with: scheduler.schedule(after: interval) {
                        let now = try? store.changeMark()
                        let changed =
                            now == nil
                            || mark.withLock { mark in
                                defer { mark = now }
                                return mark != now
                            }
                        // A store that cannot be read now is looked at again at the next turn.
                        if changed, let records = try? store.feeds() {
                            for record in followed.reconciled(with: Self.followedByAll(records)) {
                                feeds.send(.next(record))
                            }
                        }
                        look()
                    })
            }
            look()
            let ended = session.ended.subscribe { _ in
                watch.dispose()
                feeds.send(.completed)
            }
            return Disposables.create {
                ended.dispose()
                watch.dispose()
                subscription.dispose()
            }
        }
    }
}

/// The feeds a `follow` of every feed follows now, each with what ends its following (it was
/// removed, or changed and is followed anew).
///
/// Thread-safe: feeds start and end on the threads their work runs on, the watch on the
/// scheduler's.
final class FollowedFeeds: Sendable {
    private struct Followed {
        var record: FeedRecord
        var key: Int
        var drop: Subject<Void>
    }
    private struct State {
        var followed: [String: Followed] = [:]
        var nextKey = 0
    }
    private let state = Mutex(State())

    /// A feed's following starts: what ends it, and its key (a feed changed twice is three
    /// followings, one after another, of one name).
    func started(_ record: FeedRecord) -> (dropped: Observable<Void>, key: Int) {
        state.withLock { state in
            state.nextKey += 1
            let drop = Subject<Void>()
            state.followed[record.name] = Followed(record: record, key: state.nextKey, drop: drop)
            return (drop.observable, state.nextKey)
        }
    }

    /// A feed's following ended; true when it ended by itself and was the last one (the whole
    /// follow is then done, as a follow of named feeds is once they all ended).
    func ended(_ name: String, key: Int) -> Bool {
        state.withLock { state in
            guard state.followed[name]?.key == key else { return false }  // dropped, or followed anew
            state.followed[name] = nil
            return state.followed.isEmpty
        }
    }

    /// Drops the feeds that are gone from `records` or changed in them, and returns the feeds
    /// to follow (anew): those added and those changed.
    func reconciled(with records: [FeedRecord]) -> [FeedRecord] {
        let (drops, starts) = state.withLock { state -> ([Subject<Void>], [FeedRecord]) in
            var drops: [Subject<Void>] = []
            var starts: [FeedRecord] = []
            let names = Set(records.map(\.name))
            for (name, followed) in state.followed where !names.contains(name) {
                drops.append(followed.drop)
                state.followed[name] = nil
            }
            for record in records {
                if let followed = state.followed[record.name] {
                    guard Self.settingsDiffer(followed.record, record) else { continue }
                    drops.append(followed.drop)
                    state.followed[record.name] = nil
                }
                starts.append(record)
            }
            return (drops, starts)
        }
        for drop in drops { drop.send(.completed) }
        return starts
    }

    /// Whether a feed's settings changed (what it is, how it is read, how often, what it keeps),
    /// not its state (cursors, counts, errors).
    static func settingsDiffer(_ old: FeedRecord, _ new: FeedRecord) -> Bool {
        old.registration != new.registration || old.every != new.every || old.retention != new.retention
    }
}
