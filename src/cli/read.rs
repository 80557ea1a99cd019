//! The page's import (`core::import`) a line at a time, for files larger than a page holds: the
//! same three formats, the same detection, the same line numbers and messages (the first 20 bad
//! lines listed, a count of the rest), but each request handed on as soon as its line is read
//! instead of kept. The page's two-million-line cap does not apply here.
//!
//! One rule the page does not need: the requests must come in time order (the page sorts them;
//! a stream cannot). A line earlier than the one before it is a bad line, named like any other.

use std::io::BufRead;

use crate::core::import::{
    detect, is_skipped, view_line_query, Format, ImportErrors, ImportedRequest, LineDecoder,
    LineError, MAX_ERRORS_LISTED,
};
use crate::core::time::{format_seconds, Time};

/// Why a traffic file could not be used.
#[derive(Debug, PartialEq, Eq)]
pub enum TrafficError {
    /// Bad lines, as the page lists them.
    Lines(ImportErrors),
    /// The file itself could not be read.
    Io(String),
}

/// Reads requests from `input` one line at a time (see the module's comment). Iterating yields
/// each good request; bad lines are recorded and skipped, and [`TrafficLines::finish`] reports
/// them.
pub struct TrafficLines<R> {
    input: R,
    buf: Vec<u8>,
    /// Guessed from the first line that is not blank or a comment.
    /// Set by the first line that is neither blank nor a comment, from which the format is told.
    decoder: Option<LineDecoder>,
    lines: usize,
    requests: usize,
    /// The line and time of the last request, for the time-order rule.
    last: Option<(usize, Time)>,
    errors: Vec<LineError>,
    total_errors: usize,
    io_error: Option<String>,
    /// The first line is a view file's (`core::view_file`).
    view_file: bool,
}

impl<R: BufRead> TrafficLines<R> {
    pub fn new(input: R) -> TrafficLines<R> {
        TrafficLines {
            input,
            buf: Vec::new(),
            decoder: None,
            lines: 0,
            requests: 0,
            last: None,
            errors: Vec::new(),
            total_errors: 0,
            io_error: None,
            view_file: false,
        }
    }

    /// True once a line was bad (or the file could not be read).
    pub fn failed(&self) -> bool {
        self.total_errors > 0 || self.io_error.is_some()
    }

    /// The format, once a line that is not blank or a comment has been read.
    pub fn format(&self) -> Option<Format> {
        self.decoder.as_ref().map(LineDecoder::format)
    }

    fn error(&mut self, line: usize, message: String) {
        self.total_errors += 1;
        if self.errors.len() < MAX_ERRORS_LISTED {
            self.errors.push(LineError { line, message });
        }
    }

    /// The next line, without its line ending (as `str::lines` gives it); `None` at the end.
    fn next_line(&mut self) -> Option<String> {
        self.buf.clear();
        match self.input.read_until(b'\n', &mut self.buf) {
            Ok(0) => None,
            Ok(_) => {
                if self.buf.last() == Some(&b'\n') {
                    self.buf.pop();
                    if self.buf.last() == Some(&b'\r') {
                        self.buf.pop();
                    }
                }
                // A browser reads a file's invalid bytes as U+FFFD, and so does this.
                Some(String::from_utf8_lossy(&self.buf).into_owned())
            }
            Err(e) => {
                self.io_error = Some(e.to_string());
                None
            }
        }
    }

    /// Reads one line that is not skipped: `Some(Ok)` a request, `Some(Err)` a bad line.
    fn read_line(&mut self, line: &str) -> Option<Result<ImportedRequest, String>> {
        if is_skipped(line) {
            // A view file's times are the lab's own: kept as written, as the page keeps them.
            self.view_file |= self.lines == 1 && view_line_query(line).is_some();
            return None;
        }
        let view_file = self.view_file;
        self.decoder
            .get_or_insert_with(|| {
                let mut decoder = LineDecoder::new(detect(line));
                if view_file {
                    decoder.keeping_times();
                }
                decoder
            })
            .decode(line)
    }

    /// Every bad line (or the file's own error), or how many requests there were.
    pub fn finish(self) -> Result<usize, TrafficError> {
        if let Some(e) = self.io_error {
            return Err(TrafficError::Io(e));
        }
        let format = self.format().unwrap_or(Format::Times);
        if self.total_errors > 0 {
            return Err(TrafficError::Lines(ImportErrors {
                format,
                errors: self.errors,
                total: self.total_errors,
            }));
        }
        if self.requests == 0 {
            return Err(TrafficError::Lines(ImportErrors {
                format,
                errors: vec![LineError {
                    line: 1,
                    message: "there are no requests in this text".into(),
                }],
                total: 1,
            }));
        }
        Ok(self.requests)
    }
}

