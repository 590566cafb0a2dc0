//! An opt-in log of the controllers' `tracing` events on standard error, for a reader tracing a
//! run: [`LOG_ENV`] names the targets and levels, in `tracing-subscriber`'s `EnvFilter` syntax.
//!
//! ```sh
//! DISCERN_LOG=discern::round=debug discern run scenarios/quick.toml 2> rounds.log
//! ```
//!
//! prints what `discern`'s default algorithm read at the end of every round trip
//! (`quinn_discern::trace::ROUND_TARGET`), with the flow's span (`discern_flow{index role}`) in
//! front. Lines carry no wall-clock time: a simulated run's time is virtual. Runs that go on in
//! parallel (`--jobs`) interleave their lines.

use std::sync::OnceLock;

use tracing::Subscriber;
use tracing_subscriber::filter::{filter_fn, FilterExt};
use tracing_subscriber::layer::{Layer, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::EnvFilter;

use crate::capture::SPAN;

/// The environment variable holding the directives, e.g. `discern::round=debug`.
pub const LOG_ENV: &str = "DISCERN_LOG";

/// What an error about [`LOG_ENV`] asks for.
const FORM: &str = "write target=level pairs, e.g. DISCERN_LOG=discern::round=debug";

/// The directives [`LOG_ENV`] holds, read and checked once for the process: none where it is
/// unset or blank, and an error that names the variable and the fix where they do not parse. The
/// CLI asks before any run; every run then builds its filter from the checked directives.
pub fn directives() -> &'static Result<Option<String>, String> {
    static DIRECTIVES: OnceLock<Result<Option<String>, String>> = OnceLock::new();
    DIRECTIVES.get_or_init(|| match std::env::var(LOG_ENV) {
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(_)) => {
            Err(format!("{LOG_ENV} is not valid UTF-8; {FORM}"))
        }
        Ok(directives) if directives.trim().is_empty() => Ok(None),
        Ok(directives) => parse_filter(&directives).map(|_| Some(directives)),
    })
}

/// `directives` as a filter, or an error naming [`LOG_ENV`] and the expected form.
pub fn parse_filter(directives: &str) -> Result<EnvFilter, String> {
    EnvFilter::try_new(directives)
        .map_err(|e| format!("{LOG_ENV}={directives:?} is not a tracing filter ({e}); {FORM}"))
}

/// `subscriber` with a layer that prints what [`LOG_ENV`] asks for to standard error, where it
/// asks for anything; `subscriber` alone otherwise. Alone, not beside an empty layer: a layer
/// without a filter of its own enables every callsite (quinn-proto's tracing with them), where
/// the runners' capture, filtered per layer, enables only its own. The log's filter is per layer
/// too, so the capture sees the events it always did.
pub fn with_env_log<S>(subscriber: S) -> Box<dyn Subscriber + Send + Sync>
where
    S: Subscriber + for<'a> LookupSpan<'a> + Send + Sync,
{
    let Some(filter) = directives()
        .as_ref()
        .ok()
        .and_then(Option::as_deref)
        .and_then(|checked| parse_filter(checked).ok())
    else {
        // Unset, or rejected by the CLI before any run.
        return Box::new(subscriber);
    };
    // The flow's span too, whatever the directives: it names the flow each line is of.
    let flow_span = filter_fn(|meta| meta.is_span() && meta.name() == SPAN);
    let layer = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .without_time()
        .with_filter(filter.or(flow_span));
    Box::new(subscriber.with(layer))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directives_that_do_not_parse_name_the_variable_and_the_form() {
        assert!(parse_filter("discern::round=debug").is_ok());
        let error = parse_filter("discern::round=loud").unwrap_err();
        assert!(error.contains(LOG_ENV), "{error}");
        assert!(error.contains(FORM), "{error}");
    }
}
