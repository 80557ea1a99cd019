//! Reading a person's own traffic: pasted or uploaded text, in one of three shapes.
//!
//! - **Times**: one number of seconds per line (`9.592`).
//! - **CSV**: `time,key` and optionally `,region,route,cost` per line (a header line naming the
//!   columns is allowed), e.g. `10.398,tenant:acme,fra,GET /products` or `600,k,,,17` (a request
//!   for 17 units, as `CL.THROTTLE k 15 30 60 17` asks).
//! - **Access log**: the common or combined log format of Apache and nginx, e.g.
//!   `203.0.113.7 - - [10/Oct/2026:13:55:36 +0000] "GET /login HTTP/1.1" 200 512`. The key is
//!   `ip:<address>`, the route the request path, and times count from the first line.
//!
//! CSV fields follow RFC 4180: a field in double quotes may hold commas, and `""` inside it is
//! one quote (what the lab's own CSV export writes); a record stays on one line, since keys and
//! routes cannot hold line breaks. A key written after a `'` that guards it from spreadsheets
//! (`'=x`, `'-1`, `''a`: `core::export::GUARDED_STARTS`) is read without that `'`. Times of the
//! first two formats that are Unix-epoch seconds (from the year 2000 on) are shifted so the first line is at 0, as an access log's are.
//!
//! A file is first told to be text or not ([`sniff`], on its first 64 KB): a binary file (a known
//! format's first bytes, a NUL byte, or more than 1 % of bytes that are not UTF-8) is refused
//! with one line saying what it looks like; other text is decoded with its odd bytes as U+FFFD
//! (Latin-1 access logs exist). The page and the command line both ask this module.
//!
//! Blank lines and lines starting with `#` are skipped. A first line `# ratelab view: <query>`
//! ([`VIEW_LINE_PREFIX`]) makes the text a view file (`core::view_file`): its times are the lab's
//! own, kept exactly as written (never shifted as Unix-epoch times), whoever reads it. Every bad line is reported with its line
//! number (the first 20 of them), so a person can fix the file, or, when asked, skipped and
//! counted; nothing here panics, whatever the text.

use super::job::{Job, Progress, Step};
use super::quote::{clipped, quoted};
use super::region::Region;
use super::time::{parse_seconds, Time, MICROS_PER_SEC};
use super::traffic::{parse_cost, Pattern, Point, MAX_KEY_LEN};
use std::sync::Arc;

/// The most lines read from one file or paste.
pub const MAX_LINES: usize = 2_000_000;
/// The most errors listed; past that, the count is given.
pub const MAX_ERRORS_LISTED: usize = 20;

/// The bytes at a file's start that tell text from a binary file.
pub const SNIFF_BYTES: usize = 64 * 1024;

/// How a file's text is written, as its first bytes tell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// UTF-8 (with or without a byte-order mark), or a near-UTF-8 text such as a Latin-1 access
    /// log: its few bytes that are not UTF-8 are read as U+FFFD.
    Utf8,
    /// UTF-16 with a byte-order mark, as Windows PowerShell writes files.
    Utf16Le,
    Utf16Be,
}

impl Encoding {
    /// The name a browser's decoder knows it by (`FileReader.readAsText`, `TextDecoder`).
    pub fn label(self) -> &'static str {
        match self {
            Encoding::Utf8 => "utf-8",
            Encoding::Utf16Le => "utf-16le",
            Encoding::Utf16Be => "utf-16be",
        }
    }
}

/// Files that are known by their first bytes: what they are, and what to do instead.
const SIGNATURES: [(&[u8], &str, &str); 17] = [
    (b"\x89PNG\r\n\x1a\n", "a PNG image", ""),
    (b"\xff\xd8\xff", "a JPEG image", ""),
    (b"GIF87a", "a GIF image", ""),
    (b"GIF89a", "a GIF image", ""),
    (b"%PDF-", "a PDF document", ""),
    (
        b"PK\x03\x04",
        "a ZIP archive (or a document kept in one: .xlsx, .docx, .ods)",
        UNPACK,
    ),
    (b"PK\x05\x06", "an empty ZIP archive", ""),
    (b"\x1f\x8b", "a gzip archive", UNPACK),
    (b"BZh", "a bzip2 archive", UNPACK),
    (b"\xfd7zXZ\x00", "an xz archive", UNPACK),
    (b"\x28\xb5\x2f\xfd", "a zstd archive", UNPACK),
    (b"7z\xbc\xaf\x27\x1c", "a 7z archive", UNPACK),
    (
        b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1",
        "an old Office document (.xls, .doc)",
        SAVE_CSV,
    ),
    (b"SQLite format 3\x00", "an SQLite database", ""),
    (b"\x7fELF", "a program", ""),
    (b"\x00asm", "a WebAssembly module", ""),
    (b"\xd4\xc3\xb2\xa1", "a packet capture (pcap)", ""),
];
const UNPACK: &str = "; unpack it first";
const SAVE_CSV: &str = "; save the sheet as CSV";
const UTF8_BOM: &[u8] = b"\xef\xbb\xbf";

/// Whether a file whose first bytes are `head` is text, and how it is written; `whole` when
/// `head` is the whole file. A file is refused, with one line saying what it looks like, when it
/// starts like a known binary format, holds a NUL byte, or when more than 1 % of `head` is not
/// UTF-8 (a few such bytes, as a Latin-1 access log has, are read as U+FFFD and the lines they
/// spoil are named like any bad line). Only the first [`SNIFF_BYTES`] of `head` are looked at.
pub fn sniff(head: &[u8], whole: bool) -> Result<Encoding, String> {
    let whole = whole && head.len() <= SNIFF_BYTES;
    let head = &head[..head.len().min(SNIFF_BYTES)];
    if head.starts_with(b"\xff\xfe") {
        return Ok(Encoding::Utf16Le);
    }
    if head.starts_with(b"\xfe\xff") {
        return Ok(Encoding::Utf16Be);
    }
    let refuse = |what: String, hint: &str| {
        Err(format!(
            "this looks like a binary file: {what}; the lab reads text (one time per line, CSV \
             or an access log){hint}"
        ))
    };
    for (signature, name, hint) in SIGNATURES {
        if head.starts_with(signature) {
            let hex: Vec<String> = signature
                .iter()
                .take(4)
                .map(|b| format!("{b:02x}"))
                .collect();
            return refuse(format!("{name} (it starts with {})", hex.join(" ")), hint);
        }
    }
    if let Some(at) = head.iter().position(|&b| b == 0) {
        // Text saved as UTF-16 without a byte-order mark: every other byte of its letters is 0.
        let (even, odd) = head
            .iter()
            .enumerate()
            .fold((0, 0), |(e, o), (i, &b)| match b {
                0 if i % 2 == 0 => (e + 1, o),
                0 => (e, o + 1),
                _ => (e, o),
            });
        if even.max(odd) * 4 >= head.len() && head.len() >= 4 {
            return refuse(
                "every other byte is 0, as in UTF-16 text without a byte-order mark".into(),
                "; save it as UTF-8",
            );
        }
        return refuse(
            format!("byte {} is 0 (NUL), which text never holds", at + 1),
            "",
        );
    }
    let bad = bytes_not_utf8(head, whole);
    if bad * 100 > head.len() {
        return refuse(
            format!(
                "{bad} of its first {} bytes are not UTF-8, more than 1 %",
                head.len()
            ),
            "",
        );
    }
    Ok(Encoding::Utf8)
}

