//! Traffic described in a line: segments added to the view's traffic, kept in the link as
//! `compose=`. "150 at once, then 2 a second for a minute" is `150@0;2/s@0-60`.
//!
//! Grammar (segments separated by `;`, each with optional `,name=value` options):
//! - `N@T`: a burst of N requests at T seconds;
//! - `R/s@T1-T2`: a steady R requests a second from T1 to T2 (T2 not included), evenly spaced
//!   from T1 on;
//! - `~R/s@T1-T2`: Poisson arrivals at R a second from T1 to T2, drawn from the lab's seed;
//! - options: `key=` (the default key when left out), `region=` (fra, iad, gru, sin, syd, nrt),
//!   `route=`, `cost=` (1 when left out). A key and a route are percent-encoded
//!   (`core::percent`), so they may hold any character, `,` and `;` included
//!   (`5@0,key=acme%2C%20inc`); each is decoded once its option is split off, and a `+` in them
//!   stays a `+`.
//!
//! Times are decimal seconds read exactly (`core::time::parse_seconds`); a rate is decimal too,
//! and a steady segment's request `i` is at `T1 + i / R`, rounded down to the microsecond.
//! Nothing here panics, whatever the text: a bad segment is named with what it should be.
//!
//! The page also edits segments a field at a time, as rows (`SegmentField`: how many, when,
//! over how long, evenly or at random, key, region, route, cost): `edit_segment` reads one
//! field's text and keeps the others, so the rows and the text form edit the same segments.

use super::percent::{percent_decode_name, percent_encode};
use super::region::Region;
use super::rng::SeededRng;
use super::time::{format_seconds, parse_seconds, Time, MICROS_PER_SEC};
use super::traffic::{parse_cost, Point, DEFAULT_KEY, MAX_KEY_LEN};

/// The most requests segments may add in all.
pub const MAX_COMPOSED: u64 = 200_000;
/// The most segments in one link.
pub const MAX_SEGMENTS: usize = 50;

/// How a segment's requests are spread in time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// `count` requests at one moment.
    Burst { count: u64, at: Time },
    /// A steady rate of `per_second_micro` millionths of a request a second, from `from` up
    /// to (not including) `to`.
    Steady {
        per_second_micro: u64,
        from: Time,
        to: Time,
    },
    /// Poisson arrivals at that mean rate.
    Poisson {
        per_second_micro: u64,
        from: Time,
        to: Time,
    },
}

/// One segment of composed traffic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    pub shape: Shape,
    pub key: Option<String>,
    pub region: Option<Region>,
    pub route: Option<String>,
    pub cost: u32,
}

/// A rate written as a decimal ("2", "1.5") in millionths of a request a second.
fn parse_rate(text: &str) -> Result<u64, String> {
    let micro =
        parse_seconds(text).map_err(|_| format!("\"{text}\" is not a rate, like 2 or 1.5"))?;
    if micro == 0 {
        return Err("a rate must be more than 0 a second".into());
    }
    Ok(micro)
}

fn parse_time(text: &str) -> Result<Time, String> {
    parse_seconds(text)
        .map(Time)
        .map_err(|e| format!("\"{text}\": {e}"))
}

/// `T1-T2`, the second after the first.
fn parse_span(text: &str) -> Result<(Time, Time), String> {
    let (from, to) = text
        .split_once('-')
        .ok_or_else(|| format!("\"{text}\" should be a start and an end in seconds, like 0-60"))?;
    let (from, to) = (parse_time(from)?, parse_time(to)?);
    if to <= from {
        return Err(format!("\"{text}\" ends before it starts"));
    }
    Ok((from, to))
}

/// A segment's key: 1 to [`MAX_KEY_LEN`] characters, none of them a control character.
fn parse_key(value: &str) -> Result<String, String> {
    if value.is_empty()
        || value.chars().count() > MAX_KEY_LEN
        || value.chars().any(char::is_control)
    {
        return Err(format!("the key must be 1 to {MAX_KEY_LEN} characters"));
    }
    Ok(value.to_string())
}

fn parse_region(value: &str) -> Result<Region, String> {
    Region::from_code(value)
        .ok_or_else(|| format!("\"{value}\" is not a region (fra, iad, gru, sin, syd, nrt)"))
}

/// A route, cut to its first 200 characters.
fn route_of(value: &str) -> String {
    value.chars().take(200).collect()
}

