//! A config a person runs, read into the lab: which product it is (each product's reader says
//! whether a text is in its product's words, `profiles::config_text::ConfigOf`, or a person names
//! the product), what that product's reader made of it, and the lab's state with it applied: the
//! family's fields set as the config says, its row shown, and its second limit when it has one.
//!
//! The page's "Your config" box and the command line's `--config` both come here, so a config
//! gives the same row in both. Nothing of the text is kept: what it set is the state a link
//! already carries (the product's fields, `algos=`, `also=`).

use crate::core::lab_state::LabState;
use crate::core::limiter::{Algorithm, Parts, PRODUCT_FIELDS};
use crate::core::profiles::config_text::{ConfigOf, FromConfig};
use crate::core::profiles::Family;

/// A config read: the row it sets and what its reader made of it.
#[derive(Clone, Debug, PartialEq)]
pub struct Reading {
    pub row: Algorithm,
    pub from: FromConfig,
}

/// Where the config's row goes among the rows shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rows {
    /// Beside the rows already shown (the page).
    Add,
    /// In their place (the command line: the config's row replaces `algos=`).
    Replace,
}

/// One reader per family, with the family and its first row, in the order of the rows.
fn readers<C: Parts>() -> Vec<(Algorithm, Family, ConfigOf)> {
    let mut out: Vec<(Algorithm, Family, ConfigOf)> = Vec::new();
    for row in Algorithm::ALL {
        if let (Some(family), Some(config)) = (row.family(), row.config::<C>()) {
            if !out.iter().any(|(_, f, _)| f.prefix == family.prefix) {
                out.push((row, family, config));
            }
        }
    }
    out
}

/// The products whose configs are read, each as the slug of its first row and its family's name,
/// in the order of the rows. A person may name one by either, by the prefix of its fields, or by
/// the slug of any of its rows (`--product`, the page's choice).
pub fn products<C: Parts>() -> Vec<(&'static str, &'static str)> {
    readers::<C>()
        .into_iter()
        .map(|(row, family, _)| (row.slug(), family.name))
        .collect()
}

/// Whether `text` is in the words of exactly one product's config, as a file dropped on the page
/// is told from traffic.
pub fn is_config<C: Parts>(text: &str) -> bool {
    recognised::<C>(text).is_ok()
}

/// The family a person named (`nginx`, `redis-cell`, `cell`, `upstash-sliding`, `Python limits`).
fn named<C: Parts>(name: &str) -> Option<(Family, ConfigOf)> {
    let wanted = name.trim().to_lowercase();
    let names_it = |row: Algorithm, family: &Family| {
        wanted == family.name.to_lowercase()
            || wanted == family.prefix.trim_end_matches('-')
            || Algorithm::ALL
                .into_iter()
                .filter(|r| r.family().is_some_and(|f| f.prefix == family.prefix))
                .any(|r| r.slug() == wanted)
            || row.slug() == wanted
    };
    readers::<C>()
        .into_iter()
        .find(|(row, family, _)| names_it(*row, family))
        .map(|(_, family, config)| (family, config))
}