/// How many bytes of `head` are not UTF-8. A character cut by the end of `head` counts only when
/// `head` is the whole file (otherwise the rest of it follows).
fn bytes_not_utf8(head: &[u8], whole: bool) -> usize {
    let mut rest = head;
    let mut bad = 0;
    loop {
        match std::str::from_utf8(rest) {
            Ok(_) => return bad,
            Err(e) => match e.error_len() {
                Some(len) => {
                    bad += len;
                    rest = &rest[e.valid_up_to() + len..];
                }
                None => {
                    if whole {
                        bad += rest.len() - e.valid_up_to();
                    }
                    return bad;
                }
            },
        }
    }
}

/// A file's text: refused when it is not text ([`sniff`]), else decoded, its bytes that are not
/// UTF-8 read as U+FFFD, as a browser reads them (a byte-order mark is dropped).
pub fn decode(bytes: &[u8]) -> Result<std::borrow::Cow<'_, str>, String> {
    use std::borrow::Cow;
    let units = |rest: &[u8], unit: fn([u8; 2]) -> u16| -> Cow<'_, str> {
        let pairs = rest.chunks_exact(2);
        let odd = !pairs.remainder().is_empty();
        let mut text: String = char::decode_utf16(pairs.map(|pair| unit([pair[0], pair[1]])))
            .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect();
        if odd {
            text.push(char::REPLACEMENT_CHARACTER);
        }
        Cow::Owned(text)
    };
    Ok(match sniff(bytes, true)? {
        Encoding::Utf8 => String::from_utf8_lossy(bytes.strip_prefix(UTF8_BOM).unwrap_or(bytes)),
        Encoding::Utf16Le => units(&bytes[2..], u16::from_le_bytes),
        Encoding::Utf16Be => units(&bytes[2..], u16::from_be_bytes),
    })
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Times,
    Csv,
    AccessLog,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Times => "one time per line",
            Format::Csv => "CSV (time, key, region, route)",
            Format::AccessLog => "access log (common or combined)",
        }
    }
}

/// One imported request (requests come back in the order of the file's lines).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportedRequest {
    pub at: Time,
    /// The key; empty for a line of the times-only format, which means the lab's default key
    /// (a million such lines then hold no million copies of it).
    pub key: String,
    pub region: Option<Region>,
    pub route: Option<String>,
    /// What the request asks for (the CSV's fifth column); 1 unless the line says otherwise.
    pub cost: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Imported {
    pub format: Format,
    pub requests: Vec<ImportedRequest>,
    /// Blank and comment lines skipped.
    pub skipped: usize,
    /// Lines that could not be read, skipped because the person asked for that.
    pub unreadable: usize,
    /// What the reading did that a person should know: times shifted from the Unix epoch, a
    /// comma that looks like a decimal comma, unreadable lines skipped.
    pub notes: Vec<String>,
}

impl Imported {
    /// The traffic the page (and the command line) makes of what was read: a plain time list
    /// for the times format; otherwise the requests with their keys, regions and costs, and
    /// their routes for a CSV (an access log's paths are too many and too fine to each get a
    /// failure policy, so they are not carried as routes).
    pub fn into_pattern(self) -> Pattern {
        if self.format == Format::Times {
            return Pattern::Trace(Arc::new(self.requests.iter().map(|r| r.at).collect()));
        }
        let routes = self.format == Format::Csv;
        Pattern::from_points(
            self.requests
                .into_iter()
                .map(|r| Point {
                    at: r.at,
                    key: r.key,
                    origin: r.region,
                    route: r.route.filter(|_| routes),
                    cost: r.cost,
                })
                .collect(),
        )
    }
}

/// A line that could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineError {
    pub line: usize,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportErrors {
    pub format: Format,
    /// The first `MAX_ERRORS_LISTED` errors, in line order.
    pub errors: Vec<LineError>,
    /// How many lines were bad in all.
    pub total: usize,
}

impl ImportErrors {
    /// One sentence per listed error, and a count of the rest.
    pub fn describe(&self) -> Vec<String> {
        let mut lines: Vec<String> = self
            .errors
            .iter()
            .map(|e| format!("line {}: {}", e.line, e.message))
            .collect();
        if self.total > self.errors.len() {
            lines.push(format!(
                "and {} more lines like these",
                self.total - self.errors.len()
            ));
        }
        lines
    }
}

/// How a view file's first line starts (`core::view_file`): the query of the view follows it.
pub const VIEW_LINE_PREFIX: &str = "# ratelab view:";

/// The query a view file's first line carries, or `None` for any other line.
pub fn view_line_query(line: &str) -> Option<&str> {
    line.trim().strip_prefix(VIEW_LINE_PREFIX).map(str::trim)
}

pub(crate) fn is_skipped(line: &str) -> bool {
    let t = line.trim();
    t.is_empty() || t.starts_with('#')
}

/// Guesses the format from the first line that is not blank or a comment.
pub fn detect(text: &str) -> Format {
    let first = text.lines().find(|l| !is_skipped(l)).unwrap_or("").trim();
    if first.contains(" [") && first.contains("] \"") {
        Format::AccessLog
    } else if first.contains(',') {
        Format::Csv
    } else {
        Format::Times
    }
}

/// Reads `text`, guessing its format.
pub fn import(text: &str) -> Result<Imported, ImportErrors> {
    import_as(text, detect(text))
}

/// Reads `text` in the given format.
pub fn import_as(text: &str, format: Format) -> Result<Imported, ImportErrors> {
    let mut reader = Reader::new(format);
    reader.read(text);
    reader.finish()
}

/// The end of the piece of `text` that starts at byte `from` and holds about `bytes` bytes: just
/// after a line break, so a piece never cuts a line (or the text's end). Feeding a text to a
/// [`Reader`] piece by piece lets the page read a large file between frames.
pub fn piece_end(text: &str, from: usize, bytes: usize) -> usize {
    let target = from.saturating_add(bytes.max(1));
    if target >= text.len() {
        return text.len();
    }
    match text.as_bytes()[target..].iter().position(|&b| b == b'\n') {
        Some(i) => target + i + 1,
        None => text.len(),
    }
}

