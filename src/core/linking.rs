//! Which parts of the lab a program links, as switches known when it is compiled: whether it runs
//! the product rows, whether it runs the rules (copies, a second limit, obeying clients, lanes by
//! key), and whether it emulates the Durable Object. `core::limiter::Parts` adds the products' types to them. The modules below the
//! catalogue (`core::deployment`) read these switches alone; a program names its parts where it
//! is put together (`ui::Linked`, the command line, the tests), and the code a switch turns off
//! is never instantiated in it.

pub trait Linking: 'static {
    /// Whether the product rows run.
    const PRODUCTS: bool;
    /// Whether the rules run: copies, a second limit, obeying clients, lanes by key.
    const RULES: bool;
    /// Whether the Durable Object is emulated (`core::durable`) when a view asks for it.
    const DURABLE: bool;
}