/// A number of requests, 1 to [`MAX_COMPOSED`].
fn parse_count(text: &str) -> Result<u64, String> {
    match text.trim().parse::<u64>() {
        Ok(n) if (1..=MAX_COMPOSED).contains(&n) => Ok(n),
        _ => Err(format!(
            "\"{}\" should be a number of requests from 1 to {MAX_COMPOSED}",
            text.trim()
        )),
    }
}

impl Segment {
    /// Reads one segment, like `2/s@0-60,key=tenant:a`.
    pub fn parse(text: &str) -> Result<Segment, String> {
        let mut parts = text.trim().split(',');
        let head = parts.next().unwrap_or("").trim();
        let shape = if let Some((rate, span)) = head.split_once("/s@") {
            let (from, to) = parse_span(span)?;
            match rate.strip_prefix('~') {
                Some(rate) => Shape::Poisson {
                    per_second_micro: parse_rate(rate)?,
                    from,
                    to,
                },
                None => Shape::Steady {
                    per_second_micro: parse_rate(rate)?,
                    from,
                    to,
                },
            }
        } else if let Some((count, at)) = head.split_once('@') {
            Shape::Burst {
                count: parse_count(count)?,
                at: parse_time(at)?,
            }
        } else {
            return Err(format!(
                "\"{head}\" is not a segment: a burst N@T (150@0), a steady rate R/s@T1-T2 (2/s@0-60) or Poisson ~R/s@T1-T2"
            ));
        };
        let mut segment = Segment {
            shape,
            key: None,
            region: None,
            route: None,
            cost: 1,
        };
        for option in parts {
            let (name, value) = option.split_once('=').ok_or_else(|| {
                format!("\"{option}\" should be name=value (key, region, route or cost)")
            })?;
            let value = value.trim();
            let name = name.trim();
            let decoded;
            let value = match name {
                "key" | "route" => {
                    decoded = percent_decode_name(value);
                    decoded.trim()
                }
                _ => value,
            };
            match name {
                "key" => segment.key = Some(parse_key(value)?),
                "region" => segment.region = Some(parse_region(value)?),
                "route" if !value.is_empty() => segment.route = Some(route_of(value)),
                "cost" => segment.cost = parse_cost(value)?,
                other => {
                    return Err(format!(
                        "\"{other}\" is not an option (key, region, route, cost)"
                    ))
                }
            }
        }
        Ok(segment)
    }

    /// How many requests the segment adds: exactly, for a burst and a steady rate (request `i`
    /// is sent while `i / R` is inside the span); for Poisson, the mean, rounded.
    pub fn count(&self) -> u64 {
        // The span times the rate, in 10^-12 requests.
        let scaled = |per_second_micro: u64, from: Time, to: Time| {
            u128::from(to.micros().saturating_sub(from.micros())) * u128::from(per_second_micro)
        };
        let unit = u128::from(MICROS_PER_SEC) * u128::from(MICROS_PER_SEC);
        let n = match self.shape {
            Shape::Burst { count, .. } => return count,
            Shape::Steady {
                per_second_micro,
                from,
                to,
            } => scaled(per_second_micro, from, to).div_ceil(unit),
            Shape::Poisson {
                per_second_micro,
                from,
                to,
            } => (scaled(per_second_micro, from, to) + unit / 2) / unit,
        };
        u64::try_from(n).unwrap_or(u64::MAX)
    }

    /// The segment as the link writes it.
    pub fn to_text(&self) -> String {
        let rate = |micro: u64| format_seconds(micro);
        let mut text = match self.shape {
            Shape::Burst { count, at } => format!("{count}@{}", format_seconds(at.micros())),
            Shape::Steady {
                per_second_micro,
                from,
                to,
            } => format!(
                "{}/s@{}-{}",
                rate(per_second_micro),
                format_seconds(from.micros()),
                format_seconds(to.micros())
            ),
            Shape::Poisson {
                per_second_micro,
                from,
                to,
            } => format!(
                "~{}/s@{}-{}",
                rate(per_second_micro),
                format_seconds(from.micros()),
                format_seconds(to.micros())
            ),
        };
        if let Some(key) = &self.key {
            text.push_str(&format!(",key={}", percent_encode(key)));
        }
        if let Some(region) = self.region {
            text.push_str(&format!(",region={}", region.code()));
        }
        if let Some(route) = &self.route {
            text.push_str(&format!(",route={}", percent_encode(route)));
        }
        if self.cost != 1 {
            text.push_str(&format!(",cost={}", self.cost));
        }
        text
    }

