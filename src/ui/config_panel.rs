//! "Bring the config you run": paste (or drop, or choose) a product's config, and its row runs on
//! the page's traffic with the config's own settings. The core tells the product from the text
//! and reads it (`core::config_file`, each product's reader in its own module); the panel shows
//! what it read, the notes about what else the config holds, or the lines it could not read, in
//! which case nothing changes.
//!
//! What the config set is the state a link already carries (the product's fields, `algos=`,
//! `also=`). The pasted text and the name the config gives its limit (nginx's zone, the binding's
//! name) last only while the page is open: the row's line names it for as long as the row still
//! runs what the config set.
//!
//! Only the complete module reads configs (it has the products): the first view's module shows
//! the panel's heading, and opening it brings the complete module.

#[cfg(not(feature = "products"))]
use leptos::prelude::*;

#[cfg(feature = "products")]
pub use reading::{name_of, take_dropped, ConfigPanel};

const SUMMARY: &str = "Bring the config you run";

/// The first module's panel: its heading, which opens the complete module.
#[cfg(not(feature = "products"))]
#[component]
pub fn ConfigPanel() -> impl IntoView {
    view! { <super::workbench::InCompleteModule section="config" summary=SUMMARY class="import config" testid="config-panel"/> }
}

/// No config names a row in a module without the products.
#[cfg(not(feature = "products"))]
pub fn name_of(
    _: crate::core::limiter::Algorithm,
    _: &crate::core::limiter::Settings,
) -> Option<String> {
    None
}

#[cfg(feature = "products")]
mod reading {
    use std::cell::RefCell;

    use leptos::prelude::*;
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::JsCast;

    use crate::core::config_file::{self, Rows};
    use crate::core::limiter::{Algorithm, Settings, PRODUCT_FIELDS};
    use crate::core::profiles::ProductSettings;

    use super::super::state::Lab;
    use super::super::Linked;
    use super::SUMMARY;

    /// The name a config read gave its row, with the family's fields as it set them.
    struct Named {
        row: Algorithm,
        name: String,
        fields: Vec<(&'static str, String)>,
    }

    thread_local! {
        /// The last name each row was given, one entry per row.
        static NAMED: RefCell<Vec<Named>> = const { RefCell::new(Vec::new()) };
    }

    /// The family's fields of `row` as a link writes them.
    fn family_fields(row: Algorithm, products: &ProductSettings) -> Vec<(&'static str, String)> {
        let prefix = row.family().map_or("", |f| f.prefix);
        PRODUCT_FIELDS
            .iter()
            .filter(|f| f.name.starts_with(prefix))
            .filter_map(|f| Some((f.name, (f.write)(products)?)))
            .collect()
    }

    /// The name the config read gave `row` ("zone api"), while the row still runs what it set.
    pub fn name_of(row: Algorithm, settings: &Settings) -> Option<String> {
        NAMED.with(|named| {
            let named = named.borrow();
            let named = named.iter().find(|n| n.row == row)?;
            (named.fields == family_fields(row, &settings.products)).then(|| named.name.clone())
        })
    }

    /// What the panel last said.
    #[derive(Clone, Debug, PartialEq)]
    enum Said {
        Read { what: String, notes: Vec<String> },
        Refused(String),
    }

    /// Reads `text` (as `product`'s, when one is chosen) and applies it to the lab; a text that
    /// cannot be read changes nothing.
    fn apply(lab: Lab, text: &str, product: &str, said: RwSignal<Option<Said>>) {
        let product = (!product.is_empty()).then_some(product);
        let reading = match config_file::read::<Linked>(text, product) {
            Ok(reading) => reading,
            Err(message) => return said.set(Some(Said::Refused(message))),
        };
        let row = reading.row;
        let mut notes = Vec::new();
        let next = lab.state.with_untracked(|s| {
            let mut next = s.clone();
            notes = reading.apply(&mut next, Rows::Add);
            next
        });
        let fields = family_fields(row, &next.settings.products);
        let name = reading.from.name.clone();
        NAMED.with(|named| {
            let mut named = named.borrow_mut();
            named.retain(|n| n.row != row);
            if let Some(name) = name.clone() {
                named.push(Named {
                    row,
                    name,
                    fields: fields.clone(),
                });
            }
        });
        let set: Vec<String> = fields.iter().map(|(n, v)| format!("{n}={v}")).collect();
        let what = match &name {
            Some(n) => format!(
                "Read as {}: \"{n}\" sets the {} row ({}).",
                row.family().map_or("", |f| f.name),
                row.label(),
                set.join(", ")
            ),
            None => format!(
                "Read as {}: it sets the {} row ({}).",
                row.family().map_or("", |f| f.name),
                row.label(),
                set.join(", ")
            ),
        };
        lab.playback.playhead.set(None);
        lab.change_and_remember(move |s| *s = next);
        said.set(Some(Said::Read { what, notes }));
    }

