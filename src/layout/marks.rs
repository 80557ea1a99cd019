//! What one lane of a timeline draws, so that the picture always says what the table says:
//! aggregate first, then draw (the principle of datashader, and of the histogram panels of
//! Grafana and Chrome's performance panel).
//!
//! A request whose mark would touch no other (its neighbours in the lane are at least a mark's
//! width away) is drawn as its own mark, one mark per request. Requests whose marks would overlap
//! (closer than a mark's width, or at one instant) form a *cluster*, drawn as bars whose areas are
//! proportional to the counts of each outcome, on one scale for the whole row: what was let
//! through grows up from the row's line (allowed, then delayed, then let through degraded), what
//! was refused grows down (refused, then refused because the limiter was unreachable), so position
//! tells the two apart without colour (`shared/DESIGN.md`). A cluster narrower than a mark is one
//! bar a mark wide with its count written beside it ("50" for fifty requests at one instant); a
//! wider one has a bar in every device-pixel column that holds requests. Zooming in separates the
//! requests again, and their marks come back.
//!
//! Heights are whole device pixels, so the canvas paints each part in its exact colour; each
//! outcome's rounding error is carried from column to column inside a cluster (error diffusion),
//! so a cluster's area of each colour is within half a pixel of its exact share.

/// The shape a decision is drawn with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    Allowed,
    Rejected,
    Delayed,
    Degraded,
    FailedClosed,
}

/// The outcomes a column counts, in the order of [`Mark`]'s variants.
pub const KINDS: usize = 5;

/// How many requests of each outcome (indexed by `Mark as usize`) one device-pixel column holds.
pub type Counts = [u32; KINDS];

/// The outcomes drawn above the row's line, from the line outwards.
pub const UP: [Mark; 3] = [Mark::Allowed, Mark::Delayed, Mark::Degraded];
/// The outcomes drawn below the row's line, from the line outwards.
pub const DOWN: [Mark; 2] = [Mark::Rejected, Mark::FailedClosed];

/// One request drawn as its own mark.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlacedMark {
    /// Its device-pixel column.
    pub column: u32,
    pub kind: Mark,
    /// For a delayed request released inside the stretch shown, the CSS x of its release.
    pub release: Option<f32>,
}

/// Requests whose marks would overlap, drawn as bars.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cluster {
    /// The device-pixel columns of its first and last requests.
    pub first: u32,
    pub last: u32,
    /// How many requests of each outcome it holds.
    pub counts: Counts,
    /// True when it is narrower than a mark: one bar a mark wide, its count written beside it.
    pub narrow: bool,
}

impl Cluster {
    pub fn requests(&self) -> u64 {
        self.counts.iter().map(|&n| u64::from(n)).sum()
    }
}

/// One device-pixel column of bars: the height, in whole device pixels, of each outcome's part
/// (indexed by `Mark as usize`); [`UP`] stack above the line, [`DOWN`] below it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BarColumn {
    pub column: u32,
    pub heights: [u16; KINDS],
}

/// Everything one lane draws.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LanePlan {
    pub marks: Vec<PlacedMark>,
    pub clusters: Vec<Cluster>,
    pub bars: Vec<BarColumn>,
}

impl LanePlan {
    /// The requests this lane shows, as marks and in bars.
    pub fn requests(&self) -> u64 {
        self.marks.len() as u64 + self.clusters.iter().map(Cluster::requests).sum::<u64>()
    }
}

/// One lane's columns before planning: each device-pixel column's counts, and for delayed
/// requests the farthest release (CSS x, negative for none) from each column.
pub struct LaneColumns<'a> {
    pub counts: &'a [Counts],
    pub release: &'a [f32],
}

/// Plans every lane of one row on one scale. `mark_width` is a mark's width in device pixels
/// (marks whose columns are closer than that overlap); `reach` is how far a bar may grow from
/// the line, in device pixels, on each side.
pub fn plan_row(lanes: &[LaneColumns], mark_width: u32, reach: f64) -> Vec<LanePlan> {
    plan(lanes, mark_width, reach, true)
}

/// Plans lanes whose every request is drawn in bars, a request alone in its lane included: the
/// Durable Object chart (`layout::latency`) keeps its own lone marks at their exact latency and
/// hands the crowded requests here, a lane per band of latency.
pub fn plan_bars(lanes: &[LaneColumns], mark_width: u32, reach: f64) -> Vec<LanePlan> {
    plan(lanes, mark_width, reach, false)
}

