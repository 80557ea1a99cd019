//! Each subcommand from its arguments to its output. Without the Durable Object row, the
//! traffic (a file, standard input or the query's own) streams through the rows a request at a
//! time, so a file of any length runs in memory that grows with its keys, not its lines; with
//! `do=1` or clients that obey (`clients=obey`, whose retries come back later than the requests
//! that follow them) it is read whole and computed as the page computes it (`core::lab`).

use std::io::Write;
use std::path::Path;

use crate::core::config_file::{self, Rows};
use crate::core::export::{csv_header, CsvWriter};
use crate::core::lab::LabRun;
use crate::core::lab_state::LabState;
use crate::core::limiter::Complete;
use crate::core::traffic::DEFAULT_KEY;

use super::args::{Cli, Command, ConfigArg, TrafficArg};
use super::figures::{Figures, Summary};
use super::read::{TrafficError, TrafficLines};
use super::rows::{Arrival, StreamRows};
use super::shard::{Shard, ShardFilter};
use super::source::{open_text, read_query, read_text, read_whole, view_query};
use super::{CliError, EXIT_CHECK_FAILED};

/// Bytes of CSV gathered before they are written out.
const CSV_CHUNK: usize = 1 << 16;

pub fn run(cli: Cli) -> Result<u8, CliError> {
    let command = cli.command.unwrap_or(Command::Table {
        query: cli.query,
        traffic: TrafficArg { traffic: None },
        config: ConfigArg::default(),
    });
    match command {
        Command::Table {
            query,
            traffic,
            config,
        } => {
            let query = query_or_view_files(query, traffic.traffic.as_deref())?;
            let state = prepare(&query, &config, traffic.traffic.as_deref(), None, false)?;
            let summary = summarize(state, traffic.traffic.as_deref(), None)?;
            let mut out = std::io::stdout().lock();
            write(&mut out, summary.table().as_bytes())?;
            notes(&summary);
            Ok(0)
        }
        Command::Csv {
            query,
            traffic,
            config,
            shard,
        } => {
            let path = traffic.traffic.as_deref();
            let query = query_or_view_files(query, path)?;
            let state = prepare(&query, &config, path, shard.shard, false)?;
            csv(state, path, shard.shard)?;
            Ok(0)
        }
        Command::Check {
            query,
            traffic,
            max_refused,
            config,
            shard,
        } => {
            let query = query_or_view_files(query, Some(&traffic))?;
            let state = prepare(&query, &config, Some(&traffic), shard.shard, true)?;
            let summary = summarize(state, Some(&traffic), shard.shard)?;
            notes(&summary);
            let (report, over) = judge(&summary, max_refused, shard.shard);
            let mut out = std::io::stdout().lock();
            write(&mut out, summary.table().as_bytes())?;
            write(&mut out, report.as_bytes())?;
            if over.is_empty() {
                return Ok(0);
            }
            eprintln!(
                "check failed: {} refused more than {}% of the requests",
                over.join(", "),
                decimal(max_refused)
            );
            Ok(EXIT_CHECK_FAILED)
        }
    }
}

/// The query given, or else the one a view file's first line carries (`core::view_file`), or
/// else none (the lab's defaults). Given a query, a view file is only traffic.
fn query_or_view_files(query: Option<String>, traffic: Option<&Path>) -> Result<String, CliError> {
    if let Some(query) = query {
        return Ok(query);
    }
    match traffic {
        Some(path) => Ok(view_query(path)?.unwrap_or_default()),
        None => Ok(String::new()),
    }
}