    /// A sentence whose backticked words (the config's own: `limit_req_zone`, `rate=`) are shown
    /// as code.
    fn with_code(sentence: &str) -> impl IntoView {
        sentence
            .split('`')
            .enumerate()
            .map(|(i, part)| match i % 2 {
                1 => view! { <code>{part.to_string()}</code> }.into_any(),
                _ => part.to_string().into_any(),
            })
            .collect_view()
    }

    /// The panel's elements a dropped config is handed to.
    fn element<T: JsCast>(testid: &str) -> Option<T> {
        web_sys::window()?
            .document()?
            .query_selector(&format!("[data-testid={testid}]"))
            .ok()
            .flatten()?
            .dyn_into::<T>()
            .ok()
    }

    /// Hands a dropped config to the panel, as if chosen there: the panel opens, and its file
    /// input reads the file.
    pub fn take_dropped(file: &web_sys::File) {
        if let Some(panel) = element::<web_sys::HtmlDetailsElement>("config-panel") {
            panel.set_open(true);
        }
        let input = element::<web_sys::HtmlInputElement>("config-file");
        let files = web_sys::DataTransfer::new().ok().and_then(|carrier| {
            carrier.items().add_with_file(file).ok()?;
            carrier.files()
        });
        if let (Some(input), Some(files), Ok(change)) =
            (input, files, web_sys::Event::new("change"))
        {
            input.set_files(Some(&files));
            let _ = input.dispatch_event(&change);
        }
    }

    #[component]
    pub fn ConfigPanel() -> impl IntoView {
        let lab = expect_context::<Lab>();
        let said = RwSignal::new(None::<Said>);
        let product = RwSignal::new(String::new());
        let area = NodeRef::<leptos::html::Textarea>::new();
        let section = NodeRef::<leptos::html::Details>::new();

        let use_text = move |_| {
            let text = area.get_untracked().map(|a| a.value()).unwrap_or_default();
            apply(lab, &text, &product.get_untracked(), said);
        };
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
            input.set_value("");
            let Ok(reader) = web_sys::FileReader::new() else {
                return;
            };
            let loaded = reader.clone();
            let onload = Closure::once_into_js(move || {
                let text = loaded
                    .result()
                    .ok()
                    .and_then(|v| v.as_string())
                    .unwrap_or_default();
                if let Some(a) = area.get_untracked() {
                    a.set_value(&text);
                }
                apply(lab, &text, &product.get_untracked(), said);
            });
            reader.set_onload(Some(onload.unchecked_ref()));
            if reader.read_as_text(&file).is_err() {
                said.set(Some(Said::Refused(
                    "The browser would not read this file.".into(),
                )));
            }
        };

        let products = config_file::products::<Linked>();
        let feedback = move || {
            Some(match said.get()? {
                Said::Read { what, notes } => view! {
                    <div class="hint" role="status" data-testid="config-read">
                        <p>{with_code(&what)}</p>
                        {(!notes.is_empty()).then(|| view! {
                            <ul data-testid="config-notes">
                                {notes.into_iter().map(|n| view! { <li>{with_code(&n)}</li> }).collect_view()}
                            </ul>
                        })}
                    </div>
                }
                .into_any(),
                Said::Refused(message) => view! {
                    <p class="error" role="alert" data-testid="config-error">{with_code(&message)}</p>
                }
                .into_any(),
            })
        };

        view! {
            <details class="import config" data-testid="config-panel" node_ref=section open=super::super::workbench::asked_to_open("config")>
                <summary>{SUMMARY}</summary>
                <p class="hint">
                    "Paste the rate limit you run (an nginx.conf, express-rate-limit's options, a wrangler.toml, a Quota, CL.THROTTLE, …) or drop its file on the page: its product's row runs your traffic with exactly those settings. The link keeps the settings; the text stays only while the page is open."
                </p>
                <div class="import-row">
                    <label>"Product "
                        <select data-testid="config-product" on:change=move |ev| product.set(event_target_value(&ev))>
                            <option value="" selected=true>"told from the text"</option>
                            {products.into_iter().map(|(slug, name)| view! { <option value=slug>{name}</option> }).collect_view()}
                        </select>
                    </label>
                </div>
                <textarea rows="8" data-testid="config-text" spellcheck="false"
                    placeholder="limit_req_zone $binary_remote_addr zone=api:10m rate=10r/s;\nlimit_req zone=api burst=20 nodelay;" node_ref=area></textarea>
                <div class="import-row">
                    <button data-testid="config-use" on:click=use_text>"Use this config"</button>
                    <label class="upload">"or choose a file "
                        <input type="file" data-testid="config-file" on:change=on_file/>
                    </label>
                </div>
                {feedback}
            </details>
        }
    }
}