fn plan(lanes: &[LaneColumns], mark_width: u32, reach: f64, lone_marks: bool) -> Vec<LanePlan> {
    let mark_width = mark_width.max(1);
    let mut plans: Vec<LanePlan> = lanes
        .iter()
        .map(|lane| split(lane, mark_width, lone_marks))
        .collect();
    // One scale for the row: its densest bar (requests per device-pixel column, on the side
    // with more) reaches `reach`.
    let densest = lanes
        .iter()
        .zip(&plans)
        .flat_map(|(lane, plan)| {
            plan.clusters
                .iter()
                .map(move |c| cluster_density(lane, c, mark_width))
        })
        .fold(0.0f64, f64::max);
    if densest > 0.0 {
        let pixels_per_request = reach / densest;
        for (lane, plan) in lanes.iter().zip(&mut plans) {
            for cluster in &plan.clusters {
                bars_of(
                    lane,
                    cluster,
                    mark_width,
                    pixels_per_request,
                    &mut plan.bars,
                );
            }
        }
    }
    plans
}

/// A lane's occupied columns split into lone marks (when `lone_marks`) and clusters.
fn split(lane: &LaneColumns, mark_width: u32, lone_marks: bool) -> LanePlan {
    let mut plan = LanePlan::default();
    let mut current: Option<Cluster> = None;
    let occupied = lane
        .counts
        .iter()
        .enumerate()
        .filter(|(_, c)| c.iter().any(|&n| n > 0));
    for (column, counts) in occupied {
        let column = column as u32;
        match &mut current {
            Some(open) if column - open.last < mark_width => {
                open.last = column;
                for (sum, n) in open.counts.iter_mut().zip(counts) {
                    *sum += n;
                }
            }
            _ => {
                if let Some(done) = current.take() {
                    close(done, lane, mark_width, lone_marks, &mut plan);
                }
                current = Some(Cluster {
                    first: column,
                    last: column,
                    counts: *counts,
                    narrow: true,
                });
            }
        }
    }
    if let Some(done) = current {
        close(done, lane, mark_width, lone_marks, &mut plan);
    }
    plan
}

/// A finished cluster of one request becomes its mark (when `lone_marks`); of more, a cluster.
fn close(
    mut cluster: Cluster,
    lane: &LaneColumns,
    mark_width: u32,
    lone_marks: bool,
    plan: &mut LanePlan,
) {
    if lone_marks && cluster.requests() == 1 {
        let kind = MARKS
            .into_iter()
            .find(|&m| cluster.counts[m as usize] == 1)
            .unwrap_or(Mark::Allowed);
        let release = lane
            .release
            .get(cluster.first as usize)
            .copied()
            .filter(|&x| x >= 0.0);
        plan.marks.push(PlacedMark {
            column: cluster.first,
            kind,
            release,
        });
    } else {
        cluster.narrow = cluster.last - cluster.first + 1 < mark_width;
        plan.clusters.push(cluster);
    }
}

/// Every outcome, in the order of their indices.
const MARKS: [Mark; KINDS] = [
    Mark::Allowed,
    Mark::Rejected,
    Mark::Delayed,
    Mark::Degraded,
    Mark::FailedClosed,
];

fn side_total(counts: &Counts, side: &[Mark]) -> u32 {
    side.iter().map(|&m| counts[m as usize]).sum()
}

/// The bar columns a narrow cluster spreads over: a mark's width, centred between its first and
/// last requests.
fn narrow_span(cluster: &Cluster, mark_width: u32) -> std::ops::Range<u32> {
    let centre = (cluster.first + cluster.last) / 2;
    let start = centre.saturating_sub(mark_width / 2);
    start..start + mark_width
}

/// The most requests per device-pixel column on either side of the line, in any bar of the
/// cluster.
fn cluster_density(lane: &LaneColumns, cluster: &Cluster, mark_width: u32) -> f64 {
    let densest_side = |c: &Counts| side_total(c, &UP).max(side_total(c, &DOWN));
    if cluster.narrow {
        return f64::from(densest_side(&cluster.counts)) / f64::from(mark_width);
    }
    (cluster.first..=cluster.last)
        .filter_map(|c| lane.counts.get(c as usize))
        .map(|c| f64::from(densest_side(c)))
        .fold(0.0, f64::max)
}

