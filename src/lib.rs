//! End-to-end tests of the `discern` workspace live in `tests/`; this crate has no code of its own.