    /// The segment in words, for the page: "150 requests at 0 s", "2 a second from 0 to 60 s".
    pub fn describe(&self) -> String {
        let mut text = match self.shape {
            Shape::Burst { count, at } => {
                format!("{count} at once at {} s", format_seconds(at.micros()))
            }
            Shape::Steady {
                per_second_micro,
                from,
                to,
            } => format!(
                "{} a second from {} to {} s ({} requests)",
                format_seconds(per_second_micro),
                format_seconds(from.micros()),
                format_seconds(to.micros()),
                self.count()
            ),
            Shape::Poisson {
                per_second_micro,
                from,
                to,
            } => format!(
                "at random, {} a second on average, from {} to {} s",
                format_seconds(per_second_micro),
                format_seconds(from.micros()),
                format_seconds(to.micros())
            ),
        };
        text.push_str(&format!(
            ", key {}",
            self.key.as_deref().unwrap_or(DEFAULT_KEY)
        ));
        if let Some(region) = self.region {
            text.push_str(&format!(", from {}", region.code()));
        }
        if let Some(route) = &self.route {
            text.push_str(&format!(", route {route}"));
        }
        if self.cost != 1 {
            text.push_str(&format!(", each costing {}", self.cost));
        }
        text
    }

    /// The segment's requests; `seed` draws a Poisson segment's arrivals.
    fn points(&self, seed: u64, out: &mut Vec<Point>) {
        let point = |at: Time| Point {
            at,
            key: self.key.clone().unwrap_or_else(|| DEFAULT_KEY.to_string()),
            origin: self.region,
            route: self.route.clone(),
            cost: self.cost,
        };
        match self.shape {
            Shape::Burst { count, at } => out.extend((0..count).map(|_| point(at))),
            Shape::Steady {
                per_second_micro,
                from,
                to,
            } => {
                let step = |i: u64| {
                    // T1 + i / R, with R in millionths: i × 10^12 / R microseconds.
                    let offset =
                        u128::from(i) * u128::from(MICROS_PER_SEC) * u128::from(MICROS_PER_SEC)
                            / u128::from(per_second_micro);
                    Time(
                        from.micros()
                            .saturating_add(u64::try_from(offset).unwrap_or(u64::MAX)),
                    )
                };
                out.extend((0..).map(step).take_while(|&t| t < to).map(point));
            }
            Shape::Poisson {
                per_second_micro,
                from,
                to,
            } => {
                let mean = u128::from(MICROS_PER_SEC) * u128::from(MICROS_PER_SEC)
                    / u128::from(per_second_micro);
                let mean = u64::try_from(mean).unwrap_or(u64::MAX).max(1);
                let mut rng = SeededRng::new(seed);
                let mut at = from;
                loop {
                    at = Time(at.micros().saturating_add(rng.exponential_micros(mean)));
                    if at >= to {
                        break;
                    }
                    out.push(point(at));
                }
            }
        }
    }
}

/// A field of a segment's row on the page: how many requests, when, over how long, spaced how,
/// and from whom. The row and the text form edit the same segments: a field's text is read here,
/// with the message the row shows beside it when it is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SegmentField {
    Count,
    At,
    Over,
    Spacing,
    Key,
    Region,
    Route,
    Cost,
}

impl SegmentField {
    pub const ALL: [SegmentField; 8] = [
        SegmentField::Count,
        SegmentField::At,
        SegmentField::Over,
        SegmentField::Spacing,
        SegmentField::Key,
        SegmentField::Region,
        SegmentField::Route,
        SegmentField::Cost,
    ];

    /// Its short name (the page's `compose-count`, `compose-at`, ...).
    pub fn slug(self) -> &'static str {
        match self {
            SegmentField::Count => "count",
            SegmentField::At => "at",
            SegmentField::Over => "over",
            SegmentField::Spacing => "spacing",
            SegmentField::Key => "key",
            SegmentField::Region => "region",
            SegmentField::Route => "route",
            SegmentField::Cost => "cost",
        }
    }
}

/// The spacings a segment spread over time may have, as the row's choice gives them: its text
/// and its words.
pub const SPACINGS: [(&str, &str); 2] = [("even", "evenly"), ("poisson", "at random (Poisson)")];