/// Appends the bar columns of `cluster`, each outcome's exact height rounded with its error
/// carried to the next column.
fn bars_of(
    lane: &LaneColumns,
    cluster: &Cluster,
    mark_width: u32,
    pixels_per_request: f64,
    bars: &mut Vec<BarColumn>,
) {
    let mut carry = [0.0f64; KINDS];
    let mut push = |column: u32, exact: [f64; KINDS]| {
        let mut heights = [0u16; KINDS];
        for k in 0..KINDS {
            let wanted = exact[k] + carry[k];
            let drawn = wanted.round().max(0.0);
            carry[k] = wanted - drawn;
            heights[k] = drawn.min(f64::from(u16::MAX)) as u16;
        }
        if heights.iter().any(|&h| h > 0) {
            bars.push(BarColumn { column, heights });
        }
    };
    let exact_of = |counts: &Counts, width: f64| {
        let mut exact = [0.0; KINDS];
        for (e, &n) in exact.iter_mut().zip(counts) {
            *e = f64::from(n) * pixels_per_request / width;
        }
        exact
    };
    if cluster.narrow {
        let exact = exact_of(&cluster.counts, f64::from(mark_width));
        for column in narrow_span(cluster, mark_width) {
            push(column, exact);
        }
    } else {
        for column in cluster.first..=cluster.last {
            if let Some(counts) = lane.counts.get(column as usize) {
                if counts.iter().any(|&n| n > 0) {
                    push(column, exact_of(counts, 1.0));
                }
            }
        }
    }
}

/// The columns a cluster's bars cover: for a narrow one, the mark-wide span it is drawn over.
pub fn cluster_columns(cluster: &Cluster, mark_width: u32) -> std::ops::Range<u32> {
    match cluster.narrow {
        true => narrow_span(cluster, mark_width.max(1)),
        false => cluster.first..cluster.last + 1,
    }
}

