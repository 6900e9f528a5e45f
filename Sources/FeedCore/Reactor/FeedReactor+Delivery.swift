import FeedKinds
import FeedModel
import FeedReactive
import FoundationEssentials
import Glibc

/// The delivery step: entries are printed through `environment.output` first, then committed as
/// far as they got out. No store transaction is open while printing.
extension FeedReactor {
    /// Turns a strategy's steps into mutations: requests into activity, batches into delivery
    /// and commit. `budget` (`follow --max-entries`) bounds what is printed: a batch past it is
    /// committed as far as it was printed, and the rest comes again with the next run.
    ///
    /// `locksEachDelivery`: the feed's lock is taken for each batch that has entries, from its
    /// printing to its commit (a `follow`'s stream, which owns the feed but does not hold its
    /// lock while it waits for events).
    package func mutations(
        ofSteps steps: Observable<SyncStep>, feed: String, printing: Bool, marksDelivered: Bool,
        budget: EntryBudget? = nil, locksEachDelivery: Bool = false
    ) -> Observable<FeedMutation> {
        let store = environment.store
        return steps.flatMap(.concat) { step -> Observable<FeedMutation> in
            switch step {
            case .requesting(let url, let number):
                return .just(.activity(feed: feed, .fetching(url: Redaction.maskingSecrets(in: url), page: number)))
            case .batch(let batch) where locksEachDelivery && !batch.entries.isEmpty:
                let lock = try store.lock(feed: feed)
                return try withExtendedLifetime(lock) {
                    try deliverAndCommit(
                        batch, feed: feed, printing: printing, marksDelivered: marksDelivered, budget: budget)
                }
            case .batch(let batch):
                return try deliverAndCommit(
                    batch, feed: feed, printing: printing, marksDelivered: marksDelivered, budget: budget)
            case .batches(let batches):
                let lock = locksEachDelivery ? try store.lock(feed: feed) : nil
                defer { withExtendedLifetime(lock) {} }
                // One feed's block, in bounded commits: no other feed prints in between.
                return try environment.output.exclusively { () throws -> Observable<FeedMutation> in
                    var done: [FeedMutation] = []
                    for index in 0..<batches.count where budget?.isSpent != true {
                        let batch = batches.batch(index)
                        let outcome = try printThenCommit(
                            batch, feed: feed, printing: printing, marksDelivered: marksDelivered,
                            budget: budget)
                        done += outcome.mutations
                        if let stop = outcome.stop { return .concat([.from(done), .fail(stop)]) }
                    }
                    return .from(done)
                }
            case .warning(let message):
                return .just(.warned(feed: feed, message))
            case .sourceTitle(let title):
                try store.setSourceTitle(feed: feed, title)
                return .empty()
            case .connected:
                return .just(.connected(feed: feed))
            case .connectionFailed(let failure):
                // Recorded as any failure of the feed (`status` shows it); the stream goes on
                // trying after its backoff.
                return recordFailure(failure, feed: feed)
            }
        }
    }

    /// The delivery step: prints the batch's entries, commits as many as got out (with the
    /// cursor that goes with them), and stops the run when the output failed. No store
    /// transaction is open while printing, so a slow reader holds up no other run.
    package func deliverAndCommit(
        _ batch: FetchedBatch, feed: String, printing: Bool, marksDelivered: Bool, budget: EntryBudget? = nil
    ) throws -> Observable<FeedMutation> {
        if batch.entries.isEmpty {
            // Nothing to print: the bookkeeping joins other quiet feeds' in one transaction.
            return groupCommit.commit(feed: feed, batch.complete).map { record in .stored(feed: feed, count: 0, record)
            }
        }
        let outcome = try printThenCommit(
            batch, feed: feed, printing: printing, marksDelivered: marksDelivered, budget: budget)
        return outcome.stop.map { .concat([.from(outcome.mutations), .fail($0)]) } ?? .from(outcome.mutations)
    }

