//! Controller ids resolve to working factories, and bad ids say what is wrong and how to fix it.

use std::time::Instant;

use quinn_discern::registry::{self, ParseError};
use quinn_discern::DiscernAlgorithm;
use quinn_proto::TransportConfig;

#[test]
fn every_catalog_id_resolves_and_builds_a_controller() {
    for info in registry::catalog() {
        let spec = registry::parse(info.id).unwrap_or_else(|e| panic!("{}: {e}", info.id));
        assert_eq!(spec.id(), info.id);
        let controller = spec.factory().build(Instant::now(), 1200);
        assert!(controller.window() >= 2 * 1200, "{}", info.id);
        for param in info.params {
            let with_default = format!("{}:{}={}", info.id, param.name, param.default);
            registry::parse(&with_default).unwrap_or_else(|e| panic!("{with_default}: {e}"));
        }
    }
}

/// The config an id builds, as `Debug` shows it.
fn config_of(id: &str) -> String {
    let spec = registry::parse(id).unwrap_or_else(|e| panic!("{id}: {e}"));
    format!("{:?}", spec.config())
}

/// For every row, with no line per controller: the id alone, and the id with every listed default
/// spelt out, build exactly the row's config type's `Default` (the row is that type, from the
/// crate's one list of controllers), so a listed default that does not read back as the
/// config's own fails here, naming the id.
#[test]
fn every_row_builds_its_default_config_and_its_listed_defaults_are_that_config() {
    for info in registry::catalog() {
        let default = format!("{:?}", info.default_config());
        assert_eq!(
            config_of(info.id),
            default,
            "{} with no parameters",
            info.id
        );
        if info.params.is_empty() {
            continue;
        }
        let every_default: Vec<String> = info
            .params
            .iter()
            .map(|p| format!("{}={}", p.name, p.default))
            .collect();
        let spelt_out = format!("{}:{}", info.id, every_default.join(","));
        assert_eq!(config_of(&spelt_out), default, "{spelt_out}");
    }
}

#[test]
fn a_parameter_reaches_the_config_and_the_last_one_given_wins() {
    let config = config_of("modified-sack:tolerance=0.2,granularity=5ms,tolerance=0.1");
    let mut expected = quinn_discern::ModifiedSackConfig::default();
    expected
        .tolerance(0.1)
        .unwrap()
        .granularity(std::time::Duration::from_millis(5));
    assert_eq!(config, format!("{expected:?}"));
}

#[test]
fn every_classifier_can_front_every_controller() {
    let classifiers = registry::catalog().iter().filter(|c| c.classifier);
    for classifier in classifiers {
        for inner in registry::catalog() {
            let id = format!("{}+{}", classifier.id, inner.id);
            let spec = registry::parse(&id).unwrap_or_else(|e| panic!("{id}: {e}"));
            assert_eq!(spec.id(), id);
        }
    }
}

#[test]
fn modified_tahoe_carries_its_packet_threshold_into_the_transport_config() {
    assert_eq!(
        registry::parse("modified-tahoe")
            .unwrap()
            .packet_threshold(),
        Some(2)
    );
    assert_eq!(
        registry::parse("modified-tahoe:packet_threshold=4")
            .unwrap()
            .packet_threshold(),
        Some(4)
    );
    assert_eq!(registry::parse("tahoe").unwrap().packet_threshold(), None);
    // The threshold survives a classifier in front.
    assert_eq!(
        registry::parse("composite+modified-tahoe")
            .unwrap()
            .packet_threshold(),
        Some(2)
    );
    let mut transport = TransportConfig::default();
    registry::parse("modified-tahoe")
        .unwrap()
        .apply(&mut transport);
    assert!(format!("{transport:?}").contains("packet_threshold: 2"));
}

#[test]
fn parameters_reach_the_algorithm() {
    let spec = registry::parse("modified-sack:tolerance=0.2,granularity=5ms").unwrap();
    let controller = spec.factory().build(Instant::now(), 1200);
    let controller = controller
        .into_any()
        .downcast::<quinn_discern::ModifiedSack>()
        .expect("a ModifiedSack");
    let classifier = controller.algorithm().classifier();
    assert_eq!(
        classifier,
        &quinn_discern::classify::RttTolerance::new(0.2, std::time::Duration::from_millis(5))
    );

    let discern = |id: &str| {
        registry::parse(id)
            .unwrap()
            .factory()
            .build(Instant::now(), 1200)
            .into_any()
            .downcast::<quinn_discern::Discern>()
            .expect("a Discern")
    };
    let loss_test_on = |id: &str| match discern(id).algorithm() {
        DiscernAlgorithm::FullQueue(a) => a.classifier().loss_by_queue().is_some(),
        DiscernAlgorithm::ShortQueue(_) => panic!("{id}: the short-queue default"),
    };
    assert!(matches!(
        discern("discern").algorithm(),
        DiscernAlgorithm::ShortQueue(_)
    ));
    assert!(!loss_test_on("discern:queue=full"));
    assert!(loss_test_on("discern:queue=full,aqm=on"));
    assert!(!loss_test_on("discern:queue=full,aqm=off,slow_start=delay"));
}