/// A cluster as the canvases publish it for tests and tools that read their pixels
/// (`data-marks`, `data-retries`): the CSS x its bars start and end at, its requests, and how many
/// of them were refused (fail-closed ones included), as `[start,end,requests,refused]`.
pub fn cluster_json(cluster: &Cluster, mark_width: u32, dpr: f64) -> String {
    let css = |column: u32| (f64::from(column) / dpr * 100.0).round() / 100.0;
    let span = cluster_columns(cluster, mark_width);
    let refused =
        cluster.counts[Mark::Rejected as usize] + cluster.counts[Mark::FailedClosed as usize];
    format!(
        "[{},{},{},{refused}]",
        css(span.start),
        css(span.end),
        cluster.requests()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(allowed: u32, rejected: u32) -> Counts {
        let mut c = [0; KINDS];
        c[Mark::Allowed as usize] = allowed;
        c[Mark::Rejected as usize] = rejected;
        c
    }

    fn lane_of(columns: &[(usize, Counts)], width: usize) -> (Vec<Counts>, Vec<f32>) {
        let mut all = vec![[0; KINDS]; width];
        for &(c, n) in columns {
            all[c] = n;
        }
        (all, vec![-1.0; width])
    }

    fn plan(columns: &[(usize, Counts)], width: usize, mark_width: u32, reach: f64) -> LanePlan {
        let (counts, release) = lane_of(columns, width);
        let lane = LaneColumns {
            counts: &counts,
            release: &release,
        };
        plan_row(&[lane], mark_width, reach).remove(0)
    }

    /// Pixel area of each outcome in a plan's bars.
    fn areas(plan: &LanePlan) -> [u64; KINDS] {
        let mut a = [0u64; KINDS];
        for bar in &plan.bars {
            for (sum, &h) in a.iter_mut().zip(&bar.heights) {
                *sum += u64::from(h);
            }
        }
        a
    }

    #[test]
    fn requests_a_mark_apart_are_each_drawn_as_their_own_mark() {
        let p = plan(&[(10, counts(1, 0)), (19, counts(0, 1))], 40, 9, 20.0);
        assert_eq!(p.marks.len(), 2);
        assert_eq!(p.marks[0].kind, Mark::Allowed);
        assert_eq!(p.marks[1].kind, Mark::Rejected);
        assert!(p.clusters.is_empty() && p.bars.is_empty());
    }

    #[test]
    fn requests_closer_than_a_mark_become_one_cluster_drawn_as_bars() {
        let p = plan(&[(10, counts(1, 0)), (18, counts(0, 1))], 40, 9, 20.0);
        assert!(p.marks.is_empty());
        assert_eq!(p.clusters.len(), 1);
        assert_eq!((p.clusters[0].first, p.clusters[0].last), (10, 18));
        assert!(!p.clusters[0].narrow, "nine columns wide is a mark's width");
        assert_eq!(p.requests(), 2);
    }

    #[test]
    fn fifty_at_one_instant_are_one_bar_a_mark_wide_split_in_proportion() {
        let p = plan(&[(20, counts(21, 29))], 60, 9, 18.0);
        assert_eq!(p.clusters.len(), 1);
        assert!(p.clusters[0].narrow);
        let span: Vec<u32> = p.bars.iter().map(|b| b.column).collect();
        assert_eq!(span, (16..25).collect::<Vec<_>>(), "a mark wide, centred");
        let a = areas(&p);
        let (allowed, refused) = (a[Mark::Allowed as usize], a[Mark::Rejected as usize]);
        // The denser side (29 refused) reaches the full 18 pixels.
        assert_eq!(refused, 9 * 18);
        let share = refused as f64 / (allowed + refused) as f64;
        assert!((share - 29.0 / 50.0).abs() < 0.01, "{share}");
    }

    #[test]
    fn one_scale_for_the_whole_row_so_a_sparser_lane_draws_shorter_bars() {
        let (busy, r1) = lane_of(&[(5, counts(40, 0)), (6, counts(40, 0))], 30);
        let (quiet, r2) = lane_of(&[(5, counts(10, 0)), (6, counts(10, 0))], 30);
        let plans = plan_row(
            &[
                LaneColumns {
                    counts: &busy,
                    release: &r1,
                },
                LaneColumns {
                    counts: &quiet,
                    release: &r2,
                },
            ],
            9,
            20.0,
        );
        let top = |p: &LanePlan| p.bars.iter().map(|b| b.heights[0]).max().unwrap_or(0);
        assert_eq!(top(&plans[0]), 20);
        assert_eq!(top(&plans[1]), 5);
    }

    #[test]
    fn a_cluster_keeps_each_outcomes_area_within_a_pixel_of_its_exact_share() {
        // 300 columns of 97 allowed and a refusal every third column: 1 % refused.
        let columns: Vec<(usize, Counts)> = (0..300)
            .map(|c| (c + 5, counts(97, u32::from(c % 3 == 0))))
            .collect();
        let p = plan(&columns, 320, 9, 24.0);
        let a = areas(&p);
        let exact_refused = 100.0 * 24.0 / 97.0;
        assert!((a[Mark::Rejected as usize] as f64 - exact_refused).abs() <= 1.0);
        assert_eq!(a[Mark::Allowed as usize], 300 * 24);
    }

    #[test]
    fn planned_as_bars_a_request_alone_in_its_lane_is_a_bar_a_mark_wide_not_a_mark() {
        let (counts, release) = lane_of(&[(12, counts(0, 1)), (30, counts(3, 0))], 40);
        let lane = LaneColumns {
            counts: &counts,
            release: &release,
        };
        let p = plan_bars(&[lane], 9, 6.0).remove(0);
        assert!(p.marks.is_empty());
        assert_eq!(p.clusters.len(), 2);
        assert!(p.clusters.iter().all(|c| c.narrow));
        assert_eq!(p.requests(), 4);
        let a = areas(&p);
        assert_eq!(a[Mark::Allowed as usize], 9 * 6);
        assert_eq!(a[Mark::Rejected as usize], 9 * 2);
    }

    #[test]
    fn refused_requests_grow_down_and_let_through_ones_up() {
        for m in UP {
            assert!(!DOWN.contains(&m));
        }
        assert_eq!(UP[0], Mark::Allowed);
        assert_eq!(DOWN[0], Mark::Rejected);
    }

    #[test]
    fn a_lone_delayed_request_keeps_its_release() {
        let mut c = [0; KINDS];
        c[Mark::Delayed as usize] = 1;
        let (counts, mut release) = lane_of(&[(12, c)], 40);
        release[12] = 30.5;
        let p = plan_row(
            &[LaneColumns {
                counts: &counts,
                release: &release,
            }],
            9,
            20.0,
        )
        .remove(0);
        assert_eq!(
            p.marks,
            [PlacedMark {
                column: 12,
                kind: Mark::Delayed,
                release: Some(30.5)
            }]
        );
    }
}