/// Turns the lines of one format into requests, keeping what a format carries from line to line:
/// whether a CSV's header may still come, and the time an access log's first line counts from.
/// The page's [`Reader`] and the command line both read lines through it.
pub(crate) struct LineDecoder {
    format: Format,
    header_allowed: bool,
    first_log_time: Option<i64>,
    /// For times and CSV: what is taken off every time, decided by the first line read (its own
    /// time when that is a Unix-epoch time, else nothing).
    shift: Option<Time>,
    /// Notes made while decoding (see [`Imported::notes`]), each made once.
    notes: Vec<String>,
    warned_decimal_comma: bool,
}

/// Times from here on (2000-01-01, in seconds) are read as Unix-epoch times.
const EPOCH_FROM_SECONDS: u64 = 946_684_800;

impl LineDecoder {
    pub(crate) fn new(format: Format) -> LineDecoder {
        LineDecoder {
            format,
            header_allowed: format == Format::Csv,
            first_log_time: None,
            shift: None,
            notes: Vec::new(),
            warned_decimal_comma: false,
        }
    }

    /// A decoder that keeps every time as written (a view file's, whose times are the lab's own
    /// and may be as large as it allows): no shift from the Unix epoch.
    pub(crate) fn keeping_times(&mut self) {
        if self.shift.is_none() {
            self.shift = Some(Time::ZERO);
        }
    }

    /// The notes made so far, taken.
    pub(crate) fn take_notes(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notes)
    }

    /// `at` counted from the first line's epoch time, when the first line had one.
    fn shifted(&mut self, at: Time) -> Time {
        let shift = *self.shift.get_or_insert_with(|| {
            if at.micros() / MICROS_PER_SEC >= EPOCH_FROM_SECONDS {
                Time(at.micros())
            } else {
                Time::ZERO
            }
        });
        if shift != Time::ZERO && self.notes.is_empty() {
            self.notes.push(format!(
                "The times are Unix-epoch seconds: they count from the first line ({} s after 1970), which is at 0.",
                crate::core::time::format_seconds(shift.micros())
            ));
        }
        Time(at.micros().saturating_sub(shift.micros()))
    }

    pub(crate) fn format(&self) -> Format {
        self.format
    }

    /// The request on a line that is neither blank nor a comment, or why it cannot be read;
    /// `None` for a CSV's header line, which is skipped.
    pub(crate) fn decode(&mut self, line: &str) -> Option<Result<ImportedRequest, String>> {
        Some(match self.format {
            Format::Times => parse_time(line.trim()).map(|at| ImportedRequest {
                cost: 1,
                at: self.shifted(at),
                key: String::new(),
                region: None,
                route: None,
            }),
            Format::Csv => {
                if std::mem::replace(&mut self.header_allowed, false) && looks_like_header(line) {
                    return None;
                }
                if !self.warned_decimal_comma && looks_like_decimal_comma(line) {
                    self.warned_decimal_comma = true;
                    self.notes.push(format!(
                        "{} was read as a time and a key; if it is one number with a decimal comma, write it with a point ({}).",
                        quoted(line.trim()),
                        clipped(&line.trim().replacen(',', ".", 1))
                    ));
                }
                parse_csv_line(line).map(|mut request| {
                    request.at = self.shifted(request.at);
                    request
                })
            }
            Format::AccessLog => parse_log_line(line).map(|(epoch, ip, route)| {
                let start = *self.first_log_time.get_or_insert(epoch);
                let offset = epoch.saturating_sub(start).max(0) as u64;
                ImportedRequest {
                    at: Time(offset.saturating_mul(MICROS_PER_SEC)),
                    key: format!("ip:{ip}"),
                    region: None,
                    route: Some(route),
                    cost: 1,
                }
            }),
        })
    }
}

/// Reads a text in pieces that each end at a line break (see [`piece_end`]); line numbers run on
/// across pieces, and the result is the same as reading the whole text at once.
pub struct Reader {
    decoder: LineDecoder,
    requests: Vec<ImportedRequest>,
    errors: Vec<LineError>,
    total_errors: usize,
    skipped: usize,
    lines: usize,
    stopped: bool,
    /// Skip unreadable lines and count them, instead of refusing the text.
    skip_unreadable: bool,
}

impl Reader {
    pub fn new(format: Format) -> Reader {
        Reader {
            decoder: LineDecoder::new(format),
            requests: Vec::new(),
            errors: Vec::new(),
            total_errors: 0,
            skipped: 0,
            lines: 0,
            stopped: false,
            skip_unreadable: false,
        }
    }

    /// A reader that skips unreadable lines and counts them (a text with no readable line is
    /// still refused, with its errors).
    pub fn skipping_unreadable(mut self) -> Reader {
        self.skip_unreadable = true;
        self
    }

    /// Lines read so far.
    pub fn lines(&self) -> usize {
        self.lines
    }

    fn error(&mut self, line: usize, message: String) {
        self.total_errors += 1;
        if self.errors.len() < MAX_ERRORS_LISTED {
            self.errors.push(LineError { line, message });
        }
    }

    /// Reads every line of `piece`.
    pub fn read(&mut self, piece: &str) {
        for line in piece.lines() {
            if self.stopped {
                return;
            }
            self.lines += 1;
            let number = self.lines;
            if number > MAX_LINES {
                self.error(
                    number,
                    format!("more than {MAX_LINES} lines; the rest was not read"),
                );
                self.stopped = true;
                return;
            }
            if is_skipped(line) {
                if number == 1 && view_line_query(line).is_some() {
                    self.decoder.keeping_times();
                }
                self.skipped += 1;
                continue;
            }
            match self.decoder.decode(line) {
                Some(Ok(request)) => self.requests.push(request),
                Some(Err(message)) => self.error(number, message),
                None => self.skipped += 1,
            }
        }
    }

    /// The requests, in file order (a trace built from them, `Pattern::Keyed`, replays them in
    /// time order, requests at the same time in file order), or every bad line.
    pub fn finish(mut self) -> Result<Imported, ImportErrors> {
        let format = self.decoder.format();
        let mut notes = self.decoder.take_notes();
        let unreadable = self.total_errors;
        if unreadable > 0 && self.skip_unreadable && !self.requests.is_empty() {
            let first = self
                .errors
                .first()
                .map(|e| format!(" (the first, line {}: {})", e.line, e.message))
                .unwrap_or_default();
            let lines = if unreadable == 1 { "line" } else { "lines" };
            notes.push(format!("{unreadable} unreadable {lines} skipped{first}."));
        } else if self.total_errors > 0 {
            return Err(ImportErrors {
                format,
                errors: self.errors,
                total: self.total_errors,
            });
        }
        if self.requests.is_empty() {
            return Err(ImportErrors {
                format,
                errors: vec![LineError {
                    line: 1,
                    message: "there are no requests in this text".into(),
                }],
                total: 1,
            });
        }
        Ok(Imported {
            format,
            requests: self.requests,
            skipped: self.skipped,
            unreadable: if self.skip_unreadable { unreadable } else { 0 },
            notes,
        })
    }
}