/// The state the query gives, with its notes printed (`check` takes none: it would judge a
/// default in place of what was meant), a config's row in place of its rows, and what the
/// traffic and the shard allow.
fn prepare(
    query: &str,
    config: &ConfigArg,
    traffic: Option<&Path>,
    shard: Option<Shard>,
    strict: bool,
) -> Result<LabState, CliError> {
    let parsed = read_query(query);
    for notice in &parsed.notices {
        eprintln!("note: {}", notice.message);
    }
    if strict && !parsed.notices.is_empty() {
        return Err(CliError::input(
            "check judges only the query as written: correct the fields named above",
        ));
    }
    let mut state = parsed.state;
    if let Some(path) = &config.config {
        with_config(&mut state, path, config.product.as_deref())?;
    }
    if traffic.is_none() && state.kept.is_named() {
        return Err(CliError::input(
            "trace=stored names a trace kept in a browser's IndexedDB; give the traffic with \
             --traffic FILE",
        ));
    }
    if shard.is_some() && state.settings.obeying_clients() {
        return Err(CliError::input(
            "--shard streams the keys of one shard, but clients that obey (clients=obey) are \
             computed from the whole traffic at once: leave out clients=obey or --shard",
        ));
    }
    if shard.is_some() && state.durable.enabled {
        return Err(CliError::input(
            "--shard splits the keys, but the Durable Object row (do=1) shares one seeded network \
             and the objects' queues among all keys, so its shards would not add up to one run: \
             leave out do=1 or --shard",
        ));
    }
    let shared = state.algorithms.iter().find(|a| {
        a.build(&state.settings)
            .is_ok_and(|fresh| fresh.shared_storage().is_some())
    });
    if let (Some(_), Some(algorithm)) = (shard, shared) {
        return Err(CliError::input(format!(
            "--shard splits the keys, but the {} row ({}) keeps all keys in one storage, whose one \
             expiry timer any key's call starts again, so its shards would not add up to one run: \
             leave out {} or --shard",
            algorithm.label(),
            algorithm.slug(),
            algorithm.slug()
        )));
    }
    Ok(state)
}

/// `state` with the config at `path` read (as `product`'s, when named) and its row in place of
/// the query's rows; what the reading says besides goes to standard error as notes.
fn with_config(state: &mut LabState, path: &Path, product: Option<&str>) -> Result<(), CliError> {
    let text = read_text(path)?;
    let reading = config_file::read::<Complete>(&text, product)
        .map_err(|message| CliError::input(format!("{}: {message}", path.display())))?;
    for note in reading.apply(state, Rows::Replace) {
        eprintln!("note: {note}");
    }
    Ok(())
}

/// Rows that could not run, said on standard error as the page says them above its table.
fn notes(summary: &Summary) {
    for note in &summary.notes {
        eprintln!("note: {note}");
    }
}

fn write(out: &mut impl Write, bytes: &[u8]) -> Result<(), CliError> {
    out.write_all(bytes).map_err(|e| match e.kind() {
        std::io::ErrorKind::BrokenPipe => CliError::Closed,
        _ => CliError::input(format!("cannot write the output: {e}")),
    })
}

/// True when the traffic is read whole and computed as the page does: the Durable Object's
/// network and queues, and obeying clients' retries, do not stream.
fn computed_whole(state: &LabState) -> bool {
    state.durable.enabled || state.settings.obeying_clients()
}

/// The table's figures.
fn summarize(
    mut state: LabState,
    traffic: Option<&Path>,
    shard: Option<Shard>,
) -> Result<Summary, CliError> {
    if computed_whole(&state) {
        if let Some(path) = traffic {
            read_whole(path, &mut state)?;
        }
        return Ok(Summary::of_run(&LabRun::compute(&state)));
    }
    let mut rows = StreamRows::new(&state.settings, &state.algorithms);
    stream(&state, traffic, shard, |arrival| {
        rows.decide(arrival, None);
        Ok(())
    })?;
    Ok(rows.finish())
}

