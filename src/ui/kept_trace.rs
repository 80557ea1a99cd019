//! The browser's IndexedDB, where the page keeps traffic too long for a link (one that would
//! pass `url::MAX_LINK_CHARS` characters, `url::needs_keeping`): database `ratelab`, object store `traces`, one record
//! per trace, its key the id the link names (`url::trace_id`, made from the text) and its value
//! the trace list as text (`url::trace_list`). IndexedDB is what browsers offer for data this
//! size: `localStorage` holds about five million characters per site, which a 200,000-request
//! trace with keys passes, while IndexedDB's quota is a share of the disk (MDN, "Storage quotas
//! and eviction criteria"). Every call answers once, through its callback, and each refusal
//! (no IndexedDB in a sandboxed frame or a private window, a full quota) comes back as the words
//! the page shows.
//!
//! Only the complete module keeps traces (`workbench`): the first view's module never makes one,
//! and web/loader.js gives a link naming one to the complete module.

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{DomException, IdbDatabase, IdbTransactionMode};

/// Where the traces are kept, as the page names it to a person.
pub const DATABASE: &str = "ratelab";
pub const STORE: &str = "traces";
/// The database's version: the object store is made when a browser first opens version 1.
const VERSION: u32 = 1;

/// A callback that the first of several handlers to fire calls (success or failure); the others
/// then do nothing.
struct Once<T>(Rc<RefCell<Option<Callback<T>>>>);

type Callback<T> = Box<dyn FnOnce(T)>;

impl<T> Clone for Once<T> {
    fn clone(&self) -> Self {
        Once(self.0.clone())
    }
}

impl<T: 'static> Once<T> {
    fn new(done: impl FnOnce(T) + 'static) -> Self {
        Once(Rc::new(RefCell::new(Some(Box::new(done)))))
    }

    fn call(&self, value: T) {
        let done = self.0.borrow_mut().take();
        if let Some(done) = done {
            done(value);
        }
    }
}

/// How long the page waits for IndexedDB to answer (a database held by another tab, or a browser
/// that never answers) before it says so and goes on without the trace.
pub const ANSWER_WITHIN_MS: i32 = 10_000;

/// `done`, called once: with the operation's answer, or with a refusal that says the browser
/// gave none if `ANSWER_WITHIN_MS` pass first.
fn answered_in_time<V: 'static>(
    done: impl FnOnce(Result<V, String>) + 'static,
) -> Once<Result<V, String>> {
    let done = Once::new(done);
    let late = done.clone();
    let give_up = handler(move || {
        late.call(Err(format!(
            "the browser's IndexedDB gave no answer within {} s",
            ANSWER_WITHIN_MS / 1000
        )))
    });
    if let Some(window) = web_sys::window() {
        let _ = window
            .set_timeout_with_callback_and_timeout_and_arguments_0(&give_up, ANSWER_WITHIN_MS);
    }
    done
}

/// An event handler that runs `f` (the event itself is not needed: each handler keeps the
/// request it belongs to).
fn handler(f: impl FnOnce() + 'static) -> js_sys::Function {
    Closure::once_into_js(f).unchecked_into()
}

/// A browser's refusal in its own words (`QuotaExceededError: ...`).
fn refusal(error: Option<DomException>) -> String {
    match error {
        Some(e) if e.message().is_empty() => e.name(),
        Some(e) => format!("{}: {}", e.name(), e.message()),
        None => "the browser gave no reason".into(),
    }
}

/// What a call that threw says (a `SecurityError` where the frame may not use storage).
fn thrown(value: &JsValue) -> String {
    refusal(value.dyn_ref::<DomException>().cloned())
}

