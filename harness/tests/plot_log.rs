//! `discern plot` on a real application's log: a quinn transfer over loopback with a discern
//! controller, logged by tracing-subscriber's JSON formatter as the README says, becomes the
//! `flows.csv` and plots a run writes.

#[path = "../../controllers/tests/loopback/mod.rs"]
mod loopback;

use std::io::Write;
use std::process::Command;
use std::sync::{Arc, Mutex};

use tracing_subscriber::fmt::MakeWriter;

/// A log file the subscriber appends to.
#[derive(Clone)]
struct LogFile(Arc<Mutex<std::fs::File>>);

impl Write for LogFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.0.lock().unwrap().flush()
    }
}

impl<'a> MakeWriter<'a> for LogFile {
    type Writer = LogFile;
    fn make_writer(&'a self) -> Self::Writer {
        self.clone()
    }
}

#[test]
fn a_json_log_of_a_quinn_transfer_becomes_the_runs_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("app.log");
    let file = LogFile(Arc::new(Mutex::new(std::fs::File::create(&log).unwrap())));
    let subscriber = tracing_subscriber::fmt()
        .json()
        .with_writer(file)
        .with_env_filter("discern::cwnd=trace")
        .finish();
    tracing::subscriber::with_default(subscriber, || {
        let mut transport = quinn::TransportConfig::default();
        transport.congestion_controller_factory(Arc::new(quinn_discern::DiscernConfig::default()));
        let data = Arc::new(vec![5u8; 4 << 20]);
        let received = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(loopback::upload(transport, data.clone()));
        assert_eq!(received, *data);
    });

    let out = dir.path().join("out");
    let o = Command::new(env!("CARGO_BIN_EXE_discern"))
        .args([
            "plot",
            log.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for file in [
        "flows.csv",
        "cwnd.png",
        "cwnd.svg",
        "throughput.png",
        "throughput.svg",
    ] {
        assert!(out.join(file).is_file(), "{file} missing");
    }
    let csv = std::fs::read_to_string(out.join("flows.csv")).unwrap();
    let rows: Vec<Vec<&str>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    assert!(rows.len() > 10, "{csv}");
    assert!(rows.iter().all(|r| r[1] == "discern"));
    // The series grows as the transfer does: time and delivered bytes never go back.
    let column = |i: usize| -> Vec<f64> { rows.iter().map(|r| r[i].parse().unwrap()).collect() };
    let (t, delivered) = (column(2), column(6));
    assert!(t.windows(2).all(|w| w[0] <= w[1]));
    assert!(delivered.windows(2).all(|w| w[0] <= w[1]));
    assert!(*delivered.last().unwrap() > 1e6, "{delivered:?}");
}