fn parse_time(text: &str) -> Result<Time, String> {
    parse_seconds(text).map(Time).map_err(|e| e.to_string())
}

fn looks_like_header(line: &str) -> bool {
    let first = line
        .split(',')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    matches!(
        first.as_str(),
        "time" | "t" | "timestamp" | "seconds" | "at"
    )
}

fn parse_key(text: &str) -> Result<String, String> {
    let key = text.trim();
    if key.is_empty() {
        return Err("the key is empty".into());
    }
    if key.chars().count() > MAX_KEY_LEN {
        return Err(format!("the key is longer than {MAX_KEY_LEN} characters"));
    }
    if key.chars().any(char::is_control) {
        return Err("the key has control characters".into());
    }
    Ok(key.to_string())
}

/// A CSV line of two whole numbers, like `0,5`: a time and a key, or one number written with a
/// decimal comma.
fn looks_like_decimal_comma(line: &str) -> bool {
    let mut fields = line.trim().split(',');
    let digits =
        |f: Option<&str>| f.is_some_and(|f| !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()));
    digits(fields.next()) && digits(fields.next()) && fields.next().is_none()
}

/// The fields of one CSV record, as RFC 4180 writes them: separated by commas, a field in double
/// quotes may hold commas, and `""` inside quotes is one quote. Space around a quoted field is
/// allowed (and dropped); a record must end on its line.
fn csv_fields(line: &str) -> Result<Vec<std::borrow::Cow<'_, str>>, String> {
    use std::borrow::Cow;
    let mut fields = Vec::new();
    let mut rest = line;
    loop {
        let trimmed = rest.trim_start();
        if let Some(quoted) = trimmed.strip_prefix('"') {
            let mut value = String::new();
            let mut chars = quoted.char_indices();
            let after = loop {
                match chars.next() {
                    Some((i, '"')) => {
                        if quoted[i + 1..].starts_with('"') {
                            value.push('"');
                            chars.next();
                        } else {
                            break &quoted[i + 1..];
                        }
                    }
                    Some((_, c)) => value.push(c),
                    None => {
                        return Err(
                            "a quoted field is not closed on its line (a key or a route cannot hold a line break)"
                                .into(),
                        )
                    }
                }
            };
            fields.push(Cow::Owned(value));
            let after = after.trim_start();
            match after.strip_prefix(',') {
                Some(next) => rest = next,
                None if after.is_empty() => return Ok(fields),
                None => {
                    return Err("a quoted field is followed by text before the next comma".into())
                }
            }
        } else {
            match rest.split_once(',') {
                Some((field, next)) => {
                    fields.push(Cow::Borrowed(field));
                    rest = next;
                }
                None => {
                    fields.push(Cow::Borrowed(rest));
                    return Ok(fields);
                }
            }
        }
    }
}

/// A key field without the `'` the lab's CSV export writes before a key a spreadsheet would
/// read as a formula, or before a key that starts with `'` itself.
fn unguarded(field: &str) -> &str {
    let trimmed = field.trim_start();
    match trimmed.strip_prefix('\'') {
        Some(rest) if rest.starts_with(super::export::GUARDED_STARTS) => rest,
        _ => field,
    }
}

fn parse_csv_line(line: &str) -> Result<ImportedRequest, String> {
    let fields = csv_fields(line)?;
    if fields.len() < 2 || fields.len() > 5 {
        return Err(format!(
            "expected time,key[,region[,route[,cost]]] but found {} fields",
            fields.len()
        ));
    }
    let at = parse_time(fields[0].trim())?;
    let key = parse_key(unguarded(&fields[1]))?;
    let region = match fields.get(2).map(|r| r.trim()).filter(|r| !r.is_empty()) {
        Some(code) => Some(Region::from_code(code).ok_or_else(|| {
            format!(
                "{} is not a region (fra, iad, gru, sin, syd, nrt)",
                quoted(code)
            )
        })?),
        None => None,
    };
    let route = fields
        .get(3)
        .map(|r| r.trim().to_string())
        .filter(|r| !r.is_empty());
    let cost = match fields.get(4).map(|c| c.trim()).filter(|c| !c.is_empty()) {
        Some(text) => parse_cost(text)?,
        None => 1,
    };
    Ok(ImportedRequest {
        at,
        key,
        region,
        route,
        cost,
    })
}

/// `host ident user [dd/Mon/yyyy:HH:MM:SS +zzzz] "METHOD path PROTO" status size ...`
/// gives (seconds since the Unix epoch, host, path).
fn parse_log_line(line: &str) -> Result<(i64, String, String), String> {
    let line = line.trim();
    let host = line.split_whitespace().next().ok_or("the line is empty")?;
    let open = line.find('[').ok_or("no [date] in this log line")?;
    let close = line[open..]
        .find(']')
        .map(|i| open + i)
        .ok_or("the [date] is not closed")?;
    let epoch = parse_log_date(&line[open + 1..close])?;
    let rest = &line[close + 1..];
    let quote = rest.find('"').ok_or("no \"request\" in this log line")?;
    let request = &rest[quote + 1..];
    let end = request.find('"').ok_or("the \"request\" is not closed")?;
    let mut parts = request[..end].split_whitespace();
    let _method = parts.next().ok_or("the request is empty")?;
    let path = parts.next().unwrap_or("/");
    let path = path.split('?').next().unwrap_or(path);
    let host = parse_key(host)?;
    Ok((epoch, host, path.chars().take(200).collect()))
}

/// `10/Oct/2026:13:55:36 +0000` as seconds since the Unix epoch, in UTC.
fn parse_log_date(text: &str) -> Result<i64, String> {
    let bad = || {
        format!(
            "{} is not a log date like 10/Oct/2026:13:55:36 +0000",
            quoted(text)
        )
    };
    let (stamp, zone) = text.trim().split_once(' ').ok_or_else(bad)?;
    let mut parts = stamp.splitn(4, [':', '/']);
    let day: i64 = parts.next().and_then(|v| v.parse().ok()).ok_or_else(bad)?;
    let month_name = parts.next().ok_or_else(bad)?;
    let year: i64 = parts.next().and_then(|v| v.parse().ok()).ok_or_else(bad)?;
    let clock = parts.next().ok_or_else(bad)?;
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let month = MONTHS
        .iter()
        .position(|m| *m == month_name)
        .ok_or_else(bad)? as i64
        + 1;
    let hms: Vec<i64> = clock.split(':').map(|v| v.parse().unwrap_or(-1)).collect();
    if hms.len() != 3
        || hms.iter().any(|&v| v < 0)
        || hms[0] > 23
        || hms[1] > 59
        || hms[2] > 60
        || !(1..=31).contains(&day)
        || !(1970..=9999).contains(&year)
    {
        return Err(bad());
    }
    let zone = zone.trim();
    let sign = match zone.as_bytes().first() {
        Some(b'+') => 1,
        Some(b'-') => -1,
        _ => return Err(bad()),
    };
    let digits: i64 = zone[1..].parse().map_err(|_| bad())?;
    if zone.len() != 5 {
        return Err(bad());
    }
    let offset = sign * ((digits / 100) * 3600 + (digits % 100) * 60);
    Ok(days_from_civil(year, month, day) * 86_400 + hms[0] * 3600 + hms[1] * 60 + hms[2] - offset)
}

