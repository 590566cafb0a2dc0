//! Synthetic run results for the tests, and the small scenario they run.

// Each test crate uses some of these helpers.
#![allow(dead_code)]

use quinn_discern_harness::report::*;

fn flow_summary(flow: usize, controller: &str, goodput_bps: f64) -> FlowSummary {
    FlowSummary {
        flow,
        controller: controller.into(),
        outcome: if flow == 0 {
            Outcome::Completed
        } else {
            Outcome::Unbounded
        },
        bytes_asked: (flow == 0).then_some(1_000_000),
        bytes_delivered: 1_000_000,
        bytes_verified: 1_000_000,
        packets_delivered: 700,
        goodput_bps,
        start_s: 0.0,
        completion_time_s: if flow == 0 { Some(1.5) } else { None },
        lost_packets: 3 + flow as u64,
        congestion_events: 2,
        verdicts: Verdicts {
            random: 1,
            congestion: 1,
            ecn_marks: 0,
        },
        verdict_accuracy: None,
        verified: true,
        flow_control_limited: false,
        queue: None,
        receiver_closed: None,
        receiver_acks: None,
    }
}

pub fn synthetic(controllers: &[&str], goodput_bps: f64, samples: usize) -> RunOutput {
    let flows: Vec<FlowSummary> = controllers
        .iter()
        .enumerate()
        .map(|(i, c)| flow_summary(i, c, goodput_bps))
        .collect();
    let series = controllers
        .iter()
        .enumerate()
        .map(|(i, c)| FlowSeries {
            flow: i,
            controller: c.to_string(),
            samples: (0..samples)
                .map(|k| Sample {
                    t_s: k as f64 * 0.01,
                    cwnd_bytes: 12_000 + 1200 * (k as u64 % 40) * (i as u64 + 1),
                    ssthresh_bytes: if k < 10 { None } else { Some(30_000) },
                    rtt_s: 0.1 + 0.001 * (k % 5) as f64,
                    delivered_bytes: 1250 * k as u64,
                })
                .collect(),
        })
        .collect();
    RunOutput {
        summary: Summary {
            receiver_lies: Vec::new(),
            scenario: "synthetic".into(),
            link: LinkInfo {
                kind: "sim".into(),
                engine: "discrete-event simulator".into(),
            },
            duration_s: samples as f64 * 0.01,
            seed: 7,
            flows,
            links: vec![],
            drops: Some(Drops {
                queue: 4,
                channel: 9,
            }),
            verdict_accuracy: Some(VerdictAccuracy {
                random_as_random: 5,
                random_as_congestion: 1,
                congestion_as_congestion: 2,
                congestion_as_random: 0,
                spurious: 0,
            }),
            delay_signals: None,
        },
        series,
        timing: Timing {
            wall_s: 0.25,
            quinn_s: 0.1,
        },
    }
}

/// Two NewReno flows over one 10 Mbit/s link for `duration`, as a scenario file's text.
pub fn two_flows(name: &str, duration: &str) -> String {
    format!(
        r#"
name = "{name}"
description = "two flows over one link"
duration = "{duration}"
seed = 1

[[link]]
name = "bottleneck"
rate = "10Mbit"
delay = "10ms"
queue = 20

[[flow]]
controller = "newreno"
path = ["bottleneck"]
count = 2
"#
    )
}

/// The commands of shell lines as a reader types them: `#` comments stripped, `\` continuations
/// joined, whitespace collapsed, empty lines left out.
pub fn shell_commands<'a>(lines: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut commands = Vec::new();
    let mut pending = String::new();
    for line in lines {
        let code = line.split(" #").next().unwrap_or("");
        let code = if code.trim_start().starts_with('#') {
            ""
        } else {
            code
        };
        match code.trim_end().strip_suffix('\\') {
            Some(continued) => pending.push_str(continued),
            None => {
                pending.push_str(code);
                let command = pending.split_whitespace().collect::<Vec<_>>().join(" ");
                if !command.is_empty() {
                    commands.push(command);
                }
                pending.clear();
            }
        }
    }
    commands
}
