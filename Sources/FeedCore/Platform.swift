// FeedCore uses FoundationEssentials (dates, data, URLs, files, JSON coding), not the full
// Foundation: linking full Foundation costs every start-up about 2 ms of loading and thousands of
// protocol-conformance records that ArgumentParser's reflection scans (see `scripts/bench.sh`,
// the `next` row). Imported once here for every file of the module, with the C library.
#if canImport(FoundationEssentials)
@_exported import FoundationEssentials
#else
@_exported import Foundation
#endif
#if canImport(Glibc)
@_exported import Glibc
#endif
