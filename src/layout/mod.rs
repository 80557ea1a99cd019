//! The charts' geometry, pure and native: where each row, lane, time and mark of the timelines
//! sits ([`timeline`]), what each lane draws so that its proportions are the counts' ([`marks`]), their level lines made light enough to redraw ([`polyline`]), the
//! stretch of time they show and how it zooms and pans ([`zoom`]), the Durable Object chart's
//! strips and marks ([`latency`]). Nothing here
//! knows of a browser, a canvas or plotters; the page (`ui`) paints what is worked out here.

pub mod latency;
pub mod marks;
pub mod polyline;
pub mod timeline;
pub mod zoom;