impl<R: BufRead> Iterator for TrafficLines<R> {
    type Item = ImportedRequest;

    fn next(&mut self) -> Option<ImportedRequest> {
        loop {
            let line = self.next_line()?;
            self.lines += 1;
            let number = self.lines;
            match self.read_line(&line) {
                None => {}
                Some(Err(message)) => self.error(number, message),
                Some(Ok(request)) => {
                    if let Some((before, at)) = self.last.filter(|&(_, at)| request.at < at) {
                        self.error(
                            number,
                            format!(
                                "{} s comes before the {} s of line {before}; the command line \
                                 reads traffic as it comes, so the requests must be in time order \
                                 (sort the file by time first)",
                                format_seconds(request.at.micros()),
                                format_seconds(at.micros()),
                            ),
                        );
                        continue;
                    }
                    self.last = Some((number, request.at));
                    self.requests += 1;
                    return Some(request);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::import::{import, Imported};

    fn streamed(text: &str) -> Result<Imported, TrafficError> {
        let mut lines = TrafficLines::new(text.as_bytes());
        let requests: Vec<ImportedRequest> = lines.by_ref().collect();
        let format = lines.format().unwrap_or(Format::Times);
        lines.finish().map(|_| Imported {
            format,
            requests,
            skipped: 0,
            unreadable: 0,
            notes: Vec::new(),
        })
    }

    #[test]
    fn every_format_reads_line_by_line_as_the_page_reads_it_whole() {
        let texts = [
            "# my trace\n8\n8.398\n\n9.592\n",
            "1\n2\nabc\n-4\nNaN\n5",
            "time,key,region,route\n0.5,tenant:a,fra,GET /products\n1,ip:203.0.113.7,syd\n2,tenant:b\n",
            "1,a\n2\n3,b,mars\n4,,fra\n",
            "0,k\r\n600,k,,,17\r\n601,k,fra,GET /,2",
            "0,k,,,0",
            "1733050000,\"tenant, inc\",fra,\"GET /a,b\"\n1733050002.5,\"say \"\"hi\"\"\"\n",
            "1733050000\n1733050001\n",
            "1,\"open\n2,k\n",
            concat!(
                "203.0.113.7 - - [10/Oct/2026:13:55:36 +0000] \"GET /login?next=/ HTTP/1.1\" 200 512\n",
                "198.51.100.2 - frank [10/Oct/2026:15:55:38 +0200] \"POST /api/items HTTP/1.1\" 201 40 \"-\" \"curl/8\"\n",
                "203.0.113.7 - - [10/Oct/2026:13:56:36 +0000] \"GET / HTTP/1.1\" 200 10\n",
            ),
            "1.2.3.4 - - [10/Oct/2026:13:55:36 +0000] \"GET / HTTP/1.1\" 200 1\n1.2.3.4 - - [99/Foo/2026:13:55:36 +0000] \"GET /\n",
            "",
            "\n# nothing\n",
            &"x\n".repeat(50),
        ];
        for text in texts {
            let page = import(text).map(|i| (i.format, i.requests));
            let here = streamed(text).map(|i| (i.format, i.requests));
            match (page, here) {
                (Ok(page), Ok(here)) => assert_eq!(page, here, "{text:?}"),
                (Err(page), Err(TrafficError::Lines(here))) => {
                    assert_eq!(page.describe(), here.describe(), "{text:?}")
                }
                (page, here) => panic!("{text:?}: the page read {page:?}, the stream {here:?}"),
            }
        }
    }

    #[test]
    fn a_request_earlier_than_the_line_before_is_named_with_both_lines() {
        let Err(TrafficError::Lines(errors)) = streamed("time,key\n1,a\n2,b\n1.5,a\n3,a\n") else {
            panic!("out of order was read");
        };
        assert_eq!(
            errors.describe(),
            ["line 4: 1.5 s comes before the 2 s of line 3; the command line reads traffic as it \
              comes, so the requests must be in time order (sort the file by time first)"]
        );
    }

    #[test]
    fn more_lines_than_the_page_takes_are_read() {
        let text: String = (0..2_000_100u64).map(|i| format!("{i}\n")).collect();
        let mut lines = TrafficLines::new(text.as_bytes());
        assert_eq!(lines.by_ref().count(), 2_000_100);
        assert_eq!(lines.finish(), Ok(2_000_100));
    }
}