/// The most requests a new segment starts with (the lab's limit, when smaller).
const STARTER_MAX: u64 = 1_000;

/// The rate, in millionths of a request a second, that sends `count` requests over `span`
/// microseconds: rounded down, so a steady segment sends exactly `count` while the span is
/// shorter than 10^12 µs (11.5 days); a longer one may send one less, as its count then says.
fn rate_for(count: u64, span: u64) -> Result<u64, String> {
    let micro = u128::from(count) * u128::from(MICROS_PER_SEC) * u128::from(MICROS_PER_SEC)
        / u128::from(span.max(1));
    match u64::try_from(micro) {
        Ok(0) => Err(format!(
            "{count} over {} s is less than a millionth of a request a second",
            format_seconds(span)
        )),
        Ok(micro) => Ok(micro),
        Err(_) => Err("too many requests for so short a time".into()),
    }
}

/// Seconds typed in a field, with the reason they are refused.
fn field_seconds(text: &str) -> Result<u64, String> {
    parse_seconds(text).map_err(|e| e.to_string())
}

impl Segment {
    /// A burst of `count` requests at `at`, from the default key.
    pub fn burst(count: u64, at: Time) -> Segment {
        Segment {
            shape: Shape::Burst { count, at },
            key: None,
            region: None,
            route: None,
            cost: 1,
        }
    }

    /// When the segment starts.
    pub fn start(&self) -> Time {
        match self.shape {
            Shape::Burst { at, .. } => at,
            Shape::Steady { from, .. } | Shape::Poisson { from, .. } => from,
        }
    }

    /// When it ends: a burst's moment, a rate's end.
    pub fn end(&self) -> Time {
        match self.shape {
            Shape::Burst { at, .. } => at,
            Shape::Steady { to, .. } | Shape::Poisson { to, .. } => to,
        }
    }

    /// The text a field of the segment's row shows: a burst lasts 0 s, and an unset key,
    /// region or route is empty.
    pub fn field_text(&self, field: SegmentField) -> String {
        match field {
            SegmentField::Count => self.count().to_string(),
            SegmentField::At => format_seconds(self.start().micros()),
            SegmentField::Over => {
                format_seconds(self.end().micros().saturating_sub(self.start().micros()))
            }
            SegmentField::Spacing => match self.shape {
                Shape::Poisson { .. } => "poisson",
                _ => "even",
            }
            .to_string(),
            SegmentField::Key => self.key.clone().unwrap_or_default(),
            SegmentField::Region => self.region.map(Region::code).unwrap_or("").to_string(),
            SegmentField::Route => self.route.clone().unwrap_or_default(),
            SegmentField::Cost => self.cost.to_string(),
        }
    }

