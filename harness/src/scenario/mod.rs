//! Scenario files (TOML): the typed model and its parser.

mod model;
pub use model::*;
