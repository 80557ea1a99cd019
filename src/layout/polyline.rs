//! Level lines light enough to draw on every redraw, with the same picture. A level strip samples
//! its limiter hundreds of times across the timeline (`core::lab::gauge_series`), and each point
//! left in the line is one call from WebAssembly to the canvas, on the first draw and on every
//! redraw as the pointer moves. Two passes keep what the eye can see: at most four points per
//! device-pixel column ([`thin_by_column`]), then none that lies on the straight line between the
//! points kept around it ([`drop_straight_runs`]): a refill between two requests is one segment,
//! not a sample per pixel. Every point kept is a point of the level, never a point made up.
//! The straight-run pass is sleeve fitting (Zhao and Saalfeld, "Linear-time sleeve-fitting
//! polyline simplification algorithms", AutoCarto 13, 1997) in its one-pass form, measured in
//! vertical distance: the line shown passes within the tolerance of every point left out.

/// A polyline with at most four points per device-pixel column (the first, the lowest, the
/// highest and the last there): the same picture as every point, for a level series of tens of
/// thousands of points drawn on every redraw.
pub fn thin_by_column(points: impl Iterator<Item = (f64, f64)>, dpr: f64) -> Vec<(f64, f64)> {
    let mut out: Vec<(f64, f64)> = Vec::new();
    // The current column's first, lowest, highest and last points.
    let mut current: Option<(i64, [(f64, f64); 4])> = None;
    let flush = |out: &mut Vec<(f64, f64)>, group: [(f64, f64); 4]| {
        for p in group {
            if out.last() != Some(&p) {
                out.push(p);
            }
        }
    };
    for p in points {
        let column = (p.0 * dpr).floor() as i64;
        match &mut current {
            Some((c, group)) if *c == column => {
                if p.1 < group[1].1 {
                    group[1] = p;
                }
                if p.1 > group[2].1 {
                    group[2] = p;
                }
                group[3] = p;
            }
            _ => {
                if let Some((_, group)) = current.take() {
                    flush(&mut out, group);
                }
                current = Some((column, [p; 4]));
            }
        }
    }
    if let Some((_, group)) = current {
        flush(&mut out, group);
    }
    out
}

/// The points of `points` (x never decreasing, as in time) that the line needs: a point is left
/// out when the segment between the points kept around it passes within `tolerance`, vertically,
/// of it and of every other point left out there. The first and the last point are always kept,
/// and so is every point of a vertical step (two points at the same x).
pub fn drop_straight_runs(points: &[(f64, f64)], tolerance: f64) -> Vec<(f64, f64)> {
    let Some((&first, rest)) = points.split_first() else {
        return Vec::new();
    };
    let mut kept = vec![first];
    let mut anchor = first;
    // The last point seen: kept once a point that does not continue its run comes.
    let mut pending: Option<(f64, f64)> = None;
    // The slopes of a segment from the anchor that pass within the tolerance of every point seen
    // since the anchor; empty once one of them sits straight above or below it.
    let mut slopes = Slopes::ANY;
    for &point in rest {
        if let Some(end) = pending.filter(|_| !slopes.admits(anchor, point)) {
            kept.push(end);
            anchor = end;
            slopes = Slopes::ANY;
        }
        slopes = slopes.within(anchor, point, tolerance);
        pending = Some(point);
    }
    kept.extend(pending);
    kept
}

/// A range of slopes, from `low` to `high`.
#[derive(Clone, Copy, Debug)]
struct Slopes {
    low: f64,
    high: f64,
}

impl Slopes {
    const ANY: Slopes = Slopes {
        low: f64::NEG_INFINITY,
        high: f64::INFINITY,
    };
    const NONE: Slopes = Slopes {
        low: f64::INFINITY,
        high: f64::NEG_INFINITY,
    };

    /// Whether the segment from `anchor` to `point` has one of these slopes.
    fn admits(self, anchor: (f64, f64), point: (f64, f64)) -> bool {
        let run = point.0 - anchor.0;
        if run <= 0.0 {
            return false;
        }
        let slope = (point.1 - anchor.1) / run;
        self.low <= slope && slope <= self.high
    }

    /// These slopes, narrowed to those whose segment from `anchor` passes within `tolerance` of
    /// `point`, vertically.
    fn within(self, anchor: (f64, f64), point: (f64, f64), tolerance: f64) -> Slopes {
        let run = point.0 - anchor.0;
        if run <= 0.0 {
            return Slopes::NONE;
        }
        Slopes {
            low: self.low.max((point.1 - tolerance - anchor.1) / run),
            high: self.high.min((point.1 + tolerance - anchor.1) / run),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_level_line_thinned_by_column_keeps_each_columns_first_lowest_highest_and_last() {
        let points = [(0.1, 5.0), (0.2, 1.0), (0.3, 9.0), (0.4, 4.0), (1.5, 2.0)];
        assert_eq!(
            thin_by_column(points.into_iter(), 1.0),
            vec![(0.1, 5.0), (0.2, 1.0), (0.3, 9.0), (0.4, 4.0), (1.5, 2.0)]
        );
        let flat = [(0.1, 3.0), (0.2, 3.0), (0.3, 3.0), (0.4, 3.0)];
        assert_eq!(
            thin_by_column(flat.into_iter(), 1.0),
            vec![(0.1, 3.0), (0.4, 3.0)]
        );
    }

    #[test]
    fn a_straight_run_of_samples_is_one_segment() {
        let refill: Vec<(f64, f64)> = (0..=100)
            .map(|i| (f64::from(i), 40.0 - 0.3 * f64::from(i)))
            .collect();
        assert_eq!(
            drop_straight_runs(&refill, 0.1),
            vec![(0.0, 40.0), (100.0, 10.0)]
        );
    }

    #[test]
    fn every_corner_and_both_points_of_a_step_are_kept() {
        // A bucket: full, a request takes a token at x = 2 (a vertical step), it refills to full
        // by x = 6, and stays full.
        let mut bucket = vec![(0.0, 10.0), (1.0, 10.0), (2.0, 10.0), (2.0, 20.0)];
        bucket.extend((3..=6).map(|x| (f64::from(x), 20.0 - 2.5 * f64::from(x - 2))));
        bucket.extend([(7.0, 10.0), (8.0, 10.0)]);
        assert_eq!(
            drop_straight_runs(&bucket, 0.1),
            vec![
                (0.0, 10.0),
                (2.0, 10.0),
                (2.0, 20.0),
                (6.0, 10.0),
                (8.0, 10.0)
            ]
        );
    }

    #[test]
    fn a_curve_bending_less_than_the_tolerance_is_one_segment_and_more_is_not() {
        let bend = [(0.0, 0.0), (1.0, 0.05), (2.0, 0.0)];
        assert_eq!(drop_straight_runs(&bend, 0.1), vec![(0.0, 0.0), (2.0, 0.0)]);
        assert_eq!(drop_straight_runs(&bend, 0.01), bend.to_vec());
    }

    #[test]
    fn a_line_of_one_or_two_points_or_none_is_kept_as_it_is() {
        assert_eq!(drop_straight_runs(&[], 0.1), vec![]);
        assert_eq!(drop_straight_runs(&[(1.0, 2.0)], 0.1), vec![(1.0, 2.0)]);
        assert_eq!(
            drop_straight_runs(&[(1.0, 2.0), (1.0, 2.0)], 0.1),
            vec![(1.0, 2.0), (1.0, 2.0)]
        );
    }
}
