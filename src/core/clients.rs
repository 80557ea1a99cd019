//! How the trace's clients behave when refused (`clients=`, `retries=`): as a trace is, every
//! request sent at its time whatever the answers (`ignore`), or each request a client that waits
//! what its row told it and tries again (`obey`). What a refusal tells a client is in
//! `core::retry_hint`; the simulation of obeying clients in `core::retries`.

/// The most retries a client makes (`retries=`).
pub const MAX_RETRIES: u32 = 50;
/// Retries a client makes when a link names none.
pub const DEFAULT_RETRIES: u32 = 5;

/// How the trace's clients behave when refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Clients {
    /// True: a refused client waits as told and retries. False: every request is sent at its
    /// time, whatever the answers before it (the trace as it is).
    pub obey: bool,
    /// Retries per client, 0 to [`MAX_RETRIES`].
    pub retries: u32,
}

impl Default for Clients {
    fn default() -> Clients {
        Clients {
            obey: false,
            retries: DEFAULT_RETRIES,
        }
    }
}

impl Clients {
    /// The name used in links (`clients=`).
    pub fn slug(self) -> &'static str {
        if self.obey {
            "obey"
        } else {
            "ignore"
        }
    }
}