    /// The segment with one field set from what a person typed, or why that text is refused
    /// (the segment is then left as it was). The other fields keep their values: a new count
    /// keeps the start and the length (the rate follows); a new start moves the whole segment;
    /// a new length keeps the count (0 s makes it a burst, more spreads a burst evenly); an empty
    /// key, region or route is the default one, an empty cost is 1.
    pub fn with_field(&self, field: SegmentField, text: &str) -> Result<Segment, String> {
        let text = text.trim();
        let mut next = self.clone();
        match field {
            SegmentField::Count => {
                let count = parse_count(text)?;
                next.shape = match self.shape {
                    Shape::Burst { at, .. } => Shape::Burst { count, at },
                    Shape::Steady { from, to, .. } => Shape::Steady {
                        per_second_micro: rate_for(count, to.micros() - from.micros())?,
                        from,
                        to,
                    },
                    Shape::Poisson { from, to, .. } => Shape::Poisson {
                        per_second_micro: rate_for(count, to.micros() - from.micros())?,
                        from,
                        to,
                    },
                };
            }
            SegmentField::At => {
                let from = Time(field_seconds(text)?);
                let span = self.end().micros() - self.start().micros();
                let to = Time(from.micros().saturating_add(span));
                next.shape = match self.shape {
                    Shape::Burst { count, .. } => Shape::Burst { count, at: from },
                    Shape::Steady {
                        per_second_micro, ..
                    } => Shape::Steady {
                        per_second_micro,
                        from,
                        to,
                    },
                    Shape::Poisson {
                        per_second_micro, ..
                    } => Shape::Poisson {
                        per_second_micro,
                        from,
                        to,
                    },
                };
            }
            SegmentField::Over => {
                let span = field_seconds(text)?;
                let (count, from) = (self.count().clamp(1, MAX_COMPOSED), self.start());
                let to = Time(from.micros().saturating_add(span));
                next.shape = match self.shape {
                    _ if span == 0 => Shape::Burst { count, at: from },
                    Shape::Poisson { .. } => Shape::Poisson {
                        per_second_micro: rate_for(count, span)?,
                        from,
                        to,
                    },
                    Shape::Burst { .. } | Shape::Steady { .. } => Shape::Steady {
                        per_second_micro: rate_for(count, span)?,
                        from,
                        to,
                    },
                };
            }
            SegmentField::Spacing => {
                next.shape =
                    match (text, self.shape) {
                        ("even", Shape::Burst { .. }) => self.shape,
                        ("poisson", Shape::Burst { .. }) => return Err(
                            "a burst sends every request at once: give it a length (over) first"
                                .into(),
                        ),
                        (
                            "even",
                            Shape::Steady {
                                per_second_micro,
                                from,
                                to,
                            }
                            | Shape::Poisson {
                                per_second_micro,
                                from,
                                to,
                            },
                        ) => Shape::Steady {
                            per_second_micro,
                            from,
                            to,
                        },
                        (
                            "poisson",
                            Shape::Steady {
                                per_second_micro,
                                from,
                                to,
                            }
                            | Shape::Poisson {
                                per_second_micro,
                                from,
                                to,
                            },
                        ) => Shape::Poisson {
                            per_second_micro,
                            from,
                            to,
                        },
                        _ => return Err(format!("\"{text}\" is not a spacing (even or poisson)")),
                    };
            }
            SegmentField::Key => {
                next.key = match text {
                    "" => None,
                    key => Some(parse_key(key)?),
                }
            }
            SegmentField::Region => {
                next.region = match text {
                    "" => None,
                    code => Some(parse_region(code)?),
                }
            }
            SegmentField::Route => next.route = (!text.is_empty()).then(|| route_of(text)),
            SegmentField::Cost => {
                next.cost = match text {
                    "" => 1,
                    cost => parse_cost(cost)?,
                }
            }
        }
        Ok(next)
    }
}

/// Whether `segments` add at most [`MAX_COMPOSED`] requests.
fn within_total(segments: &[Segment]) -> Result<(), String> {
    let total = segments
        .iter()
        .fold(0u64, |sum, s| sum.saturating_add(s.count()));
    match total > MAX_COMPOSED {
        true => Err(format!(
            "the segments would add {total} requests, more than {MAX_COMPOSED}"
        )),
        false => Ok(()),
    }
}

/// `segments` with one field of the `index`th set from what a person typed, or why the text is
/// refused (then nothing changes): the field's own rule, or the total the segments may add.
pub fn edit_segment(
    segments: &[Segment],
    index: usize,
    field: SegmentField,
    text: &str,
) -> Result<Vec<Segment>, String> {
    let segment = segments
        .get(index)
        .ok_or_else(|| format!("there is no segment {}", index + 1))?;
    let mut next = segments.to_vec();
    next[index] = segment.with_field(field, text)?;
    within_total(&next)?;
    Ok(next)
}

/// `segments` and one more to start from: a burst of the lab's `limit` (at most 1,000) where
/// the others end, so it is seen beside them; or why there is no room for it.
pub fn add_segment(segments: &[Segment], limit: u64) -> Result<Vec<Segment>, String> {
    if segments.len() >= MAX_SEGMENTS {
        return Err(format!("at most {MAX_SEGMENTS} segments"));
    }
    let at = segments
        .iter()
        .map(Segment::end)
        .max()
        .unwrap_or(Time::ZERO);
    let mut next = segments.to_vec();
    next.push(Segment::burst(limit.clamp(1, STARTER_MAX), at));
    within_total(&next)?;
    Ok(next)
}

/// Reads `compose=`: every segment, or the first bad one named by its place.
pub fn parse_segments(text: &str) -> Result<Vec<Segment>, String> {
    let texts: Vec<&str> = text
        .split(';')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    if texts.len() > MAX_SEGMENTS {
        return Err(format!("more than {MAX_SEGMENTS} segments"));
    }
    let mut segments = Vec::with_capacity(texts.len());
    let mut total = 0u64;
    for (i, text) in texts.iter().enumerate() {
        let segment =
            Segment::parse(text).map_err(|e| format!("segment {} ({text}): {e}", i + 1))?;
        total = total.saturating_add(segment.count());
        if total > MAX_COMPOSED {
            return Err(format!(
                "the segments add more than {MAX_COMPOSED} requests"
            ));
        }
        segments.push(segment);
    }
    Ok(segments)
}

