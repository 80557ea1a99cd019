//! Where a command's traffic comes from, and which way it is run: a `--traffic` file (or
//! standard input) streamed through the rows; the query's own traffic (a preset or `trace=`);
//! or, with the Durable Object row (`do=1`), the whole trace read into memory as the page reads
//! it, because the emulation shares one seeded network, one clock and the objects' queues among
//! all keys: it cannot be run a key at a time. A view file (`core::view_file`) is traffic like
//! any CSV, and its first line's query is the command's when none is given.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use crate::core::import::{
    decode, import, sniff, view_line_query, Encoding, MAX_LINES, SNIFF_BYTES,
};
use crate::core::lab_state::{KeptTrace, LabState};
use crate::core::url::parse_query;

use super::CliError;

/// The page's query: a bare query, with its `?`, or the page's whole address.
pub fn read_query(text: &str) -> crate::core::url::Parsed {
    let text = text.trim();
    let query = if text.contains("://") {
        text.split_once('?').map_or("", |(_, q)| q)
    } else {
        text
    };
    let query = query.split('#').next().unwrap_or("");
    parse_query(query)
}

/// What the messages call `path`.
fn named(path: &Path) -> String {
    if path == Path::new("-") {
        "standard input".into()
    } else {
        path.display().to_string()
    }
}

/// Opens the traffic at `path` for reading a line at a time, as text: a file that is not text
/// is refused with one line saying what it looks like (`core::import::sniff`, on its first
/// 64 KB). UTF-16 text is read whole and handed on as UTF-8.
pub fn open_text(path: &Path) -> Result<Box<dyn BufRead>, CliError> {
    let cannot = |e: std::io::Error| CliError::input(format!("cannot read {}: {e}", named(path)));
    let mut input = open(path)?;
    let mut head = Vec::with_capacity(SNIFF_BYTES);
    input
        .by_ref()
        .take(SNIFF_BYTES as u64)
        .read_to_end(&mut head)
        .map_err(cannot)?;
    let whole = head.len() < SNIFF_BYTES;
    match sniff(&head, whole).map_err(|refusal| refused(path, &refusal))? {
        Encoding::Utf8 => {
            if head.starts_with(b"\xef\xbb\xbf") {
                head.drain(..3);
            }
            Ok(Box::new(std::io::Cursor::new(head).chain(input)))
        }
        Encoding::Utf16Le | Encoding::Utf16Be => {
            input.read_to_end(&mut head).map_err(cannot)?;
            let text = decode(&head)
                .map_err(|refusal| refused(path, &refusal))?
                .into_owned();
            Ok(Box::new(std::io::Cursor::new(text.into_bytes())))
        }
    }
}

fn refused(path: &Path, refusal: &str) -> CliError {
    CliError::input(format!("{}: {refusal}", named(path)))
}

/// The query on a view file's first line (`core::view_file`), `None` for other traffic. Standard
/// input is looked at without being consumed (what its buffer holds: the first line of a view
/// file the page wrote is well within it), so the traffic is then read from its start.
pub fn view_query(path: &Path) -> Result<Option<String>, CliError> {
    let cannot =
        |e: std::io::Error| CliError::input(format!("cannot read {}: {e}", path.display()));
    let first = if path == Path::new("-") {
        let mut stdin = std::io::stdin().lock();
        let held = stdin.fill_buf().map_err(cannot)?;
        let line = held.split(|&b| b == b'\n').next().unwrap_or(&[]);
        String::from_utf8_lossy(line).into_owned()
    } else {
        let mut line = Vec::new();
        open(path)?.read_until(b'\n', &mut line).map_err(cannot)?;
        String::from_utf8_lossy(&line).into_owned()
    };
    Ok(view_line_query(&first).map(str::to_string))
}

/// Opens `path` (`-` is standard input) for reading a line at a time.
pub fn open(path: &Path) -> Result<Box<dyn BufRead>, CliError> {
    if path == Path::new("-") {
        return Ok(Box::new(BufReader::with_capacity(
            1 << 16,
            std::io::stdin(),
        )));
    }
    let file = File::open(path)
        .map_err(|e| CliError::input(format!("cannot read {}: {e}", path.display())))?;
    Ok(Box::new(BufReader::with_capacity(1 << 16, file)))
}

/// The page's import of a whole file: the same reader, the same two-million-line cap, the same
/// messages, and the traffic the import panel makes of it.
pub fn read_whole(path: &Path, state: &mut LabState) -> Result<(), CliError> {
    let mut bytes = Vec::new();
    open(path)?
        .read_to_end(&mut bytes)
        .map_err(|e| CliError::input(format!("cannot read {}: {e}", path.display())))?;
    let text = decode(&bytes).map_err(|refusal| refused(path, &refusal))?;
    match import(&text) {
        Ok(imported) => {
            state.pattern = imported.into_pattern();
            state.kept = KeptTrace::No;
            Ok(())
        }
        Err(errors) => {
            let mut lines = vec![format!(
                "{} is not readable traffic ({}):",
                path.display(),
                errors.format.name()
            )];
            lines.extend(errors.describe());
            if errors.errors.iter().any(|e| e.line > MAX_LINES) {
                lines.push(format!(
                    "the Durable Object row (do=1) emulates every key's object together, so its \
                     traffic is read whole, up to {MAX_LINES} lines as in the page; without do=1 \
                     a file of any length is streamed"
                ));
            }
            Err(CliError::Input(lines))
        }
    }
}

/// The whole text at `path` (a config), decoded as the traffic is.
pub fn read_text(path: &Path) -> Result<String, CliError> {
    let mut bytes = Vec::new();
    open(path)?
        .read_to_end(&mut bytes)
        .map_err(|e| CliError::input(format!("cannot read {}: {e}", named(path))))?;
    decode(&bytes)
        .map(|text| text.into_owned())
        .map_err(|refusal| refused(path, &refusal))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_may_be_given_bare_with_its_question_mark_or_as_the_pages_address() {
        for text in [
            "limit=3&window=2",
            "?limit=3&window=2",
            "https://example.org/ratelab/?limit=3&window=2#top",
        ] {
            let parsed = read_query(text);
            assert_eq!(parsed.state.settings.limit, 3, "{text}");
            assert!(parsed.notices.is_empty(), "{text}");
        }
    }
}
