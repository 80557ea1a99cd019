//! The answers of the questions about the emulated Durable Object (`core::durable`): a limiter
//! that is far away or unreachable, and one hot key on one object. They read the object's report
//! (the figures the Durable Object row carries) and the knobs that produced it; the model's
//! sources are in `core::durable` and the README's "The Durable Object row".

use super::say::{do_row, num, owned, txt, Answer};
use crate::core::durable::{FailMode, Outcome, SimReport};
use crate::core::lab::LabRun;
use crate::core::lab_state::LabState;
use crate::core::time::{format_millis, format_seconds, Span};

/// The object's report, or the sentence saying why there is none.
fn report<'a>(answer: &mut Answer, run: &'a LabRun) -> Option<&'a SimReport> {
    match &run.durable {
        Some(Ok(report)) => Some(report),
        Some(Err(why)) => {
            answer.say("The Durable Object could not run: {}", &[txt(why)]);
            None
        }
        None => {
            answer.say(
                "This view no longer shows the Durable Object row (do=1): open the question again from the list to see it answer.",
                &[],
            );
            None
        }
    }
}

/// 10. "What happens when the limiter is far away or down?"
pub(super) fn limiter_down(state: &LabState, run: &LabRun) -> Answer {
    let mut answer = Answer::default();
    let Some(report) = report(&mut answer, run) else {
        return answer;
    };
    let d = &state.durable;
    let s = &run.settings;
    let from = d.origin();
    let home = report
        .objects
        .first()
        .map(|o| o.region)
        .or(d.home)
        .unwrap_or(from);
    let rtt = from.rtt(home);
    let timeout = format_millis(d.timeout.micros());
    let within = match rtt < d.timeout {
        true => "within",
        false => "beyond",
    };
    let gave_up = report.timed_out();
    if gave_up == 0 {
        answer.say(
            "The object lives in {}, {} ms round trip from {}, {} the Worker's {} ms timeout: the 95th percentile answer took {} ms.",
            &[
                txt(home.name()),
                num(rtt.ceil_millis()),
                txt(from.name()),
                txt(within),
                txt(&timeout),
                do_row("p95-ms", report.p95.ceil_millis()),
            ],
        );
    } else {
        // The calls the Worker gave up on each took the whole timeout: the distance shows in the
        // answers that came in time, and the timeouts in the percentile of them all.
        answer.say(
            "The object lives in {}, {} ms round trip from {}, {} the Worker's {} ms timeout: the answers that came in time took {} ms at the 95th percentile. The {} calls it gave up on each waited the whole {} ms, so the 95th percentile of every answer is {} ms.",
            &[
                txt(home.name()),
                num(rtt.ceil_millis()),
                txt(from.name()),
                txt(within),
                txt(&timeout),
                num(report.p95_answered_in_time().ceil_millis()),
                num(gave_up),
                txt(&timeout),
                do_row("p95-ms", report.p95.ceil_millis()),
            ],
        );
    }
    let degraded = report.count(Outcome::DegradedAllowed);
    let failed = report.count(Outcome::FailedClosed);
    let when = match d.outage {
        Some((start, end)) => format!(
            "While it was unreachable, from {} to {} s, the Worker",
            format_seconds(start.micros()),
            format_seconds(end.micros())
        ),
        None => "Whenever an answer did not come in time, the Worker".to_string(),
    };
    let w = format_seconds(s.window.micros());
    match d.fail {
        FailMode::Open => {
            answer.say(
                "{} waited {} ms for each call and then failed open: {} requests went through unmetered (x-ratelimit-mode: degraded), and one key got {} through in one {} s window against a limit of {}.",
                &[
                    txt(&when),
                    txt(&timeout),
                    do_row("degraded", degraded),
                    do_row("max-in-window", report.most_in_window),
                    txt(&w),
                    num(s.limit),
                ],
            );
            answer.say(
                "With fail=closed they get 503 and Retry-After: 1 instead: the limit holds, and clients who did nothing wrong are refused; the seed fails closed only on logins and payments.",
                &[],
            );
        }
        FailMode::Closed => {
            answer.say(
                "{} waited {} ms for each call and then failed closed: {} requests were refused with 503 and Retry-After: 1, so the limit held (at most {} in one {} s window), at the price of refusing clients who did nothing wrong.",
                &[
                    txt(&when),
                    txt(&timeout),
                    do_row("failed-closed", failed),
                    do_row("max-in-window", report.most_in_window),
                    txt(&w),
                ],
            );
            answer.say(
                "With fail=open they pass unmetered instead, marked x-ratelimit-mode: degraded: the site stays up and the limit does not.",
                &[],
            );
        }
    }
    answer
}

/// 12. "One hot key melts my Durable Object"
pub(super) fn hot_key(state: &LabState, run: &LabRun) -> Answer {
    let mut answer = Answer::default();
    let Some(report) = report(&mut answer, run) else {
        return answer;
    };
    let d = &state.durable;
    let config = d.sim_config(&run.settings, run.trace.routes());
    let per_decision = match d.persist {
        true => Span(config.service.micros() + config.storage_write.micros()),
        false => config.service,
    };
    let most_a_second = 1_000_000 / per_decision.micros().max(1);
    let n = report.records.iter().filter(|r| r.attempt == 0).count();
    let seconds = run.trace.end().micros().max(1);
    let rate = (n as u64).saturating_mul(1_000_000) / seconds;
    let how = match d.persist {
        true => format!(
            "{} ms a decision and {} ms writing storage before it answers",
            format_millis(config.service.micros()),
            format_millis(config.storage_write.micros())
        ),
        false => format!(
            "{} ms a decision, its state in memory",
            format_millis(config.service.micros())
        ),
    };
    let objects = report.objects.len();
    let shared = match objects {
        1 => "one object, which decides one request at a time".to_string(),
        n => format!("{n} objects, each deciding one request at a time"),
    };
    answer.say(
        "{} requests in {} s, about {} a second, reach {}: {}, so at most about {} a second each.",
        &[
            num(n as u64),
            owned(format_seconds(seconds)),
            num(rate),
            txt(&shared),
            txt(&how),
            num(most_a_second),
        ],
    );
    answer.say(
        "The longest queue was {} and the 95th percentile answer took {} ms against the {} ms timeout: {} requests went through unmetered, and {} decisions came after the Worker had given up, still changing the object's state.",
        &[
            num(u64::from(report.longest_queue)),
            do_row("p95-ms", report.p95.ceil_millis()),
            owned(format_millis(d.timeout.micros())),
            do_row("degraded", report.count(Outcome::DegradedAllowed)),
            do_row("late", report.late),
        ],
    );
    match d.shards {
        Some(1) => answer.say(
            "Shard the key (shards=8 with shard-by=request spreads its requests over 8 objects), or refuse known offenders before the hop (cache=1).",
            &[],
        ),
        _ => answer.say(
            "Sharded, every object takes its part of the key's requests and of its limit; sharding by key alone would still send one key to one shard.",
            &[],
        ),
    }
    answer
}