/// `segments` as `compose=` writes them.
pub fn segments_text(segments: &[Segment]) -> String {
    let texts: Vec<String> = segments.iter().map(Segment::to_text).collect();
    texts.join(";")
}

/// The requests of every segment, in segment order (a trace sorts them by time); segment `i`
/// of a Poisson shape draws from `seed` mixed with `i`, so one segment's change leaves the
/// others' arrivals as they were.
pub fn composed_points(segments: &[Segment], seed: u64) -> Vec<Point> {
    let mut points = Vec::new();
    for (i, segment) in segments.iter().enumerate() {
        segment.points(
            seed ^ (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15),
            &mut points,
        );
    }
    points
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_then_a_steady_rate_is_150_at_zero_and_then_two_a_second_for_a_minute() {
        let segments = parse_segments("150@0;2/s@0-60").unwrap();
        let points = composed_points(&segments, 1);
        assert_eq!(points.len(), 270);
        assert!(points[..150]
            .iter()
            .all(|p| p.at == Time::ZERO && p.key == DEFAULT_KEY));
        assert_eq!(points[151].at, Time::from_millis(500));
        assert_eq!(points.last().unwrap().at, Time::from_millis(59_500));
        assert_eq!(segments_text(&segments), "150@0;2/s@0-60");
    }

    #[test]
    fn options_give_the_key_region_route_and_cost_and_round_trip() {
        let text = "1.5/s@10-12,key=tenant:a,region=fra,route=GET%20%2Fx,cost=3";
        let segment = Segment::parse(text).unwrap();
        assert_eq!(segment.to_text(), text);
        assert_eq!(
            Segment::parse("1.5/s@10-12,key=tenant:a,region=fra,route=GET /x,cost=3").unwrap(),
            segment,
            "a route typed with its space"
        );
        let points = composed_points(std::slice::from_ref(&segment), 1);
        let times: Vec<Time> = points.iter().map(|p| p.at).collect();
        assert_eq!(
            times,
            [Time::from_secs(10), Time(10_666_666), Time(11_333_333)]
        );
        assert_eq!((points[0].key.as_str(), points[0].cost), ("tenant:a", 3));
        assert_eq!(points[0].route.as_deref(), Some("GET /x"));
    }

    #[test]
    fn a_key_or_route_holding_commas_semicolons_or_escapes_is_one_option() {
        for key in [
            "acme, inc",
            "a;b",
            "50%",
            "%41",
            "a+b",
            "k=v",
            "🦀 \"q\" &#",
        ] {
            let segment = Segment {
                shape: Shape::Burst {
                    count: 2,
                    at: Time::ZERO,
                },
                key: Some(key.to_string()),
                region: None,
                route: Some(format!("GET /{key}")),
                cost: 1,
            };
            let text = segments_text(&[segment.clone(), segment.clone()]);
            assert_eq!(parse_segments(&text).unwrap(), [segment.clone(), segment]);
        }
        let typed = parse_segments("5@0,key=tenant a+b").unwrap();
        assert_eq!(typed[0].key.as_deref(), Some("tenant a+b"));
    }

    #[test]
    fn poisson_segments_follow_the_seed_and_keep_their_mean() {
        let segments = parse_segments("~20/s@0-100").unwrap();
        let drawn = composed_points(&segments, 7);
        assert_eq!(drawn, composed_points(&segments, 7));
        assert_ne!(drawn, composed_points(&segments, 8));
        assert!((1_800..2_200).contains(&drawn.len()), "{}", drawn.len());
        assert!(drawn.iter().all(|p| p.at < Time::from_secs(100)));
    }

    #[test]
    fn bad_segments_say_which_and_what_they_should_be() {
        let cases = [
            ("150@0;x", "segment 2 (x): \"x\" is not a segment"),
            (
                "2/s@60-0",
                "segment 1 (2/s@60-0): \"60-0\" ends before it starts",
            ),
            ("0/s@0-1", "a rate must be more than 0"),
            ("5@0,colour=red", "\"colour\" is not an option"),
            ("5@0,region=mars", "\"mars\" is not a region"),
            ("300000@0", "from 1 to 200000"),
            ("2000/s@0-200", "more than 200000 requests"),
        ];
        for (text, expected) in cases {
            let error = parse_segments(text).unwrap_err();
            assert!(error.contains(expected), "{text}: {error}");
        }
        assert_eq!(parse_segments(" ; ").unwrap(), []);
    }

    /// The fields of a row, in `SegmentField::ALL`'s order.
    fn fields(segment: &Segment) -> Vec<String> {
        SegmentField::ALL
            .iter()
            .map(|&f| segment.field_text(f))
            .collect()
    }

    #[test]
    fn a_row_tells_a_segment_as_how_many_when_over_how_long_spaced_how_and_from_whom() {
        let segments = parse_segments(
            "150@0;2/s@0-60,key=tenant:a,region=fra,route=GET%20%2Fx,cost=2;~3/s@10-20",
        )
        .unwrap();
        assert_eq!(
            fields(&segments[0]),
            ["150", "0", "0", "even", "", "", "", "1"]
        );
        assert_eq!(
            fields(&segments[1]),
            ["120", "0", "60", "even", "tenant:a", "fra", "GET /x", "2"]
        );
        assert_eq!(
            fields(&segments[2]),
            ["30", "10", "10", "poisson", "", "", "", "1"]
        );
    }

    #[test]
    fn a_burst_of_50_at_5_s_is_set_field_by_field_without_the_grammar() {
        let added = add_segment(&[], 5).unwrap();
        assert_eq!(segments_text(&added), "5@0");
        let counted = edit_segment(&added, 0, SegmentField::Count, "50").unwrap();
        let moved = edit_segment(&counted, 0, SegmentField::At, " 5 ").unwrap();
        assert_eq!(segments_text(&moved), "50@5");
        assert_eq!(composed_points(&moved, 1).len(), 50);
        assert!(composed_points(&moved, 1)
            .iter()
            .all(|p| p.at == Time::from_secs(5)));
    }

    #[test]
    fn a_length_spreads_a_burst_evenly_and_keeps_its_count_and_0_s_makes_it_a_burst_again() {
        let burst = [Segment::burst(50, Time::from_secs(5))];
        let spread = edit_segment(&burst, 0, SegmentField::Over, "10").unwrap();
        assert_eq!(segments_text(&spread), "5/s@5-15");
        assert_eq!(composed_points(&spread, 1).len(), 50);
        let random = edit_segment(&spread, 0, SegmentField::Spacing, "poisson").unwrap();
        assert_eq!(segments_text(&random), "~5/s@5-15");
        assert_eq!(random[0].field_text(SegmentField::Count), "50");
        let longer = edit_segment(&random, 0, SegmentField::Over, "20").unwrap();
        assert_eq!(
            segments_text(&longer),
            "~2.5/s@5-25",
            "the same mean count, longer"
        );
        let even = edit_segment(&longer, 0, SegmentField::Spacing, "even").unwrap();
        assert_eq!(segments_text(&even), "2.5/s@5-25");
        let again = edit_segment(&even, 0, SegmentField::Over, "0").unwrap();
        assert_eq!(segments_text(&again), "50@5");
    }

    #[test]
    fn a_new_count_keeps_the_span_and_a_steady_segment_sends_exactly_that_many() {
        for span in ["1", "3", "7.5", "60", "0.001", "86400", "1000000"] {
            let one = [Segment::burst(1, Time::from_secs(2))];
            let start = edit_segment(&one, 0, SegmentField::Over, span).unwrap();
            for count in [1, 2, 3, 7, 50, 99, 1_000, 12_345, 200_000] {
                let next =
                    edit_segment(&start, 0, SegmentField::Count, &count.to_string()).unwrap();
                assert_eq!(next[0].count(), count, "{count} over {span} s");
                assert_eq!(
                    composed_points(&next, 1).len() as u64,
                    count,
                    "{count} over {span} s"
                );
                assert_eq!(next[0].field_text(SegmentField::Over), span);
                assert_eq!(next[0].field_text(SegmentField::At), "2");
                assert_eq!(
                    parse_segments(&segments_text(&next)).unwrap(),
                    next,
                    "the text form reads back the same segment"
                );
            }
        }
    }

    #[test]
    fn a_new_start_moves_the_whole_segment() {
        let segments = parse_segments("2/s@0-60;~3/s@10-20").unwrap();
        let moved = edit_segment(&segments, 1, SegmentField::At, "30.5").unwrap();
        assert_eq!(segments_text(&moved), "2/s@0-60;~3/s@30.5-40.5");
    }

    #[test]
    fn the_key_region_route_and_cost_are_set_and_emptied_back_to_their_defaults() {
        let mut segments = vec![Segment::burst(3, Time::ZERO)];
        for (field, text) in [
            (SegmentField::Key, "acme, inc"),
            (SegmentField::Region, "syd"),
            (SegmentField::Route, "POST /login"),
            (SegmentField::Cost, "4"),
        ] {
            segments = edit_segment(&segments, 0, field, text).unwrap();
        }
        assert_eq!(
            segments_text(&segments),
            "3@0,key=acme%2C%20inc,region=syd,route=POST%20%2Flogin,cost=4"
        );
        for field in [
            SegmentField::Key,
            SegmentField::Region,
            SegmentField::Route,
            SegmentField::Cost,
        ] {
            segments = edit_segment(&segments, 0, field, " ").unwrap();
        }
        assert_eq!(segments_text(&segments), "3@0");
    }

    #[test]
    fn each_field_refuses_a_bad_value_with_its_message_and_changes_nothing() {
        let segments = parse_segments("10@0;2/s@0-60").unwrap();
        let cases = [
            (
                0,
                SegmentField::Count,
                "0",
                "should be a number of requests from 1 to 200000",
            ),
            (
                0,
                SegmentField::Count,
                "many",
                "\"many\" should be a number of requests",
            ),
            (0, SegmentField::At, "-1", "is negative; times start at 0"),
            (0, SegmentField::At, "", "no number was given"),
            (1, SegmentField::Over, "soon", "is not a number of seconds"),
            (
                0,
                SegmentField::Spacing,
                "poisson",
                "give it a length (over) first",
            ),
            (
                1,
                SegmentField::Spacing,
                "bursty",
                "is not a spacing (even or poisson)",
            ),
            (
                0,
                SegmentField::Key,
                &"k".repeat(101),
                "the key must be 1 to 100 characters",
            ),
            (0, SegmentField::Region, "mars", "\"mars\" is not a region"),
            (
                0,
                SegmentField::Cost,
                "0",
                "a whole number from 1 to 1000000",
            ),
            (
                1,
                SegmentField::Count,
                "200000",
                "would add 200010 requests, more than 200000",
            ),
            (
                1,
                SegmentField::Over,
                "1000000000",
                "less than a millionth of a request a second",
            ),
            (2, SegmentField::Count, "5", "there is no segment 3"),
        ];
        for (index, field, text, expected) in cases {
            let error = edit_segment(&segments, index, field, text).unwrap_err();
            assert!(error.contains(expected), "{field:?} {text}: {error}");
        }
    }

    #[test]
    fn a_new_segment_starts_where_the_others_end_with_the_labs_limit() {
        let segments = parse_segments("2/s@0-60;10@70").unwrap();
        let added = add_segment(&segments, 5).unwrap();
        assert_eq!(segments_text(&added[2..]), "5@70");
        assert_eq!(segments_text(&add_segment(&[], 50_000).unwrap()), "1000@0");
        let full = vec![Segment::burst(1, Time::ZERO); MAX_SEGMENTS];
        assert_eq!(add_segment(&full, 5).unwrap_err(), "at most 50 segments");
    }

    #[test]
    fn a_steady_segments_count_is_what_it_sends_and_poissons_is_its_rounded_mean() {
        let segments = parse_segments("1.5/s@0-1;~1.5/s@0-1;3/s@0-0.5").unwrap();
        assert_eq!(segments[0].count(), 2);
        assert_eq!(composed_points(&segments[..1], 1).len(), 2);
        assert_eq!(segments[1].count(), 2, "a mean of 1.5, rounded");
        assert_eq!(segments[2].count(), 2);
        assert_eq!(composed_points(&segments[2..], 1).len(), 2);
    }

    #[test]
    fn segments_read_in_words() {
        let segments = parse_segments("150@0;2/s@0-60,key=tenant:a,cost=2").unwrap();
        assert_eq!(
            segments[0].describe(),
            "150 at once at 0 s, key tenant:demo"
        );
        assert_eq!(
            segments[1].describe(),
            "2 a second from 0 to 60 s (120 requests), key tenant:a, each costing 2"
        );
    }
}