fn error(id: &str) -> String {
    match registry::parse(id) {
        Ok(spec) => panic!("{id} parsed as {spec:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn bad_ids_name_the_problem_and_the_fix() {
    let unknown = error("cubic");
    assert!(
        unknown.contains("unknown controller \"cubic\""),
        "{unknown}"
    );
    assert!(unknown.contains("quinn-cubic"), "{unknown}");

    let param = error("modified-sack:tol=0.1");
    assert!(param.contains("has no parameter \"tol\""), "{param}");
    assert!(param.contains("tolerance (default 0.05)"), "{param}");

    assert!(error("tahoe:alpha=1").contains("takes no parameters"));
    assert!(error("wnewreno:margin").contains("wnewreno:margin=VALUE"));

    let value = error("sack-few:alpha=2");
    assert!(value.contains("bad alpha \"2\""), "{value}");
    assert!(value.contains("from 0 to 1"), "{value}");
    assert!(error("modified-sack:tolerance=-1").contains("at least 0"));
    assert!(error("modified-sack:tolerance=NaN").contains("at least 0"));
    assert!(error("composite:granularity=fast").contains("duration such as 1ms"));
    assert!(error("modified-tahoe:restart_window=0").contains("at least 1"));
    assert!(error("modified-tahoe:packet_threshold=99999999999").contains("below 2^32"));

    let beta = error("discern:beta=2");
    assert!(beta.contains("bad beta \"2\""), "{beta}");
    assert!(beta.contains("above 0 and below 1"), "{beta}");
    assert!(error("discern:beta=NaN").contains("bad beta"));
    assert!(error("discern:beta=-0.5").contains("bad beta"));
    assert!(error("discern:queue=full,growth=vegas").contains("reno or cubic"));
    assert!(error("discern:queue=full,memory=0s").contains("bad memory"));
    assert!(error("discern:queue=full,aqm=yes").contains("on or off"));
    assert!(error("discern:queue=full,slow_start=hystart").contains("loss or delay"));
    assert!(error("discern:queue=half").contains("short or full"));
    // The earlier design's knobs do nothing to the default: an error, not a silent no-op.
    let knob = error("discern:aqm=on");
    assert!(
        knob.contains("aqm") && knob.contains("queue=full"),
        "{knob}"
    );
    assert!(error("veno:beta=-3").contains("at least 0"));

    let front = error("tahoe+quinn-cubic");
    assert!(front.contains("cannot classify losses"), "{front}");
    assert!(front.contains("composite"), "{front}");
    assert!(error("composite+wnewreno+newreno").contains("only one classifier"));
    assert_eq!(registry::parse("  ").unwrap_err(), ParseError::Empty);
    assert!(error("composite+nope").contains("unknown controller \"nope\""));
}

#[test]
fn builders_reject_what_the_registry_rejects() {
    use quinn_discern::{
        ModifiedSackConfig, ModifiedTahoeConfig, SackFewConfig, SackNewRenoConfig, VenoConfig,
        WNewRenoConfig,
    };
    for bad in [f64::NAN, -1.0, f64::INFINITY] {
        assert!(ModifiedSackConfig::default().tolerance(bad).is_err());
        assert!(WNewRenoConfig::default().margin(bad).is_err());
        assert!(SackFewConfig::default().alpha(bad).is_err());
        assert!(VenoConfig::default().beta(bad).is_err());
        assert!(ModifiedTahoeConfig::default().ssthresh_factor(bad).is_err());
    }
    assert!(SackFewConfig::default().alpha(1.5).is_err());
    assert!(ModifiedTahoeConfig::default().ssthresh_factor(0.0).is_err());
    assert!(ModifiedTahoeConfig::default().restart_window(0).is_err());
    assert!(ModifiedTahoeConfig::default().packet_threshold(0).is_err());
    let small = SackNewRenoConfig::default()
        .initial_window(1000)
        .unwrap_err();
    assert!(small.to_string().contains("initial_window"), "{small}");
    assert!(SackNewRenoConfig::default().initial_window(14_720).is_ok());
    // The registry reports the builder's reason with the id's own text.
    let error = error("sack-few:alpha=NaN");
    assert!(error.contains("bad alpha \"NaN\""), "{error}");
}

#[test]
fn a_boxed_controller_says_which_algorithm_it_is_and_a_clone_is_a_new_flow() {
    use quinn_discern::{Adapter, LossBasedAlgorithm};
    use std::time::Instant;
    // Four controllers, one type: the id tells them apart.
    for id in ["tahoe", "reno", "newreno", "sack-few"] {
        let boxed = registry::parse(id)
            .unwrap()
            .factory()
            .build(Instant::now(), 1200);
        let clone = boxed.clone_box();
        let original = boxed
            .into_any()
            .downcast::<Adapter<LossBasedAlgorithm>>()
            .unwrap();
        assert_eq!(original.id(), id);
        let clone = clone
            .into_any()
            .downcast::<Adapter<LossBasedAlgorithm>>()
            .unwrap();
        assert_eq!(clone.id(), id);
        assert_ne!(clone.flow_id(), original.flow_id(), "{id}");
    }
    let filter = registry::parse("composite+quinn-cubic")
        .unwrap()
        .factory()
        .build(Instant::now(), 1200)
        .into_any()
        .downcast::<quinn_discern::LossFilter<quinn_discern::classify::SackGapAndRtt>>()
        .unwrap();
    assert_eq!(filter.id(), "composite+quinn-cubic");
}
