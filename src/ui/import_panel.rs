//! "Use your own traffic": paste request times, CSV or access-log lines, or upload a file. The
//! core reads them (`core::import`), a slice at a time for a large file; a bad line is reported
//! with its number and the page keeps the traffic it had. A file's first 64 KB are looked at
//! first (`core::import::sniff`): a file that is not text is refused with one line, and the
//! traffic, the box and the view stay as they were. A trace goes into the URL while the link
//! stays within `url::MAX_LINK_CHARS` characters, so the view stays a link; longer ones are kept
//! in the browser's IndexedDB (`state.rs`, `kept_trace.rs`) and the link names them.
//!
//! Only the complete module reads traffic (`super::workbench`): the first view's module shows
//! the panel's heading, and opening it opens the page again with the complete module.

#[cfg(not(feature = "workbench"))]
use leptos::prelude::*;

#[cfg(feature = "workbench")]
pub use reading::ImportPanel;

const SUMMARY: &str = "Use your own traffic";

/// The first module's panel: its heading, which opens the complete module.
#[cfg(not(feature = "workbench"))]
#[component]
pub fn ImportPanel() -> impl IntoView {
    view! { <super::workbench::InCompleteModule section="import" summary=SUMMARY class="import" testid="import-panel"/> }
}

/// The panel itself, in the complete module.
#[cfg(feature = "workbench")]
mod reading {
    use leptos::prelude::*;
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::JsCast;

    use crate::core::import::{
        detect, sniff, ImportErrors, Imported, Pieces, ReadTraffic, TextPieces, SNIFF_BYTES,
    };
    use crate::core::lab_state::KeptTrace;
    use crate::core::traffic::Pattern;
    use crate::core::url::{needs_keeping, MAX_KEPT_REQUESTS, MAX_LINK_CHARS};

    use super::super::scheduler::{run_sliced, Slicing};
    use super::super::state::Lab;
    use super::SUMMARY;

    /// Bytes of text read between two looks at the clock.
    const PIECE_BYTES: usize = 64 * 1024;
    /// UTF-16 units of a file's text copied from JavaScript into the Wasm at a time.
    const FILE_PIECE_UNITS: u32 = 64 * 1024;
    /// The longest uploaded text the box shows (UTF-16 units); a longer file is read all the same,
    /// and the box says so instead of holding part of it (which "Use" would then read).
    const MAX_SHOWN_UNITS: u32 = 1_000_000;

    /// Reads `text` a frame's work at a time (a million lines take many frames, with a progress
    /// bar), then hands the requests to the lab; a bad line keeps the traffic the page had.
    fn apply(lab: Lab, text: String, skip: bool, result: RwSignal<Option<Said>>) {
        let head = &text.as_bytes()[..text.len().min(SNIFF_BYTES)];
        if let Err(refusal) = sniff(head, head.len() == text.len()) {
            return say(lab, result, Feedback::NotText(refusal));
        }
        let format = detect(&text);
        read(
            lab,
            ReadTraffic::new(TextPieces::new(text, PIECE_BYTES), Some(format))
                .skipping_unreadable(skip),
            result,
        );
    }

    /// A file's text, still a JavaScript string, handed over a piece at a time: copying twenty
    /// megabytes into the Wasm at once would hold the page for a long moment by itself.
    struct FileText {
        text: js_sys::JsString,
        /// UTF-16 units copied so far.
        from: u32,
    }

    impl Pieces for FileText {
        fn next_piece(&mut self) -> Option<String> {
            let total = self.text.length();
            if self.from >= total {
                return None;
            }
            let mut to = self.from.saturating_add(FILE_PIECE_UNITS).min(total);
            // Never between the two halves of a character outside the Basic Multilingual Plane.
            let last_unit = if to < total {
                self.text.char_code_at(to - 1)
            } else {
                0.0
            };
            if (f64::from(0xD800u32)..f64::from(0xDC00u32)).contains(&last_unit) {
                to -= 1;
            }
            let piece = String::from(self.text.slice(self.from, to));
            self.from = to;
            Some(piece)
        }

        fn handed_of(&self) -> (usize, usize) {
            (self.from as usize, self.text.length() as usize)
        }
    }