    /// Prints and commits a batch that has entries, at once; what happened, and the failure that
    /// stops the run when the output failed.
    package func printThenCommit(
        _ batch: FetchedBatch, feed: String, printing: Bool, marksDelivered: Bool, budget: EntryBudget? = nil
    ) throws -> (mutations: [FeedMutation], stop: FeedFailure?) {
        var batch = batch
        var report = DeliveryReport(delivered: batch.entries.count)
        if printing, !batch.entries.isEmpty {
            let allowed = budget?.reserve(batch.entries.count) ?? batch.entries.count
            do {
                // Numbered before printing whatever the output shows (a handle in plain text,
                // `FEEDCLI_HANDLE` to a command, nothing in JSON): one run, one sequence of steps.
                if allowed > 0 {
                    batch.entries = try numbered(batch.entries, feed: feed, backfill: batch.complete.isBackfill)
                }
            } catch {
                budget?.spend(0, of: allowed)
                throw error
            }
            if environment.output.takesTimePerEntry, allowed > 1, !marksDelivered {
                // A command per entry: what it took is committed as it goes (at most every
                // `commitInterval`), so a kill loses none of what finished.
                return try deliverCommittingAsItGoes(batch, allowed: allowed, feed: feed, budget: budget)
            }
            report =
                allowed > 0
                ? environment.output.deliver(Array(batch.entries.prefix(allowed))) : DeliveryReport(delivered: 0)
            budget?.spend(report.delivered, of: allowed)
            keptNumbers.record(
                delivered: batch.entries.prefix(report.delivered),
                undelivered: batch.entries.dropFirst(report.delivered),
                feed: feed)
        }
        var mutations: [FeedMutation] = []
        if let commit = batch.commit(delivered: report.delivered) {
            let outcome = try environment.store.commitFetch(
                feed: feed, entries: Array(batch.entries.prefix(report.delivered)), commit)
            mutations.append(.stored(feed: feed, count: outcome.entries.count, outcome.record))
            if marksDelivered { mutations += outcome.entries.map(FeedMutation.delivered) }
        }
        guard let failure = report.failure else { return (mutations, nil) }
        let unprinted =
            marksDelivered
            ? "the entry was not stored; the next run fetches it again"
            : "\(report.delivered) of \(batch.entries.count) new entries of \(feed) were printed and stored; "
                + "the other \(batch.entries.count - report.delivered) come again with the next sync"
        return (mutations, Self.stop(failure, unprinted: unprinted))
    }

    /// How long what an output that takes time per entry has taken may wait for its commit (the
    /// contract's rule for a follow's groups: every 100 entries or 200 ms).
    package static let commitInterval: Duration = .milliseconds(200)

    /// `printThenCommit` through an output that takes time per entry: entries handed over one at
    /// a time, what was taken committed whenever `commitInterval` passed (the feed's counts and
    /// position with the last commit only: a part commits its entries and the cursor after them),
    /// until all went or one was refused.
    private func deliverCommittingAsItGoes(
        _ batch: FetchedBatch, allowed: Int, feed: String, budget: EntryBudget?
    ) throws -> (mutations: [FeedMutation], stop: FeedFailure?) {
        var mutations: [FeedMutation] = []
        var committed = 0
        var taken = 0
        var failure: DeliveryReport.Failure?
        var since = ContinuousClock.now
        func commit() throws {
            guard taken > committed, var commit = batch.commit(delivered: taken) else { return }
            if taken < batch.entries.count {  // counts once, with the whole batch
                commit.skipped = .add(0)
                commit.filtered = .add(0)
                commit.kept = .add(0)
            }
            let outcome = try environment.store.commitFetch(
                feed: feed, entries: Array(batch.entries[committed..<taken]), commit)
            mutations.append(.stored(feed: feed, count: outcome.entries.count, outcome.record))
            committed = taken
            since = ContinuousClock.now
        }
        while taken < allowed, failure == nil {
            let report = environment.output.deliver([batch.entries[taken]])
            taken += report.delivered
            failure = report.failure
            if ContinuousClock.now - since >= Self.commitInterval { try commit() }
        }
        budget?.spend(taken, of: allowed)
        keptNumbers.record(
            delivered: batch.entries.prefix(taken), undelivered: batch.entries.dropFirst(taken), feed: feed)
        try commit()
        guard let failure else { return (mutations, nil) }
        let unprinted =
            "\(taken) of \(batch.entries.count) new entries of \(feed) were handed over and stored; "
            + "the other \(batch.entries.count - taken) come again with the next sync"
        return (mutations, Self.stop(failure, unprinted: unprinted))
    }

    /// `entries` numbered: those a delivery of this run did not take keep the numbers they had
    /// then, the others get new ones from the store.
    private func numbered(_ entries: [Entry], feed: String, backfill: Bool) throws -> [Entry] {
        var entries = keptNumbers.restore(entries, feed: feed)
        let fresh = entries.indices.filter { entries[$0].seq == 0 }
        guard !fresh.isEmpty else { return entries }
        let numbered = try environment.store.number(fresh.map { entries[$0] }, backfill: backfill)
        for (index, entry) in zip(fresh, numbered) { entries[index] = entry }
        return entries
    }

    /// The failure that stops a run whose output failed or was interrupted, or (a refusal) the
    /// feed whose entry the output refused.
    package static func stop(_ failure: DeliveryReport.Failure, unprinted: String) -> FeedFailure {
        switch failure {
        case .interrupted: .interrupted
        case .output(let error): .output("cannot write to stdout (\(error)): \(unprinted)")
        case .refused(let why): .commandFailed(why)
        }
    }
}
