/// The chat app's server side (`../shared/CONTRACT.md`, "The chat app"), registered in one
/// place: its write triggers (`ChatApp+Triggers.swift`), and its callables where they exist.
public enum ChatApp {}