/// Opens the database, making its store the first time.
fn open(done: impl FnOnce(Result<IdbDatabase, String>) + 'static) {
    let done = Once::new(done);
    let factory = match web_sys::window().map(|w| w.indexed_db()) {
        Some(Ok(Some(factory))) => factory,
        Some(Err(e)) => return done.call(Err(thrown(&e))),
        _ => return done.call(Err("this browser offers the page no IndexedDB here".into())),
    };
    let request = match factory.open_with_u32(DATABASE, VERSION) {
        Ok(request) => request,
        Err(e) => return done.call(Err(thrown(&e))),
    };
    let upgrading = request.clone();
    request.set_onupgradeneeded(Some(&handler(move || {
        if let Some(db) = upgrading
            .result()
            .ok()
            .and_then(|r| r.dyn_into::<IdbDatabase>().ok())
        {
            let _ = db.create_object_store(STORE);
        }
    })));
    let (opened, ok) = (request.clone(), done.clone());
    request.set_onsuccess(Some(&handler(move || {
        match opened
            .result()
            .ok()
            .and_then(|r| r.dyn_into::<IdbDatabase>().ok())
        {
            Some(db) => ok.call(Ok(db)),
            None => ok.call(Err("the database did not open".into())),
        }
    })));
    let failed = request.clone();
    request.set_onerror(Some(&handler(move || {
        done.call(Err(refusal(failed.error().ok().flatten())))
    })));
}

/// Keeps `text` under `id` (replacing a copy kept before, which has the same text: the id is
/// made from it). `done` hears `Ok` once the browser has written it.
pub fn put(id: String, text: String, done: impl FnOnce(Result<(), String>) + 'static) {
    let done = answered_in_time(done);
    open(move |db| {
        let db = match db {
            Ok(db) => db,
            Err(why) => return done.call(Err(why)),
        };
        let transaction =
            match db.transaction_with_str_and_mode(STORE, IdbTransactionMode::Readwrite) {
                Ok(t) => t,
                Err(e) => return done.call(Err(thrown(&e))),
            };
        let written = transaction.object_store(STORE).and_then(|store| {
            store.put_with_key(&JsValue::from_str(&text), &JsValue::from_str(&id))
        });
        // The connection closes once its transaction is over.
        db.close();
        if let Err(e) = written {
            return done.call(Err(thrown(&e)));
        }
        let ok = done.clone();
        transaction.set_oncomplete(Some(&handler(move || ok.call(Ok(())))));
        // A full quota aborts the transaction with a `QuotaExceededError`.
        let aborted = transaction.clone();
        transaction.set_onabort(Some(&handler(move || {
            done.call(Err(refusal(aborted.error())))
        })));
    });
}

/// The text kept under `id`: `Ok(None)` when this browser keeps nothing under it.
pub fn get(id: String, done: impl FnOnce(Result<Option<String>, String>) + 'static) {
    let done = answered_in_time(done);
    open(move |db| {
        let db = match db {
            Ok(db) => db,
            Err(why) => return done.call(Err(why)),
        };
        let request = db
            .transaction_with_str(STORE)
            .and_then(|t| t.object_store(STORE))
            .and_then(|store| store.get(&JsValue::from_str(&id)));
        db.close();
        let request = match request {
            Ok(request) => request,
            Err(e) => return done.call(Err(thrown(&e))),
        };
        let (read, ok) = (request.clone(), done.clone());
        request.set_onsuccess(Some(&handler(move || {
            ok.call(Ok(read.result().ok().and_then(|v| v.as_string())))
        })));
        let failed = request.clone();
        request.set_onerror(Some(&handler(move || {
            done.call(Err(refusal(failed.error().ok().flatten())))
        })));
    });
}

/// Where links written before the ids kept their one trace (`trace=stored` alone).
const EARLIER_KEY: &str = "ratelab-trace";

fn local_storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok()?
}

/// The trace an earlier version of the page kept in `localStorage`, if this browser has it.
pub fn earlier() -> Option<String> {
    local_storage()?.get_item(EARLIER_KEY).ok()?
}

/// Forgets that trace, once IndexedDB keeps it.
pub fn forget_earlier() {
    if let Some(storage) = local_storage() {
        let _ = storage.remove_item(EARLIER_KEY);
    }
}