/// Every decision as the page's CSV, written as it is made. With a shard, only shard 0 writes
/// the header, so the shards' outputs put one after another make one file.
fn csv(mut state: LabState, traffic: Option<&Path>, shard: Option<Shard>) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    if computed_whole(&state) {
        if let Some(path) = traffic {
            read_whole(path, &mut state)?;
        }
        let run = LabRun::compute(&state);
        let mut writer = CsvWriter::<Complete>::new(&run);
        let mut piece = String::new();
        loop {
            let more = writer.write(&run, &mut piece, 4096);
            write(&mut out, piece.as_bytes())?;
            piece.clear();
            if !more {
                return out.flush().map_err(|_| CliError::Closed);
            }
        }
    }
    let mut text = String::with_capacity(CSV_CHUNK * 2);
    if shard.is_none_or(Shard::is_first) {
        text.push_str(&csv_header::<Complete>(&state.settings));
        text.push('\n');
    }
    let mut rows = StreamRows::new(&state.settings, &state.algorithms);
    let mut wrote = false;
    let streamed = stream(&state, traffic, shard, |arrival| {
        rows.decide(arrival, Some(&mut text));
        if text.len() >= CSV_CHUNK {
            write(&mut out, text.as_bytes())?;
            text.clear();
            wrote = true;
        }
        Ok(())
    });
    // Nothing written (a file refused before its first request, a bad line early on): nothing
    // to discard, and the error stays as short as it is.
    match streamed {
        Err(CliError::Input(mut lines)) if wrote => {
            lines.push(
                "standard output holds only the decisions before the first bad line: discard it"
                    .into(),
            );
            return Err(CliError::Input(lines));
        }
        streamed => streamed?,
    }
    // Requests still queued at the end are settled before their rows are written.
    rows.settle_rest(Some(&mut text));
    write(&mut out, text.as_bytes())?;
    out.flush().map_err(|_| CliError::Closed)
}

/// Hands every request of the traffic (in the shard, if one is given) to `take`, in time
/// order. A file's bad lines are all named at the end, as the page names them, and no request
/// after the first bad line is handed on.
fn stream(
    state: &LabState,
    traffic: Option<&Path>,
    shard: Option<Shard>,
    mut take: impl FnMut(Arrival) -> Result<(), CliError>,
) -> Result<(), CliError> {
    let mut filter = shard.map(ShardFilter::new);
    let mut holds = |key: &str| filter.as_mut().is_none_or(|f| f.holds(key));
    let Some(path) = traffic else {
        let trace = state
            .traffic()
            .generate(state.settings.limit, state.settings.window);
        for (index, request) in trace.requests().iter().enumerate() {
            let key = trace.key_name(request.key);
            if holds(key) {
                take(Arrival {
                    index,
                    at: request.at,
                    key,
                    cost: request.cost,
                })?;
            }
        }
        return Ok(());
    };
    let mut lines = TrafficLines::new(open_text(path)?);
    let mut index = 0;
    while let Some(request) = lines.next() {
        if lines.failed() {
            continue;
        }
        index += 1;
        // A line of the times format names no key: the lab's own, as on the page.
        let key = if request.key.is_empty() {
            DEFAULT_KEY
        } else {
            &request.key
        };
        if holds(key) {
            take(Arrival {
                index: index - 1,
                at: request.at,
                key,
                cost: request.cost,
            })?;
        }
    }
    let format = lines.format();
    match lines.finish() {
        Ok(_) => Ok(()),
        Err(TrafficError::Io(e)) => Err(CliError::input(format!(
            "cannot read {}: {e}",
            path.display()
        ))),
        Err(TrafficError::Lines(errors)) => {
            let mut lines = vec![format!(
                "{} is not readable traffic ({}):",
                path.display(),
                format.unwrap_or(errors.format).name()
            )];
            lines.extend(errors.describe());
            Err(CliError::Input(lines))
        }
    }
}

/// The rows that refused more than `max` percent of the requests, and what to print about each.
fn judge(summary: &Summary, max: f64, shard: Option<Shard>) -> (String, Vec<String>) {
    let requests = summary.requests;
    let whose = match shard {
        Some(s) => format!("the {requests} requests of shard {}/{}", s.index, s.count),
        None => format!("the {requests} requests"),
    };
    let over: Vec<&Figures> = summary
        .rows
        .iter()
        .filter(|row| row.rejected as f64 * 100.0 > max * requests as f64)
        .collect();
    let mut report = String::new();
    for row in &over {
        let share = row.rejected as f64 * 100.0 / requests.max(1) as f64;
        report.push_str(&format!(
            "{} ({}) refused {} of {whose}: {}%, more than {}%\n",
            row.slug,
            row.label,
            row.rejected,
            decimal(share),
            decimal(max)
        ));
    }
    if over.is_empty() {
        report.push_str(&format!(
            "every row refused at most {}% of {whose}\n",
            decimal(max)
        ));
    }
    (report, over.iter().map(|r| r.slug.to_string()).collect())
}

/// A share with up to three decimals, no trailing zeros.
fn decimal(value: f64) -> String {
    let text = format!("{value:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}