    /// Reads a person's traffic through the page's scheduler; the requests become the page's
    /// traffic in a task of their own (turning a million lines into a trace, after the last slice
    /// of reading, is a long step), or the panel lists the lines it could not read.
    fn read(lab: Lab, job: ReadTraffic, result: RwSignal<Option<Said>>) {
        run_sliced(
            lab.work.progress,
            job,
            Slicing::AT_ONCE,
            || true,
            move |read| use_read(lab, read, result),
        );
    }

    fn use_read(lab: Lab, read: Result<Imported, ImportErrors>, result: RwSignal<Option<Said>>) {
        match read {
            Ok(imported) => {
                let (total, format) = (imported.requests.len(), imported.format);
                let notes = imported.notes.clone();
                let pattern = imported.into_pattern();
                let too_long = lab.state.with_untracked(|s| {
                    let mut next = s.clone();
                    next.pattern = pattern.clone();
                    next.kept = KeptTrace::No;
                    needs_keeping(&next)
                });
                lab.playback.playhead.set(None);
                let said_of = pattern.clone();
                lab.change_and_remember(|s| {
                    s.pattern = pattern;
                    s.kept = KeptTrace::No;
                });
                let mut message = format!("Read {total} requests ({}).", format.name());
                if total > MAX_KEPT_REQUESTS {
                    message.push_str(" Too many to keep: they last until the page is closed.");
                } else if too_long {
                    // Whether the browser keeps them is known only once it has written them:
                    // the line under the page's heading says it then.
                    message.push_str(
                        &format!(" Too many for a link: the page asks this browser to keep them (a link stays within {MAX_LINK_CHARS} characters), and says at the top of the page whether it did."),
                    );
                }
                result.set(Some(Said {
                    of: said_of,
                    feedback: Feedback::Read(message, notes),
                }));
            }
            Err(errors) => say(lab, result, Feedback::Unreadable(errors.describe())),
        }
    }

    /// Says `feedback` of the traffic the page has now (which it keeps).
    fn say(lab: Lab, result: RwSignal<Option<Said>>, feedback: Feedback) {
        let of = lab.state.with_untracked(|s| s.pattern.clone());
        result.set(Some(Said { of, feedback }));
    }

    /// What the panel says after a reading.
    #[derive(Clone)]
    enum Feedback {
        /// How many requests it read, and whether the link or the browser keeps them; then what the
        /// reading did that a person should know (`Imported::notes`).
        Read(String, Vec<String>),
        /// The lines it could not read (at least one); the page keeps the traffic it had.
        Unreadable(Vec<String>),
        /// The file is not text: one line saying what it looks like; the page, the box and the
        /// view stay as they were.
        NotText(String),
    }

    /// Feedback, and the traffic it was said of: it is shown while the page shows that traffic,
    /// and not in a view Back or Forward returned to whose traffic is another.
    #[derive(Clone)]
    struct Said {
        of: Pattern,
        feedback: Feedback,
    }

    /// Reads a file that is text (`core::import::sniff` said so, and how it is written): the
    /// box shows it, so that "Use" reads the same text again, and the lab reads it.
    fn read_file(
        lab: Lab,
        file: web_sys::File,
        name: String,
        encoding: &str,
        area: NodeRef<leptos::html::Textarea>,
        skip: bool,
        result: RwSignal<Option<Said>>,
    ) {
        let Ok(reader) = web_sys::FileReader::new() else {
            return;
        };
        let loaded = reader.clone();
        let onload = Closure::once_into_js(move || {
            // The browser reads bytes that are not UTF-8 as U+FFFD, as `core::import::decode` does.
            let text = loaded
                .result()
                .ok()
                .and_then(|v| v.dyn_into::<js_sys::JsString>().ok())
                .unwrap_or_default();
            if let Some(area) = area.get_untracked() {
                if text.length() <= MAX_SHOWN_UNITS {
                    area.set_value(&String::from(text.clone()));
                } else {
                    area.set_value("");
                    area.set_placeholder(&format!(
                        "{name}: {} characters, read from the file; too long to show here.",
                        text.length()
                    ));
                }
            }
            read(
                lab,
                ReadTraffic::new(FileText { text, from: 0 }, None).skipping_unreadable(skip),
                result,
            );
        });
        reader.set_onload(Some(onload.unchecked_ref()));
        let _ = reader.read_as_text_with_label(&file, encoding);
    }

