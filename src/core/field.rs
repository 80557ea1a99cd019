//! A named setting read from text and written back as text. A part of the lab's state (the
//! product settings, for instance) describes its own fields as a table of these, so the layer
//! that keeps the state somewhere (the URL, in `core::url`) can iterate them without the part
//! knowing where its text comes from or goes.

/// One field of a part `T` of the state.
pub struct Field<T: 'static> {
    /// The field's name (`nginx-burst`, `timeout`): stable, since links carry it.
    pub name: &'static str,
    /// Reads the field's text into `T`. A refusal says, after the quoted text, what the field
    /// accepts and what is used instead ("a whole number from 0 to 1000; using the default.").
    /// A field that lists several values keeps the ones it could read and refuses the rest.
    pub read: fn(&mut T, &str) -> Result<(), String>,
    /// The field's text for the value in `T`, or `None` when `T` holds the default, so that a
    /// link carries only what differs.
    pub write: fn(&T) -> Option<String>,
}

// Copied by hand rather than derived: a derive would ask `T: Copy`, and a row holds only a name
// and two function pointers whatever `T` is. Copies let a table be joined from others in a
// `const` (`core::limiter::rows::PRODUCT_FIELDS`).
impl<T> Clone for Field<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Field<T> {}

/// The first field of `fields` named `name`.
pub fn find<T>(fields: &'static [Field<T>], name: &str) -> Option<&'static Field<T>> {
    fields.iter().find(|f| f.name == name)
}
