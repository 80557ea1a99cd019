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
            let count = match count.trim().parse::<u64>() {
                Ok(n) if (1..=MAX_COMPOSED).contains(&n) => n,
                _ => {
                    return Err(format!(
                        "\"{count}\" should be a number of requests from 1 to {MAX_COMPOSED}"
                    ))
                }
            };
            Shape::Burst {
                count,
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
                "key" => {
                    if value.is_empty()
                        || value.chars().count() > MAX_KEY_LEN
                        || value.chars().any(char::is_control)
                    {
                        return Err(format!("the key must be 1 to {MAX_KEY_LEN} characters"));
                    }
                    segment.key = Some(value.to_string());
                }
                "region" => {
                    segment.region = Some(Region::from_code(value).ok_or_else(|| {
                        format!("\"{value}\" is not a region (fra, iad, gru, sin, syd, nrt)")
                    })?)
                }
                "route" if !value.is_empty() => {
                    segment.route = Some(value.chars().take(200).collect())
                }
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

    /// How many requests the segment adds; for Poisson, the mean.
    pub fn count(&self) -> u64 {
        match self.shape {
            Shape::Burst { count, .. } => count,
            Shape::Steady {
                per_second_micro,
                from,
                to,
            }
            | Shape::Poisson {
                per_second_micro,
                from,
                to,
            } => {
                let span = u128::from(to.micros() - from.micros());
                let n = span * u128::from(per_second_micro)
                    / u128::from(MICROS_PER_SEC)
                    / u128::from(MICROS_PER_SEC);
                u64::try_from(n).unwrap_or(u64::MAX)
            }
        }
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