/// Days from 1970-01-01 to the given date (Howard Hinnant's civil-date algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// A text handed to [`ReadTraffic`] a piece at a time: a string in memory, or (on the page) a
/// file's text still held by the browser.
pub trait Pieces {
    /// The next piece, cut anywhere (even inside a line); `None` at the end.
    fn next_piece(&mut self) -> Option<String>;
    /// Units handed over so far, and in all (bytes, or a browser string's UTF-16 units).
    fn handed_of(&self) -> (usize, usize);
}

/// A text in memory, in pieces of about `bytes` bytes ending at line breaks ([`piece_end`]).
pub struct TextPieces {
    text: String,
    from: usize,
    bytes: usize,
}

impl TextPieces {
    pub fn new(text: String, bytes: usize) -> TextPieces {
        TextPieces {
            text,
            from: 0,
            bytes,
        }
    }
}

impl Pieces for TextPieces {
    fn next_piece(&mut self) -> Option<String> {
        if self.from >= self.text.len() {
            return None;
        }
        let end = piece_end(&self.text, self.from, self.bytes);
        let piece = self.text.get(self.from..end).map(str::to_string);
        self.from = end;
        piece
    }

    fn handed_of(&self) -> (usize, usize) {
        (self.from, self.text.len())
    }
}

/// Reads a person's traffic as a [`Job`]: a piece of text a step (whole lines go to the
/// [`Reader`]; an unfinished last line waits for the next piece), then, in a step of its own,
/// the requests sorted into what was read. The format is the one given, or guessed from the
/// first piece.
pub struct ReadTraffic {
    /// Behind a pointer: one reader serves every kind of text (a generic one would be copied
    /// into the page's WebAssembly once per kind).
    pieces: Box<dyn Pieces>,
    format: Option<Format>,
    /// The end of the last piece, after its last line break: the start of the next line.
    carry: String,
    reader: Option<Reader>,
    read_all: bool,
    skip_unreadable: bool,
    result: Option<Result<Imported, ImportErrors>>,
}

impl ReadTraffic {
    pub fn new(pieces: impl Pieces + 'static, format: Option<Format>) -> ReadTraffic {
        ReadTraffic {
            pieces: Box::new(pieces),
            format,
            carry: String::new(),
            reader: None,
            read_all: false,
            skip_unreadable: false,
            result: None,
        }
    }

    /// Skips unreadable lines and counts them, instead of refusing the text.
    pub fn skipping_unreadable(mut self, skip: bool) -> ReadTraffic {
        self.skip_unreadable = skip;
        self
    }

    fn new_reader(&self, format: Format) -> Reader {
        let reader = Reader::new(format);
        if self.skip_unreadable {
            reader.skipping_unreadable()
        } else {
            reader
        }
    }

    fn read_piece(&mut self) {
        let Some(more) = self.pieces.next_piece() else {
            self.read_all = true;
            return;
        };
        let mut piece = std::mem::take(&mut self.carry);
        piece.push_str(&more);
        let (handed, total) = self.pieces.handed_of();
        if handed < total {
            let cut = piece.rfind('\n').map_or(0, |i| i + 1);
            self.carry = piece.split_off(cut);
        }
        if !piece.is_empty() {
            if self.reader.is_none() {
                let format = self.format.unwrap_or_else(|| detect(&piece));
                self.reader = Some(self.new_reader(format));
            }
            if let Some(reader) = &mut self.reader {
                reader.read(&piece);
            }
        }
    }

    fn read_to_end(&mut self) -> Result<Imported, ImportErrors> {
        while !self.read_all {
            self.read_piece();
        }
        let format = self.format.unwrap_or_else(|| detect(""));
        match self.reader.take() {
            Some(reader) => reader.finish(),
            None => self.new_reader(format).finish(),
        }
    }
}

impl Job for ReadTraffic {
    type Output = Result<Imported, ImportErrors>;
    /// Pieces read between two looks at the clock.
    const BUDGET: usize = 1;

    fn step(&mut self, budget: usize) -> Step {
        if self.result.is_some() {
            return Step::Done;
        }
        if self.read_all {
            self.result = Some(self.read_to_end());
            return Step::Done;
        }
        for _ in 0..budget.max(1) {
            self.read_piece();
            if self.read_all {
                break;
            }
        }
        Step::More
    }

    fn progress(&self) -> Progress {
        let (done, total) = self.pieces.handed_of();
        Progress {
            what: "Reading your traffic",
            done,
            total,
        }
    }

    /// Turning what was read into requests (a million lines sorted) is a step of its own.
    fn heavy_next(&self) -> bool {
        self.read_all && self.result.is_none()
    }

