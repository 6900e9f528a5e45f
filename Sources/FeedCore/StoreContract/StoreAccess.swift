/// What a command does with a store, which decides how either engine opens it.
public enum StoreAccess: Sendable {
    /// Commands that change the store (`next`, `sync`, `feeds add`, …).
    case readWrite
    /// Commands that only read (`list`, `show`, `status`); they never create a store (a missing
    /// one is read as empty, standing for it).
    case readOnly
}