    #[component]
    pub fn ImportPanel() -> impl IntoView {
        let lab = expect_context::<Lab>();
        // Read when "Use" is pressed, not bound on every keystroke: a pasted file can be megabytes.
        let area = NodeRef::<leptos::html::Textarea>::new();
        let result = RwSignal::new(None::<Said>);
        // The page's traffic, compared only when it changes (a shared trace compares by its
        // pointer first): zooming changes the state sixty times a second.
        let traffic = Memo::new(move |_| lab.state.with(|s| s.pattern.clone()));
        let skip = RwSignal::new(false);

        let on_file = move |ev: leptos::ev::Event| {
            let Some(input) = ev
                .target()
                .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
            else {
                return;
            };
            let Some(file) = input.files().and_then(|files| files.get(0)) else {
                return;
            };
            let name = file.name();
            // First its first 64 KB, to tell text from a binary file; then the whole as text.
            let Ok(head) = file.slice_with_f64_and_f64(0.0, SNIFF_BYTES as f64) else {
                return;
            };
            let Ok(reader) = web_sys::FileReader::new() else {
                return;
            };
            let loaded = reader.clone();
            let whole = file.size() <= SNIFF_BYTES as f64;
            let onload = Closure::once_into_js(move || {
                let head = loaded
                    .result()
                    .map(|buffer| js_sys::Uint8Array::new(&buffer).to_vec())
                    .unwrap_or_default();
                match sniff(&head, whole) {
                    Err(refusal) => {
                        say(lab, result, Feedback::NotText(format!("{name}: {refusal}")))
                    }
                    Ok(encoding) => read_file(
                        lab,
                        file,
                        name,
                        encoding.label(),
                        area,
                        skip.get_untracked(),
                        result,
                    ),
                }
            });
            reader.set_onload(Some(onload.unchecked_ref()));
            let _ = reader.read_as_array_buffer(&head);
        };

        let feedback = move || {
            let said = result.get()?;
            if traffic.with(|now| *now != said.of) {
                return None;
            }
            let view = match said.feedback {
            Feedback::Read(message, notes) => view! {
                <p class="hint" role="status" data-testid="import-ok">{message}</p>
                {(!notes.is_empty()).then(|| view! {
                    <ul class="import-notes" data-testid="import-notes">
                        {notes.into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}
                    </ul>
                })}
            }
            .into_any(),
            Feedback::NotText(line) => view! {
                <p class="error" role="alert" data-testid="import-refused">{line}</p>
            }
            .into_any(),
            Feedback::Unreadable(lines) => view! {
                <div class="error" role="alert" data-testid="import-errors">
                    <p>"These lines could not be read; the page keeps the traffic it had:"</p>
                    <ul>{lines.into_iter().map(|l| view! { <li>{l}</li> }.into_any()).collect::<Vec<_>>()}</ul>
                </div>
            }
            .into_any(),
        };
            Some(view)
        };

        view! {
            <details class="import" data-testid="import-panel" open=super::super::workbench::asked_to_open("import")>
                <summary>{SUMMARY}</summary>
                <p class="hint">
                    "One time in seconds per line, CSV lines "<code>"time,key"</code>" (quoted fields as RFC 4180 writes them), or access-log lines (keyed by address). Unix-epoch times start at 0 from the first line. # starts a comment."
                </p>
                <p class="hint" data-testid="import-limits">
                    "Your requests go into the link while it stays within 2,000 characters (a few hundred times, fewer with keys). Longer traces (files of up to two million lines) are kept in this browser's IndexedDB, up to 200,000 requests, and the link names them (trace=stored: and an id made from the trace): it opens them again in this browser only. Longer still, or where the browser keeps nothing (a private window, a sandboxed frame, a full disk), they last until the page is closed, and the address bar keeps the last view a link can open again."
                </p>
                <textarea rows="6" data-testid="import-text" placeholder="8\n8.398\n10,tenant:acme" node_ref=area></textarea>
                <div class="import-row">
                    <button data-testid="import-use" on:click=move |_| apply(lab, area.get().map(|a| a.value()).unwrap_or_default(), skip.get_untracked(), result)>"Use these requests"</button>
                    <label class="upload">"or upload a file "
                        <input type="file" accept=".txt,.csv,.log" data-testid="import-file" on:change=on_file/>
                    </label>
                    <label class="import-skip">
                        <input type="checkbox" data-testid="import-skip" prop:checked=move || skip.get()
                            on:change=move |ev| skip.set(event_target_checked(&ev))/>
                        " skip lines that cannot be read, and count them"
                    </label>
                </div>
                {feedback}
            </details>
        }
    }
}
