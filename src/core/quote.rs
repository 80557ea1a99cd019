//! How a message quotes what a person wrote: the text in double quotes, cut after 80 characters
//! with an ellipsis. A bad line can be megabytes long (a file with no line breaks), and a message
//! that echoed it whole would fill the page's error list or the command line's standard error.

/// The most characters of a person's text a message quotes.
pub const MAX_QUOTED_CHARS: usize = 80;

/// `text` in double quotes, at most [`MAX_QUOTED_CHARS`] characters of it, then `…` when cut.
/// Characters are counted, not bytes, so a character is never split.
pub fn quoted(text: &str) -> String {
    format!("\"{}\"", clipped(text))
}

/// `text` itself, at most [`MAX_QUOTED_CHARS`] characters of it, then `…` when cut.
pub fn clipped(text: &str) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(MAX_QUOTED_CHARS) {
        Some((end, _)) => format!("{}…", &text[..end]).into(),
        None => text.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_text_is_quoted_whole() {
        assert_eq!(quoted("three"), "\"three\"");
        assert_eq!(quoted(""), "\"\"");
        let eighty = "x".repeat(80);
        assert_eq!(quoted(&eighty), format!("\"{eighty}\""));
    }

    #[test]
    fn a_long_text_is_cut_after_eighty_characters_with_an_ellipsis() {
        let long = "y".repeat(10_000_000);
        assert_eq!(quoted(&long), format!("\"{}…\"", "y".repeat(80)));
    }

    #[test]
    fn characters_are_counted_not_bytes_and_never_split() {
        let long = "é".repeat(81);
        let cut = clipped(&long);
        assert_eq!(cut.chars().count(), 81, "80 characters and the ellipsis");
        assert!(cut.starts_with(&"é".repeat(80)) && cut.ends_with('…'));
        let emoji = format!("a{}", "\u{1F600}".repeat(100));
        assert_eq!(
            clipped(&emoji)
                .chars()
                .filter(|&c| c == '\u{1F600}')
                .count(),
            79
        );
    }
}