    fn finish(mut self) -> Result<Imported, ImportErrors> {
        match self.result.take() {
            Some(result) => result,
            None => self.read_to_end(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::job::run_to_end;

    #[test]
    fn one_time_per_line_is_read_exactly_and_replayed_in_order() {
        let imported = import("# my trace\n8\n9.592\n\n8.398\n").unwrap();
        assert_eq!(imported.format, Format::Times);
        let ms: Vec<u64> = imported
            .requests
            .iter()
            .map(|r| r.at.micros() / 1000)
            .collect();
        assert_eq!(ms, [8000, 9592, 8398], "in file order");
        let points = imported
            .requests
            .into_iter()
            .map(|r| crate::core::traffic::Point::new(r.at, crate::core::traffic::DEFAULT_KEY))
            .collect();
        let trace = crate::core::traffic::Pattern::from_points(points)
            .generate(5, crate::core::time::Span::from_secs(10));
        let ms: Vec<u64> = trace
            .requests()
            .iter()
            .map(|r| r.at.micros() / 1000)
            .collect();
        assert_eq!(ms, [8000, 8398, 9592], "replayed in time order");
        assert_eq!(imported.skipped, 2);
    }

    #[test]
    fn bad_lines_are_reported_with_their_numbers() {
        let errors = import("1\n2\nabc\n-4\nNaN\n5").unwrap_err();
        let lines: Vec<usize> = errors.errors.iter().map(|e| e.line).collect();
        assert_eq!(lines, [3, 4, 5]);
        assert!(errors.errors[1].message.contains("negative"));
        assert_eq!(
            errors.describe()[0],
            "line 3: \"abc\" is not a number of seconds"
        );
    }

    #[test]
    fn only_the_first_twenty_errors_are_listed_with_a_count_of_the_rest() {
        let text = "x\n".repeat(50);
        let errors = import(&text).unwrap_err();
        assert_eq!((errors.errors.len(), errors.total), (20, 50));
        assert_eq!(
            errors.describe().last().unwrap(),
            "and 30 more lines like these"
        );
    }

    #[test]
    fn csv_with_a_header_keys_regions_and_routes() {
        let text = "time,key,region,route\n0.5,tenant:a,fra,GET /products\n1,ip:203.0.113.7,syd\n2,tenant:b\n";
        let imported = import(text).unwrap();
        assert_eq!(imported.format, Format::Csv);
        assert_eq!(imported.requests.len(), 3);
        assert_eq!(imported.requests[0].region, Some(Region::Frankfurt));
        assert_eq!(imported.requests[0].route.as_deref(), Some("GET /products"));
        assert_eq!(imported.requests[1].key, "ip:203.0.113.7");
        assert_eq!(imported.requests[2].region, None);
    }

    #[test]
    fn csv_errors_name_the_field_that_is_wrong() {
        let errors = import("1,a\n2\n3,b,mars\n4,,fra\n").unwrap_err();
        let messages: Vec<String> = errors.describe();
        assert_eq!(messages.len(), 3);
        assert!(messages[0].starts_with("line 2: expected time,key"));
        assert!(messages[1].contains("\"mars\" is not a region"));
        assert!(messages[2].contains("key is empty"));
    }

    #[test]
    fn access_log_lines_become_requests_keyed_by_address_from_the_first_line() {
        let text = concat!(
            "203.0.113.7 - - [10/Oct/2026:13:55:36 +0000] \"GET /login?next=/ HTTP/1.1\" 200 512\n",
            "198.51.100.2 - frank [10/Oct/2026:15:55:38 +0200] \"POST /api/items HTTP/1.1\" 201 40 \"-\" \"curl/8\"\n",
            "203.0.113.7 - - [10/Oct/2026:13:56:36 +0000] \"GET / HTTP/1.1\" 200 10\n",
        );
        let imported = import(text).unwrap();
        assert_eq!(imported.format, Format::AccessLog);
        let got: Vec<(u64, &str, &str)> = imported
            .requests
            .iter()
            .map(|r| {
                (
                    r.at.micros() / MICROS_PER_SEC,
                    r.key.as_str(),
                    r.route.as_deref().unwrap_or(""),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (0, "ip:203.0.113.7", "/login"),
                (2, "ip:198.51.100.2", "/api/items"),
                (60, "ip:203.0.113.7", "/")
            ]
        );
    }

    #[test]
    fn a_broken_log_line_says_what_is_missing() {
        let errors = import("1.2.3.4 - - [10/Oct/2026:13:55:36 +0000] \"GET / HTTP/1.1\" 200 1\n1.2.3.4 - - [99/Foo/2026:13:55:36 +0000] \"GET /\n").unwrap_err();
        assert_eq!(errors.errors[0].line, 2);
        assert!(errors.errors[0].message.contains("not a log date"));
    }

    #[test]
    fn dates_convert_like_the_calendar() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert_eq!(parse_log_date("01/Jan/1970:00:00:00 +0000"), Ok(0));
        assert_eq!(parse_log_date("01/Jan/1970:01:00:00 +0100"), Ok(0));
    }

    #[test]
    fn a_csv_line_may_give_a_cost_in_its_fifth_column() {
        let imported = import("0,k\n600,k,,,17\n601,k,fra,GET /,2").unwrap();
        assert_eq!(
            imported.requests.iter().map(|r| r.cost).collect::<Vec<_>>(),
            [1, 17, 2]
        );
        let errors = import("0,k,,,0").unwrap_err().describe();
        assert!(
            errors[0].starts_with("line 1: a request's cost"),
            "{errors:?}"
        );
    }

    #[test]
    fn empty_text_is_an_error_not_an_empty_trace() {
        assert!(import("").is_err());
        assert!(import("\n# nothing\n").is_err());
    }

    #[test]
    fn reading_in_pieces_that_end_at_line_breaks_gives_the_same_result_and_line_numbers() {
        let text = "time,key\n0,a\n1,b\n\n# note\n2,c\nbad\n3,d\n4,e,xyz\n5,f";
        let whole = import(text);
        for bytes in 1..text.len() + 2 {
            let mut reader = Reader::new(detect(text));
            let mut from = 0;
            while from < text.len() {
                let end = piece_end(text, from, bytes);
                assert!(end > from && (end == text.len() || text.as_bytes()[end - 1] == b'\n'));
                reader.read(&text[from..end]);
                from = end;
            }
            assert_eq!(reader.lines(), 10);
            assert_eq!(reader.finish(), whole, "pieces of {bytes} bytes");
        }
        let errors = whole.unwrap_err().describe();
        assert_eq!(
            errors[0],
            "line 7: expected time,key[,region[,route[,cost]]] but found 1 fields"
        );
        assert!(errors[1].starts_with("line 9: \"xyz\" is not a region"));
    }

    #[test]
    fn a_million_lines_are_read() {
        let text: String = (0..1_000_000u64)
            .map(|i| format!("{}.{:03}\n", i / 1000, i % 1000))
            .collect();
        let imported = import(&text).unwrap();
        assert_eq!(imported.requests.len(), 1_000_000);
        assert_eq!(imported.requests.last().unwrap().at, Time(999_999_000));
    }

    /// Hands out a text in pieces of `size` bytes cut anywhere (inside lines and characters'
    /// neighbours alike, never inside a character), as a file read a piece at a time is.
    struct Ragged {
        text: String,
        from: usize,
        size: usize,
    }

    impl Pieces for Ragged {
        fn next_piece(&mut self) -> Option<String> {
            if self.from >= self.text.len() {
                return None;
            }
            let mut to = (self.from + self.size).min(self.text.len());
            while !self.text.is_char_boundary(to) {
                to += 1;
            }
            let piece = self.text[self.from..to].to_string();
            self.from = to;
            Some(piece)
        }

        fn handed_of(&self) -> (usize, usize) {
            (self.from, self.text.len())
        }
    }

    #[test]
    fn traffic_read_a_piece_a_step_is_what_reading_it_at_once_gives() {
        use crate::core::job::tests::run_in_steps;
        let text: String = (0..2_000u64)
            .map(|i| format!("{}.{:03},tenant:é{}\n", i / 100, i % 1000, i % 7))
            .collect();
        let whole = format!("{:?}", import(&text));
        for size in [1, 5, 64, 100_000] {
            let ragged = Ragged {
                text: text.clone(),
                from: 0,
                size,
            };
            let mut count = Ragged {
                text: text.clone(),
                from: 0,
                size,
            };
            let pieces = std::iter::from_fn(|| count.next_piece()).count();
            let (read, steps) = run_in_steps(ReadTraffic::new(ragged, None), 1);
            assert_eq!(format!("{read:?}"), whole, "pieces of {size} bytes");
            // A step per piece, one to see the end, and one to sort what was read.
            assert_eq!(steps, pieces + 2, "pieces of {size} bytes");
            let pieces = TextPieces::new(text.clone(), size);
            let (read, _) = run_in_steps(ReadTraffic::new(pieces, Some(detect(&text))), 3);
            assert_eq!(format!("{read:?}"), whole, "lines of {size} bytes");
        }
        assert_eq!(
            format!(
                "{:?}",
                run_to_end(ReadTraffic::new(TextPieces::new(text.clone(), 64), None))
            ),
            whole
        );
    }

    #[test]
    fn reading_announces_the_sorting_as_a_long_step_at_a_thousandth_of_a_thousand() {
        let mut job = ReadTraffic::new(TextPieces::new("1\n2\nx\n".to_string(), 2), None);
        while !job.heavy_next() {
            assert_eq!(job.step(1), Step::More);
        }
        assert_eq!(job.progress().what, "Reading your traffic");
        assert_eq!(job.progress().permille(), 1000);
        assert_eq!(job.step(1), Step::Done);
        let errors = job.finish().unwrap_err().describe();
        assert!(errors[0].contains('3'), "{errors:?}");
    }

    #[test]
    fn an_empty_text_reads_as_no_requests() {
        let read = run_to_end(ReadTraffic::new(TextPieces::new(String::new(), 64), None));
        assert_eq!(format!("{read:?}"), format!("{:?}", import("")));
    }

    #[test]
    fn quoted_csv_fields_hold_commas_and_doubled_quotes_as_rfc_4180_writes_them() {
        let read =
            import("0.5,\"tenant, inc\",fra,\"GET /a,b\"\n1, \"say \"\"hi\"\"\" \n").unwrap();
        assert_eq!(read.requests[0].key, "tenant, inc");
        assert_eq!(read.requests[0].route.as_deref(), Some("GET /a,b"));
        assert_eq!(read.requests[1].key, "say \"hi\"");
        let broken = import("1,\"open\n2,k,\"x\"y\n").unwrap_err();
        let messages = broken.describe();
        assert!(
            messages[0].starts_with("line 1: a quoted field is not closed on its line"),
            "{messages:?}"
        );
        assert!(
            messages[1].starts_with("line 2: a quoted field is followed by text"),
            "{messages:?}"
        );
    }

    #[test]
    fn the_csv_export_of_the_lab_reads_back_its_keys_as_written() {
        // A key with a comma and a quote, as `core::export` quotes it.
        let read = import("time,key\n2,\"a,\"\"b\"\"\"\n").unwrap();
        assert_eq!(read.requests[0].key, "a,\"b\"");
        // The guard before a key a spreadsheet would take for a formula, or that starts with '.
        let read = import("1,'=cmd()\n2,''a\n3,'b\n4,\"'-1, two\"\n").unwrap();
        let keys: Vec<&str> = read.requests.iter().map(|r| r.key.as_str()).collect();
        assert_eq!(keys, ["=cmd()", "'a", "'b", "-1, two"]);
    }

    #[test]
    fn unix_epoch_times_are_shifted_so_the_first_line_is_at_zero_and_say_so() {
        let read = import("1733050000\n1733050001.25\n1733049999\n").unwrap();
        let times: Vec<Time> = read.requests.iter().map(|r| r.at).collect();
        assert_eq!(times, [Time::ZERO, Time::from_millis(1_250), Time::ZERO]);
        assert_eq!(read.notes.len(), 1);
        assert!(
            read.notes[0].contains("1733050000 s after 1970"),
            "{:?}",
            read.notes
        );
        let csv = import("1733050010,a\n1733050012,b\n").unwrap();
        assert_eq!(csv.requests[1].at, Time::from_secs(2));
        let plain = import("8\n1733050000\n").unwrap();
        assert_eq!(
            plain.requests[1].at,
            Time::from_secs(1_733_050_000),
            "only a first epoch time shifts"
        );
        assert!(plain.notes.is_empty());
    }

    #[test]
    fn two_whole_numbers_on_a_line_are_read_as_time_and_key_with_a_note_about_decimal_commas() {
        let read = import("0,5\n1,25\n").unwrap();
        assert_eq!(
            (read.requests[0].at, read.requests[0].key.as_str()),
            (Time::ZERO, "5")
        );
        assert_eq!(read.notes.len(), 1, "{:?}", read.notes);
        assert!(read.notes[0].contains("\"0,5\"") && read.notes[0].contains("(0.5)"));
        assert!(import("0,tenant:a\n").unwrap().notes.is_empty());
    }

    #[test]
    fn unreadable_lines_are_skipped_and_counted_when_asked() {
        let text = "1\nabc\n2\n-4\n3\n";
        assert!(import(text).is_err());
        let mut reader = Reader::new(Format::Times).skipping_unreadable();
        reader.read(text);
        let read = reader.finish().unwrap();
        assert_eq!((read.requests.len(), read.unreadable), (3, 2));
        assert_eq!(read.notes, ["2 unreadable lines skipped (the first, line 2: \"abc\" is not a number of seconds)."]);
        let mut nothing = Reader::new(Format::Times).skipping_unreadable();
        nothing.read("x\ny\n");
        assert!(
            nothing.finish().is_err(),
            "no readable line is still refused"
        );
        let job =
            ReadTraffic::new(TextPieces::new(text.to_string(), 2), None).skipping_unreadable(true);
        assert_eq!(run_to_end(job).unwrap().unreadable, 2);
    }

    /// An access-log line whose user agent holds `agent`, at second `second`.
    fn log_line(second: u32, agent: &[u8]) -> Vec<u8> {
        let mut line = format!(
            "203.0.113.7 - - [10/Oct/2026:13:55:{second:02} +0000] \"GET /caf HTTP/1.1\" 200 512 \"-\" \""
        )
        .into_bytes();
        line.extend_from_slice(agent);
        line.extend_from_slice(b"\"\n");
        line
    }

    #[test]
    fn a_file_with_a_nul_byte_is_refused_with_one_line() {
        let mut bytes = b"1\n2\n".to_vec();
        bytes.push(0);
        bytes.extend_from_slice(b"3\n");
        let refusal = decode(&bytes).unwrap_err();
        assert_eq!(
            refusal,
            "this looks like a binary file: byte 5 is 0 (NUL), which text never holds; the lab \
             reads text (one time per line, CSV or an access log)"
        );
        assert!(!refusal.contains('\n'));
    }

    #[test]
    fn a_known_binary_format_is_named_by_its_first_bytes() {
        let png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR";
        let refusal = decode(png).unwrap_err();
        assert!(
            refusal.starts_with(
                "this looks like a binary file: a PNG image (it starts with 89 50 4e 47);"
            ),
            "{refusal}"
        );
        let gzip = decode(b"\x1f\x8b\x08\x00rest").unwrap_err();
        assert!(
            gzip.contains("a gzip archive (it starts with 1f 8b)"),
            "{gzip}"
        );
        assert!(gzip.ends_with("unpack it first"), "{gzip}");
        let xlsx = decode(b"PK\x03\x04\x14\x00").unwrap_err();
        assert!(xlsx.contains(".xlsx"), "{xlsx}");
    }

    #[test]
    fn more_than_one_percent_of_bytes_not_utf8_in_the_first_64_kb_is_refused() {
        let mut bytes = vec![b'1'; 1000];
        for i in 0..11 {
            bytes[i * 90] = 0xff;
        }
        let refusal = decode(&bytes).unwrap_err();
        assert_eq!(
            refusal,
            "this looks like a binary file: 11 of its first 1000 bytes are not UTF-8, more than \
             1 %; the lab reads text (one time per line, CSV or an access log)"
        );
        // Only the first 64 KB are looked at: the same bytes after them are read as text.
        let mut late = b"1\n".repeat(SNIFF_BYTES / 2);
        late.extend_from_slice(&[0xff; 2000]);
        assert!(decode(&late).is_ok());
    }

    #[test]
    fn exactly_one_percent_of_bytes_not_utf8_is_still_text() {
        let mut bytes = vec![b'1'; 1000];
        for i in 0..10 {
            bytes[i * 90] = 0xff;
        }
        assert_eq!(sniff(&bytes, true), Ok(Encoding::Utf8));
        let mut head = vec![b'2'; SNIFF_BYTES];
        let step = SNIFF_BYTES / 655;
        for i in 0..655 {
            head[i * step] = 0xe9;
        }
        assert_eq!(
            sniff(&head, false),
            Ok(Encoding::Utf8),
            "655 of 65,536 is under 1 %"
        );
        head[SNIFF_BYTES - 10] = 0xff;
        assert!(sniff(&head, false).is_err(), "656 of 65,536 is over 1 %");
    }

    #[test]
    fn a_character_cut_by_the_end_of_the_first_64_kb_is_not_counted_as_bad() {
        let mut head = vec![b'3'; SNIFF_BYTES - 1];
        head.push(0xc3);
        let bad = SNIFF_BYTES / 100;
        for i in 0..bad {
            head[i * 64] = 0xe9;
        }
        assert_eq!(
            sniff(&head, false),
            Ok(Encoding::Utf8),
            "the é goes on after"
        );
        assert!(sniff(&head, true).is_err(), "the file ends inside it");
    }

    #[test]
    fn a_latin1_access_log_is_read_with_its_odd_bytes_as_replacement_characters() {
        let mut bytes = Vec::new();
        for second in 0..20 {
            // "Mozilla/5.0 (Macintosh; caf\xe9)": é in Latin-1 is one byte, not UTF-8.
            bytes.extend(log_line(second, b"Mozilla/5.0 (Macintosh; caf\xe9)"));
        }
        let text = decode(&bytes).unwrap();
        assert_eq!(text.matches('\u{FFFD}').count(), 20);
        let read = import(&text).unwrap();
        assert_eq!(read.format, Format::AccessLog);
        assert_eq!(read.requests.len(), 20);
        assert_eq!(read.requests[19].at, Time::from_secs(19));
    }

    #[test]
    fn a_bad_line_of_latin1_text_is_named_by_its_number() {
        let mut bytes = b"1\n2\n3\xe9\n".to_vec();
        bytes.extend(b"4\n".repeat(100));
        let text = decode(&bytes).unwrap();
        let errors = import(&text).unwrap_err().describe();
        assert_eq!(errors, ["line 3: \"3\u{FFFD}\" is not a number of seconds"]);
    }

    #[test]
    fn byte_order_marks_are_read_utf16_decoded_and_utf8_dropped() {
        assert_eq!(decode(b"\xef\xbb\xbf1\n2\n").unwrap(), "1\n2\n");
        let le: Vec<u8> = [0xff, 0xfe]
            .into_iter()
            .chain("1\n2.5\n".encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        assert_eq!(sniff(&le, true), Ok(Encoding::Utf16Le));
        assert_eq!(decode(&le).unwrap(), "1\n2.5\n");
        let be: Vec<u8> = [0xfe, 0xff]
            .into_iter()
            .chain("0,k\u{e9}\n".encode_utf16().flat_map(u16::to_be_bytes))
            .collect();
        assert_eq!(decode(&be).unwrap(), "0,k\u{e9}\n");
        let bare: Vec<u8> = "1\n2\n".encode_utf16().flat_map(u16::to_le_bytes).collect();
        let refusal = decode(&bare).unwrap_err();
        assert!(
            refusal.contains("UTF-16") && refusal.ends_with("save it as UTF-8"),
            "{refusal}"
        );
    }

    #[test]
    fn a_long_bad_line_is_quoted_to_eighty_characters_and_an_ellipsis() {
        let long = "é".repeat(1_000_000);
        let eighty = "é".repeat(80);
        let cases = [
            (format!("1\n{long}\n"), format!("line 2: \"{eighty}…\" is not a number")),
            (
                format!("-{long}\n"),
                format!("line 1: \"-{}…\" is not a number", "é".repeat(79)),
            ),
            (format!("0,k\n1,k,{long}\n"), format!("line 2: \"{eighty}…\" is not a region")),
            (format!("0,k\n1,k,fra,/,{long}\n"), format!("not \"{eighty}…\"")),
            (
                format!("1.2.3.4 - - [10/Oct/2026:13:55:36 +0000] \"GET / HTTP/1.1\" 200 1\n1.2.3.4 - - [{long}] \"GET /\"\n"),
                format!("line 2: \"{eighty}…\" is not a log date"),
            ),
        ];
        for (text, quote) in cases {
            let errors = import(&text).unwrap_err().describe();
            assert!(errors[0].contains(&quote), "{}", clipped(&errors[0]));
            assert!(errors[0].len() < 300, "{} bytes", errors[0].len());
        }
        // A line of two whole numbers is quoted in a note, shortened the same way.
        let read = import(&format!("{}1,5\n", "0".repeat(1_000_000))).unwrap();
        assert!(read.notes[0].starts_with(&format!("\"{}…\" was read", "0".repeat(80))));
        assert!(read.notes[0].len() < 400, "{} bytes", read.notes[0].len());
    }
}
