//! Which parts of the lab a program links, as two switches known when it is compiled: whether it
//! runs the product rows and whether it runs the rules (copies, a second limit, obeying clients,
//! lanes by key). `core::limiter::Parts` adds the products' types to them. The modules below the
//! catalogue (`core::deployment`) read these switches alone; a program names its parts where it
//! is put together (`ui::Linked`, the command line, the tests), and the code a switch turns off
//! is never instantiated in it.

pub trait Linking: 'static {
    /// Whether the product rows run.
    const PRODUCTS: bool;
    /// Whether the rules run: copies, a second limit, obeying clients, lanes by key.
    const RULES: bool;
}
