//! What the page's table shows, as plain figures: one line per row (each limiter, then the
//! Durable Object), whichever way they were computed, and the table printed from them.

use std::fmt::Write;

use crate::core::durable::Outcome;
use crate::core::lab::LabRun;
use crate::core::time::format_millis;

/// One row of the page's table (`data-testid="stats-<slug>"`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Figures {
    pub slug: &'static str,
    pub label: String,
    /// Let through, delayed ones included (`data-allowed`).
    pub passed: u64,
    pub delayed: u64,
    /// Refused: 429s, and the Durable Object's fail-closed 503s (`data-rejected`).
    pub rejected: u64,
    /// Of the rejected, those refused by the second limit (`data-refused-by-second`).
    pub refused_by_second: u64,
    /// The most one key had served inside one window (`data-max-in-window`).
    pub most_in_window: u64,
    /// With clients that obey (`core::retries`): retries sent (`data-retries`), wasted
    /// (`data-wasted`), clients that gave up (`data-gave-up`) and the 95th percentile of a
    /// served client's wait in ms (`data-p95-wait-ms`, empty when none was served).
    pub clients: Option<(u64, u64, u64, String)>,
}

/// The whole table, with what the page says above it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    /// The requests of the traffic.
    pub requests: u64,
    /// The lab's limit, which "most in one window" is compared with.
    pub limit: u64,
    /// Whether the rows have a second limit (`also=`), whose refusals get a column.
    pub second_limit: bool,
    pub rows: Vec<Figures>,
    /// Rows that could not run, named with why (the page's error line).
    pub notes: Vec<String>,
}

impl Summary {
    /// The figures of a run the page computed.
    pub fn of_run(run: &LabRun) -> Summary {
        let mut rows: Vec<Figures> = run
            .runs
            .iter()
            .map(|r| Figures {
                slug: r.algorithm.slug(),
                label: r.algorithm.label().to_string(),
                passed: r.passed(),
                delayed: r.delayed,
                rejected: r.rejected,
                refused_by_second: r.refused_by_second,
                most_in_window: r.max_in_window,
                clients: r.clients.as_ref().map(|c| {
                    (
                        c.retries.len() as u64,
                        c.wasted,
                        c.gave_up,
                        c.p95_wait
                            .map(|w| format_millis(w.micros()))
                            .unwrap_or_default(),
                    )
                }),
            })
            .collect();
        let mut notes: Vec<String> = run.error.iter().cloned().collect();
        match &run.durable {
            Some(Ok(report)) => rows.push(Figures {
                slug: "do",
                label: "Durable Object".into(),
                passed: report.passed(),
                delayed: report.count(Outcome::Delayed),
                rejected: report.count(Outcome::Rejected) + report.count(Outcome::FailedClosed),
                refused_by_second: 0,
                most_in_window: report.most_in_window,
                clients: None,
            }),
            Some(Err(e)) => notes.push(format!("Durable Object: {e}")),
            None => {}
        }
        Summary {
            requests: run.trace.len() as u64,
            limit: run.settings.limit,
            second_limit: run.settings.also.is_some(),
            rows,
            notes,
        }
    }

    /// The table as text: the page's columns, a row that broke the limit marked.
    pub fn table(&self) -> String {
        let mut out = String::new();
        let _ = write!(
            out,
            "{:<34} {:>12} {:>16} {:>12} {:>18}",
            "algorithm", "let through", "of them delayed", "rejected", "most in one window"
        );
        if self.second_limit {
            let _ = write!(out, " {:>18}", "by the second limit");
        }
        let clients = self.rows.iter().any(|r| r.clients.is_some());
        if clients {
            let _ = write!(
                out,
                " {:>8} {:>8} {:>8} {:>14}",
                "retries", "wasted", "gave up", "p95 wait (ms)"
            );
        }
        out.push('\n');
        for row in &self.rows {
            let broke = if row.most_in_window > self.limit {
                "  more than the limit"
            } else {
                ""
            };
            let _ = write!(
                out,
                "{:<34} {:>12} {:>16} {:>12} {:>18}",
                row.label, row.passed, row.delayed, row.rejected, row.most_in_window
            );
            if self.second_limit {
                let _ = write!(out, " {:>18}", row.refused_by_second);
            }
            match &row.clients {
                Some((retries, wasted, gave_up, p95)) => {
                    let _ = write!(out, " {retries:>8} {wasted:>8} {gave_up:>8} {p95:>14}");
                }
                None if clients => {
                    let _ = write!(out, " {:>8} {:>8} {:>8} {:>14}", "", "", "", "");
                }
                None => {}
            }
            let _ = writeln!(out, "{broke}");
        }
        let _ = writeln!(
            out,
            "{} requests, limit {} per window",
            self.requests, self.limit
        );
        out
    }
}