/// Reads `text` as the config of `product` when one is named, else of the one product whose words
/// it is in. The error is a sentence for the person: what could not be read and where, which
/// product names are known, or which products the text could be.
pub fn read<C: Parts>(text: &str, product: Option<&str>) -> Result<Reading, String> {
    let (family, config) = match product {
        Some(name) => named::<C>(name).ok_or_else(|| {
            format!(
                "no product is called \"{}\"; the products whose configs are read: {}",
                name.trim(),
                products::<C>()
                    .iter()
                    .map(|(slug, _)| *slug)
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })?,
        None => recognised::<C>(text)?,
    };
    let from = (config.read)(text).map_err(|e| format!("{}: {e}", family.name))?;
    let row = Algorithm::from_slug(from.row)
        .filter(|r| r.family().is_some_and(|f| f.prefix == family.prefix))
        .ok_or_else(|| format!("{}: no row is called {}", family.name, from.row))?;
    Ok(Reading { row, from })
}

/// The one product whose words `text` is in.
fn recognised<C: Parts>(text: &str) -> Result<(Family, ConfigOf), String> {
    let all = readers::<C>();
    let found: Vec<_> = all
        .iter()
        .filter(|(_, _, config)| (config.recognises)(text))
        .collect();
    match found.as_slice() {
        [(_, family, config)] => Ok((*family, *config)),
        [] => Err(format!(
            "this is no config the lab reads; it reads {}",
            all.iter()
                .map(|(_, family, config)| format!("{}: {}", family.name, config.forms))
                .collect::<Vec<_>>()
                .join("; ")
        )),
        several => Err(format!(
            "this could be the config of {}: name the product",
            several
                .iter()
                .map(|(_, family, _)| family.name)
                .collect::<Vec<_>>()
                .join(" or ")
        )),
    }
}

impl Reading {
    /// `state` with the config applied: the family's fields as the config set them (every other
    /// family's kept), its row placed as `rows` says, and its second limit when it has one. What
    /// the person should know besides comes back as sentences.
    pub fn apply(&self, state: &mut LabState, rows: Rows) -> Vec<String> {
        let prefix = self.row.family().map_or("", |f| f.prefix);
        for field in PRODUCT_FIELDS.iter().filter(|f| f.name.starts_with(prefix)) {
            let mut fresh =
                crate::core::limiter::without_field(&state.settings.products, field.name);
            if let Some(text) = (field.write)(&self.from.products) {
                // The reader's own value, in the field's own spelling: it reads back.
                let _ = (field.read)(&mut fresh, &text);
            }
            state.settings.products = fresh;
        }
        match rows {
            Rows::Add if !state.algorithms.contains(&self.row) => {
                state.algorithms.push(self.row);
                state.algorithms = Algorithm::in_row_order(&state.algorithms);
            }
            Rows::Add => {}
            Rows::Replace => state.algorithms = vec![self.row],
        }
        let mut said = self.from.notes.clone();
        if let Some(second) = self.from.second {
            state.settings.also = Some(second);
            if state.algorithms.len() > 1 {
                said.push(format!(
                    "The config's second limit, {} per {} s, is the lab's second limit: every row shown checks it too.",
                    second.count,
                    crate::core::time::format_seconds(second.window.micros())
                ));
            }
        }
        said
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::limiter::{Complete, TextbookOnly};

    #[test]
    fn every_product_family_has_a_reader_in_a_program_that_links_the_products() {
        let families: Vec<&str> = Algorithm::ALL
            .into_iter()
            .filter_map(|r| r.family().map(|f| f.prefix))
            .collect();
        let read: Vec<&str> = readers::<Complete>()
            .iter()
            .map(|(_, f, _)| f.prefix)
            .collect();
        for prefix in families {
            assert!(read.contains(&prefix), "{prefix} has no reader");
        }
        assert!(readers::<TextbookOnly>().is_empty());
    }

    #[test]
    fn a_product_is_named_by_its_family_prefix_or_any_of_its_rows() {
        for name in [
            "nginx",
            "NGINX limit_req",
            "upstash-sliding",
            "upstash",
            "redis-cell",
        ] {
            assert!(named::<Complete>(name).is_some(), "{name}");
        }
        assert!(named::<Complete>("haproxy").is_none());
        let e = read::<Complete>("x", Some("haproxy")).unwrap_err();
        assert!(e.contains("no product is called \"haproxy\""), "{e}");
        assert!(e.contains("nginx"), "{e}");
    }

    #[test]
    fn a_text_in_no_products_words_is_refused_naming_what_the_lab_reads() {
        let e = read::<Complete>("hello", None).unwrap_err();
        assert!(e.starts_with("this is no config the lab reads"), "{e}");
        assert!(e.contains("limit_req_zone"), "{e}");
    }
}
