//! The link's contract, field by field: defaults, messages, and that what is read is written
//! back the same.

use super::codec::percent_decode;
use super::*;
use crate::core::config::Rate;
use crate::core::durable::{DoCode, FailMode, Placement, ShardBy, Tier};
use crate::core::limiter::{Algorithm, LeakDelay};
use crate::core::region::Region;
use crate::core::theme::Theme;
use crate::core::time::{Span, Time};
use crate::core::traffic::{Pattern, Point, DEFAULT_KEY};

#[test]
fn an_empty_query_gives_the_defaults_and_no_message() {
    let parsed = parse_query("");
    assert_eq!(parsed.state, LabState::default());
    assert!(parsed.notices.is_empty());
}

#[test]
fn each_bad_field_gets_a_specific_message_and_its_default_while_the_rest_applies() {
    let parsed = parse_query("?limit=0&window=abc&pattern=steady");
    assert_eq!(parsed.state.settings.limit, 5);
    assert_eq!(parsed.state.settings.window, Span::from_secs(10));
    assert_eq!(parsed.state.pattern, Pattern::Steady);
    let fields: Vec<&str> = parsed.notices.iter().map(|n| n.field).collect();
    assert_eq!(fields, ["limit", "window"]);
    assert!(parsed.notices[0].message.contains("at least 1"));
    assert!(parsed.notices[1]
        .message
        .contains("\"abc\" is not a number"));
}

#[test]
fn a_malformed_trace_names_the_bad_item_and_falls_back_to_the_default_pattern() {
    let parsed = parse_query("trace=1,2,x,4");
    assert_eq!(parsed.state.pattern, Pattern::Edge);
    assert_eq!(parsed.notices.len(), 1);
    assert!(
        parsed.notices[0].message.contains("item 3"),
        "{}",
        parsed.notices[0].message
    );
}

#[test]
fn a_trace_implies_pattern_trace_with_exact_times() {
    let parsed = parse_query("trace=0.5,1.25,9.592");
    assert_eq!(
        parsed.state.pattern,
        Pattern::Trace(vec![Time(500_000), Time(1_250_000), Time(9_592_000)].into())
    );
    assert!(parsed.notices.is_empty());
}

#[test]
fn a_trace_item_may_name_its_cost_and_the_cost_survives_the_round_trip() {
    let points = parse_trace_list("0@k,600*17@k,601*2").unwrap();
    assert_eq!(
        points.iter().map(|p| p.cost).collect::<Vec<_>>(),
        [1, 17, 2]
    );
    assert_eq!(points[1].key, "k");
    assert_eq!(points[2].key, DEFAULT_KEY);
    let pattern = Pattern::from_points(points.clone());
    let list = trace_list(&pattern).unwrap();
    assert_eq!(list, "0@k,600*17@k,601*2");
    assert_eq!(parse_trace_list(&list).unwrap(), points);
}

#[test]
fn a_cost_that_is_not_a_whole_number_from_one_to_a_million_is_refused_by_item() {
    for bad in ["5*0", "5*", "5*1.5", "5*1000001", "5*-3"] {
        let message = parse_trace_list(&format!("1,{bad}")).unwrap_err();
        assert!(
            message.starts_with("item 2 of the list: a request's cost"),
            "{bad}: {message}"
        );
    }
}

#[test]
fn trace_items_may_name_their_key_and_keys_survive_the_round_trip() {
    let parsed = parse_query("trace=0,1@tenant:a,2@ip:10.0.0.1,3@odd%20key%2Fx");
    assert!(parsed.notices.is_empty(), "{:?}", parsed.notices);
    let Pattern::Keyed(points) = &parsed.state.pattern else {
        panic!("a keyed trace")
    };
    assert_eq!(points[0], Point::new(Time::ZERO, DEFAULT_KEY));
    assert_eq!(points[3], Point::new(Time::from_secs(3), "odd key/x"));
    assert_eq!(parse_query(&to_query(&parsed.state)).state, parsed.state);
    assert!(parse_query("trace=1@").notices[0]
        .message
        .contains("key after @"));
}

#[test]
fn trace_items_may_name_their_region_and_route_and_the_link_keeps_them_with_the_closed_routes() {
    let parsed = parse_query(
        "trace=0@a@syd@POST%20%2Flogin,1@a@@GET%20%2F,2@b@fra&do=1&closed-routes=POST%20%2Flogin",
    );
    assert!(parsed.notices.is_empty(), "{:?}", parsed.notices);
    let Pattern::Keyed(points) = &parsed.state.pattern else {
        panic!("a keyed trace")
    };
    assert_eq!(
        points[0],
        Point {
            at: Time::ZERO,
            key: "a".into(),
            origin: Some(Region::Sydney),
            route: Some("POST /login".into()),
            cost: 1,
        }
    );
    assert_eq!(
        points[1],
        Point {
            at: Time::from_secs(1),
            key: "a".into(),
            origin: None,
            route: Some("GET /".into()),
            cost: 1,
        }
    );
    assert_eq!(
        points[2],
        Point {
            at: Time::from_secs(2),
            key: "b".into(),
            origin: Some(Region::Frankfurt),
            route: None,
            cost: 1,
        }
    );
    assert_eq!(parsed.state.durable.closed_routes, ["POST /login"]);
    let query = to_query(&parsed.state);
    assert_eq!(
        query,
        "trace=0@a@syd@POST%20%2Flogin,1@a@@GET%20%2F,2@b@fra&do=1&closed-routes=POST%20%2Flogin"
    );
    assert_eq!(parse_query(&query).state, parsed.state);
    assert!(parse_query("trace=1@a@mars").notices[0]
        .message
        .contains("\"mars\" is not a region"));
}

#[test]
fn a_closed_route_holding_a_comma_stays_one_route_through_the_link() {
    let parsed = parse_query(
        "trace=0@a@@GET%20%2Fa%2Cb,1@a@@GET%20%2F&do=1&closed-routes=GET%20%2Fa%2Cb,GET%20%2F",
    );
    assert!(parsed.notices.is_empty(), "{:?}", parsed.notices);
    assert_eq!(parsed.state.durable.closed_routes, ["GET /a,b", "GET /"]);
    let query = to_query(&parsed.state);
    assert!(
        query.contains("closed-routes=GET%20%2Fa%2Cb,GET%20%2F"),
        "{query}"
    );
    assert_eq!(parse_query(&query).state, parsed.state);
}

#[test]
fn percent_encoded_commas_and_plus_signs_are_understood() {
    let parsed = parse_query("trace=1%2C2%2C3&algos=fixed%2Cgcra");
    assert_eq!(
        parsed.state.pattern,
        Pattern::Trace(vec![Time::from_secs(1), Time::from_secs(2), Time::from_secs(3)].into())
    );
    assert_eq!(
        parsed.state.algorithms,
        [Algorithm::FixedWindow, Algorithm::Gcra]
    );
    assert_eq!(percent_decode("a+b%20c%zz%"), "a b c%zz%");
}

#[test]
fn the_forms_one_field_per_ticked_algorithm_is_understood() {
    let parsed = parse_query("limit=5&algo=gcra&algo=fixed");
    assert_eq!(
        parsed.state.algorithms,
        [Algorithm::FixedWindow, Algorithm::Gcra]
    );
    assert!(parsed.notices.is_empty());
}

#[test]
fn unknown_algorithms_are_named_and_known_ones_kept() {
    let parsed = parse_query("algos=gcra,bogus,fixed");
    assert_eq!(
        parsed.state.algorithms,
        [Algorithm::FixedWindow, Algorithm::Gcra]
    );
    assert!(parsed.notices[0].message.contains("\"bogus\""));
}

#[test]
fn the_state_survives_a_round_trip_through_the_query() {
    let state = LabState {
        settings: Settings {
            limit: 7,
            window: Span::from_millis(2_500),
            ..Settings::default()
        },
        pattern: Pattern::Trace(vec![Time(1), Time::from_secs(3)].into()),
        algorithms: vec![Algorithm::SlidingLog, Algorithm::LeakyBucket],
        ..LabState::default()
    };
    let query = to_query(&state);
    assert_eq!(
        query,
        "limit=7&window=2.5&trace=0.000001,3&algos=sliding-log,leaky-bucket"
    );
    assert_eq!(parse_query(&query).state, state);
}

fn long_trace() -> Vec<Point> {
    (0..1_000u64)
        .map(|i| Point::new(Time(i * 1000), if i % 2 == 0 { "a b" } else { DEFAULT_KEY }))
        .collect()
}

#[test]
fn a_trace_too_long_for_a_link_is_kept_as_its_list_and_named_by_an_id_made_from_it() {
    let points = long_trace();
    let kept = trace_list(&points_state(&points).pattern).unwrap();
    assert!(
        kept.starts_with("0@a%20b,0.001,0.002@a%20b"),
        "{}",
        &kept[..40]
    );
    assert_eq!(parse_stored_trace(&kept).unwrap(), points);
    assert_eq!(
        trace_list_within(&points_state(&points).pattern, kept.len()).as_deref(),
        Some(kept.as_str())
    );
    assert_eq!(
        trace_list_within(&points_state(&points).pattern, kept.len() - 1),
        None
    );
    let id = trace_id(&kept);
    assert_eq!(id.len(), TRACE_ID_LEN);
    assert!(id
        .bytes()
        .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()));
    assert_eq!(trace_id(&kept), id, "the same trace, the same id");
    assert_ne!(trace_id(&kept[..kept.len() - 1]), id);
    // The standard's "abc" digest starts ba7816bf8f01cfea.
    assert_eq!(trace_id("abc"), "ba7816bf8f01cfea");
}

fn points_state(points: &[Point]) -> LabState {
    LabState {
        pattern: Pattern::from_points(points.to_vec()),
        ..LabState::default()
    }
}

#[test]
fn a_kept_trace_is_written_as_stored_and_its_id_and_reads_back_as_named() {
    let mut state = points_state(&long_trace());
    state.kept = KeptTrace::Kept("0123456789abcdef".into());
    state.settings.limit = 3;
    assert_eq!(to_query(&state), "limit=3&trace=stored:0123456789abcdef");
    assert!(reopens(&state));
    let parsed = parse_query("trace=stored:0123456789abcdef&limit=3");
    assert!(parsed.notices.is_empty(), "{:?}", parsed.notices);
    assert_eq!(
        parsed.state.kept,
        KeptTrace::Named(Some("0123456789abcdef".into()))
    );
    assert_eq!(
        parsed.state.pattern,
        Pattern::Edge,
        "until the page reads it back"
    );
    assert_eq!(parsed.state.settings.limit, 3);
    // Until the page reads the trace back, the link keeps naming it (a fixed point).
    assert_eq!(
        to_query(&parsed.state),
        "limit=3&trace=stored:0123456789abcdef"
    );
    assert!(reopens(&parsed.state));
    // pattern= beside it is moot, as beside any trace.
    let with_pattern = parse_query("trace=stored:0123456789abcdef&pattern=steady");
    assert!(with_pattern.notices.is_empty());
    assert_eq!(with_pattern.state.pattern, Pattern::Edge);
}

#[test]
fn a_trace_too_long_for_a_link_and_not_kept_goes_in_no_link() {
    let state = points_state(&long_trace());
    assert_eq!(state.kept, KeptTrace::No);
    assert_eq!(to_query(&state), "", "neither trace= nor pattern=");
    assert!(!reopens(&state));
    // A link-sized trace still goes in the link, whatever was kept before.
    let mut short = points_state(&long_trace()[..3]);
    assert_eq!(to_query(&short), "trace=0@a%20b,0.001,0.002@a%20b");
    assert!(reopens(&short));
    short.kept = KeptTrace::Kept("0123456789abcdef".into());
    assert_eq!(to_query(&short), "trace=0@a%20b,0.001,0.002@a%20b");
}

#[test]
fn the_id_less_stored_of_earlier_links_still_names_the_kept_trace() {
    let parsed = parse_query("trace=stored&limit=3");
    assert!(parsed.notices.is_empty());
    assert_eq!(parsed.state.kept, KeptTrace::Named(None));
    assert_eq!(to_query(&parsed.state), "limit=3&trace=stored");
}

#[test]
fn a_stored_link_with_a_malformed_id_is_refused_with_the_default_pattern() {
    for raw in [
        "stored:",
        "stored:0123",
        "stored:0123456789ABCDEF",
        "stored:0123456789abcdeg",
        "stored:0123456789abcdef0",
        "stored:../../x",
    ] {
        let parsed = parse_query(&format!("trace={raw}&limit=3"));
        assert_eq!(parsed.notices.len(), 1, "{raw}");
        assert!(
            parsed.notices[0].message.contains("16-character id"),
            "{}",
            parsed.notices[0].message
        );
        assert_eq!(parsed.state.kept, KeptTrace::No, "{raw}");
        assert_eq!(parsed.state.pattern, Pattern::Edge, "{raw}");
        assert_eq!(to_query(&parsed.state), "limit=3");
    }
    // Neither a kept trace nor a list: a typo is named as in any list.
    let parsed = parse_query("trace=storedx");
    assert_eq!(parsed.notices.len(), 1);
    assert_eq!(parsed.state.kept, KeptTrace::No);
}

#[test]
fn reading_a_list_of_times_drops_a_kept_trace_the_state_had() {
    let mut state = points_state(&long_trace());
    state.kept = KeptTrace::Kept("0123456789abcdef".into());
    set_field(&mut state, "trace", "1,2").unwrap();
    assert_eq!(state.kept, KeptTrace::No);
    assert_eq!(to_query(&state), "trace=1,2");
}

#[test]
fn product_profiles_and_their_own_fields_round_trip_through_the_link() {
    let query = "algos=fixed,nginx,upstash-sliding,cf-binding&nginx-rate=30r/m&nginx-delay=nodelay&upstash-cache=off&cf-period=60";
    let parsed = parse_query(query);
    assert!(parsed.notices.is_empty(), "{:?}", parsed.notices);
    let state = parsed.state;
    assert_eq!(
        state.algorithms,
        [
            Algorithm::FixedWindow,
            Algorithm::Nginx,
            Algorithm::UpstashSliding,
            Algorithm::CfBinding
        ]
    );
    assert_eq!(state.settings.products.cf_binding.period, Some(60));
    assert_eq!(to_query(&state), query);
}

#[test]
fn a_bad_product_field_is_named_with_what_it_accepts_and_the_rest_applies() {
    let parsed = parse_query("algos=cf-binding&cf-period=30&cf-limit=7&do-algo=nginx");
    let messages: Vec<&str> = parsed.notices.iter().map(|n| n.message.as_str()).collect();
    assert!(
        messages[0].starts_with("cf-period=\"30\": 10 or 60"),
        "{messages:?}"
    );
    assert!(
        messages[1].contains("one of the six algorithms"),
        "{messages:?}"
    );
    assert_eq!(parsed.state.settings.products.cf_binding.limit, Some(7));
    assert_eq!(parsed.state.settings.products.cf_binding.period, None);
    assert_eq!(parsed.state.durable.algorithm, Algorithm::SlidingLog);
}

#[test]
fn faults_and_jitter_are_read_and_written_back() {
    let query = "do=1&jitter=20&slow=10-20.5&evict-at=30&outage=40-45";
    let parsed = parse_query(query);
    assert!(parsed.notices.is_empty(), "{:?}", parsed.notices);
    let d = &parsed.state.durable;
    assert_eq!(
        (d.jitter, d.slow, d.evict_at),
        (
            Span::from_millis(20),
            Some((Span::from_secs(10), Span::from_millis(20_500))),
            Some(Span::from_secs(30))
        )
    );
    assert_eq!(to_query(&parsed.state), query);
    let config = d.sim_config(&parsed.state.settings, &[]);
    assert_eq!(config.jitter, Span::from_millis(20));
    assert_eq!(config.faults.len(), 3);
    let bad = parse_query("do=1&slow=9-3&jitter=-1&evict-at=x");
    // Notices come in the order a link writes its fields.
    let fields: Vec<&str> = bad.notices.iter().map(|n| n.field).collect();
    assert_eq!(fields, ["jitter", "slow", "evict-at"]);
}

#[test]
fn the_durable_object_fields_are_read_and_written_back() {
    let query = "do=1&from=fra&home=gru&timeout=300&fail=closed&service=0.5&persist=0&evict=30&outage=20-30.5&shards=4&shard-by=request&placement=smart&seed=7";
    let parsed = parse_query(query);
    assert!(parsed.notices.is_empty(), "{:?}", parsed.notices);
    let d = &parsed.state.durable;
    assert!(d.enabled);
    assert_eq!(
        (d.from.clone(), d.home),
        (vec![Region::Frankfurt], Some(Region::SaoPaulo))
    );
    assert_eq!((d.timeout, d.service), (Span::from_millis(300), Span(500)));
    assert_eq!(
        (d.fail, d.persist, d.evict),
        (FailMode::Closed, false, Span::from_secs(30))
    );
    assert_eq!(
        d.outage,
        Some((Span::from_secs(20), Span::from_millis(30_500)))
    );
    assert_eq!(
        (d.shards, d.shard_by, d.placement, d.seed),
        (Some(4), ShardBy::Request, Placement::Smart, 7)
    );
    assert_eq!(parse_query(&to_query(&parsed.state)).state, parsed.state);
}

#[test]
fn the_objects_code_its_await_and_the_pauses_round_trip_and_stay_out_of_a_default_link() {
    let query = "do=1&gc=0&do-code=await-between&await-ms=1.5";
    let parsed = parse_query(query);
    assert!(parsed.notices.is_empty(), "{:?}", parsed.notices);
    let d = &parsed.state.durable;
    assert_eq!(
        (d.gc, d.code, d.await_call),
        (false, DoCode::AwaitBetween, Span(1_500))
    );
    assert_eq!(to_query(&parsed.state), query);
    let config = d.sim_config(&parsed.state.settings, &[]);
    assert_eq!(
        (config.gc, config.code, config.await_call),
        (false, DoCode::AwaitBetween, Span(1_500))
    );
    let defaults = parse_query("do=1&gc=1&do-code=safe&await-ms=20");
    assert_eq!(to_query(&defaults.state), "do=1");
    assert_eq!(defaults.state.durable.code, DoCode::Safe);
    let bad = parse_query("do=1&gc=maybe&do-code=racy&await-ms=-3");
    let fields: Vec<&str> = bad.notices.iter().map(|n| n.field).collect();
    assert_eq!(fields, ["gc", "do-code", "await-ms"]);
    assert_eq!(bad.state.durable, parse_query("do=1").state.durable);
}

#[test]
fn one_object_per_key_is_the_default_and_shards_seed_is_the_seeds_prefix_rule() {
    assert_eq!(parse_query("do=1").state.durable.shards, Some(1));
    assert_eq!(
        parse_query("do=1&shards=1").state,
        parse_query("do=1").state
    );
    assert!(!to_query(&parse_query("do=1&shards=1").state).contains("shards"));
    let seed = parse_query("do=1&shards=seed");
    assert!(seed.notices.is_empty(), "{:?}", seed.notices);
    assert_eq!(seed.state.durable.shards, None);
    assert!(to_query(&seed.state).contains("shards=seed"));
    assert_eq!(parse_query(&to_query(&seed.state)).state, seed.state);
    let config = seed.state.durable.sim_config(&seed.state.settings, &[]);
    assert_eq!(config.shards.shards_for("tenant:demo"), 4);
    assert!(parse_query("do=1&shards=prefix").notices[0]
        .message
        .contains("or seed"));
}

#[test]
fn several_origins_the_cache_and_the_binding_round_trip() {
    let parsed = parse_query("do=1&from=fra,syd,nrt&cache=1&tier=binding&period=60");
    assert!(parsed.notices.is_empty(), "{:?}", parsed.notices);
    let d = &parsed.state.durable;
    assert_eq!(d.from, [Region::Frankfurt, Region::Sydney, Region::Tokyo]);
    assert!(d.cache);
    assert_eq!(d.tier, Tier::Binding { period_secs: 60 });
    assert_eq!(parse_query(&to_query(&parsed.state)).state, parsed.state);
    assert!(parse_query("tier=binding&period=30").notices[0]
        .message
        .contains("10 or 60"));
}

#[test]
fn bad_durable_object_fields_each_get_a_message() {
    let parsed = parse_query("do=yes&from=mars&timeout=0&fail=maybe&outage=30-20&shards=0&shard-by=x&placement=y&seed=-1&service=abc&evict=0");
    let fields: Vec<&str> = parsed.notices.iter().map(|n| n.field).collect();
    assert_eq!(
        fields,
        [
            "do",
            "from",
            "timeout",
            "fail",
            "service",
            "evict",
            "outage",
            "shards",
            "shard-by",
            "placement",
            "seed"
        ]
    );
    assert_eq!(parsed.state.durable, DurableParams::default());
}

#[test]
fn the_per_algorithm_knobs_embed_and_theme_round_trip() {
    let parsed =
        parse_query("capacity=8&refill=0.25&burst=3&leak-burst=6&leak-delay=2&embed=1&theme=dark");
    assert!(parsed.notices.is_empty(), "{:?}", parsed.notices);
    let s = &parsed.state.settings;
    assert_eq!(
        (s.capacity, s.gcra_burst, s.leak_burst, s.leak_delay),
        (Some(8), Some(3), Some(6), LeakDelay::After(2))
    );
    assert_eq!(s.refill, Some(Rate::parse_per_second("0.25").unwrap()));
    assert!(parsed.state.embed);
    assert_eq!(parsed.state.theme, Theme::Dark);
    assert_eq!(parse_query(&to_query(&parsed.state)).state, parsed.state);
    let nodelay = parse_query("leak-delay=nodelay").state;
    assert_eq!(parse_query(&to_query(&nodelay)).state, nodelay);
}

#[test]
fn bad_knobs_get_messages_and_defaults() {
    let parsed = parse_query("capacity=0&refill=-1&burst=x&leak-delay=99");
    let fields: Vec<&str> = parsed.notices.iter().map(|n| n.field).collect();
    assert_eq!(fields, ["capacity", "refill", "burst", "leak-delay"]);
    assert!(parsed.notices[1].message.contains("negative"));
    assert_eq!(
        parsed.state.settings.leak_delay,
        LeakDelay::NoDelay,
        "a delay above the burst means serve the whole burst"
    );
}

#[test]
fn every_preset_round_trips_through_the_query() {
    for pattern in Pattern::presets(7) {
        let mut state = LabState {
            pattern,
            ..LabState::default()
        };
        state.set_seed(7);
        assert_eq!(
            parse_query(&to_query(&state)).state,
            state,
            "{}",
            to_query(&state)
        );
    }
}

#[test]
fn out_of_range_values_are_refused_with_the_range() {
    assert!(parse_query("limit=1000001").notices[0]
        .message
        .contains("1000000"));
    assert!(parse_query("window=0.0001").notices[0]
        .message
        .contains("0.001 and 86400"));
    assert!(parse_query("window=-3").notices[0]
        .message
        .contains("negative"));
    assert!(parse_query("limit=-1").notices[0]
        .message
        .contains("whole number"));
}

#[test]
fn an_embed_names_its_controls_in_any_order_and_writes_them_in_one() {
    use crate::core::embed::Control;
    let parsed = parse_query("embed=1&controls=window,limit,play,limit");
    assert!(parsed.notices.is_empty(), "{:?}", parsed.notices);
    assert_eq!(
        parsed.state.controls,
        [Control::Play, Control::Limit, Control::Window]
    );
    assert_eq!(
        to_query(&parsed.state),
        "embed=1&controls=play,limit,window"
    );
    assert_eq!(LabState::default().controls, Control::DEFAULT);
    assert_eq!(to_query(&parse_query("controls=preset,play").state), "");
}

#[test]
fn an_empty_controls_list_shows_none_and_survives_the_round_trip() {
    let state = parse_query("embed=1&controls=").state;
    assert!(state.controls.is_empty());
    assert_eq!(to_query(&state), "embed=1&controls=");
    assert_eq!(parse_query(&to_query(&state)).state, state);
}

#[test]
fn an_unknown_control_is_named_and_the_known_ones_stay() {
    use crate::core::embed::Control;
    let parsed = parse_query("controls=limit,sliders,play");
    assert_eq!(parsed.state.controls, [Control::Play, Control::Limit]);
    assert_eq!(parsed.notices.len(), 1);
    assert_eq!(
        parsed.notices[0].message,
        "controls=\"limit,sliders,play\": \"sliders\" not known (use preset, play, send, limit, \
         window, algos, tuning, theme); showing the others."
    );
}

#[test]
fn a_caption_is_read_as_text_and_written_back_escaped() {
    let parsed =
        parse_query("caption=Five+per%20ten%20seconds%3A%20%3Cb%3Eedge%3C%2Fb%3E%20%26%20more");
    assert!(parsed.notices.is_empty(), "{:?}", parsed.notices);
    assert_eq!(
        parsed.state.caption,
        "Five per ten seconds: <b>edge</b> & more"
    );
    let written = to_query(&parsed.state);
    assert!(
        !written.contains('<') && !written.contains(" &"),
        "{written}"
    );
    assert_eq!(parse_query(&written).state, parsed.state);
}

#[test]
fn a_caption_is_one_line_of_at_most_two_hundred_characters() {
    use crate::core::embed::MAX_CAPTION_CHARS;
    let parsed = parse_query("caption=%0Aone%0A%0D%09two++");
    assert_eq!(parsed.state.caption, "one two");
    let long = "e".repeat(MAX_CAPTION_CHARS + 5);
    let parsed = parse_query(&format!("caption={long}"));
    assert_eq!(parsed.state.caption.chars().count(), MAX_CAPTION_CHARS);
    assert_eq!(parsed.notices[0].field, "caption");
    assert!(parsed.notices[0]
        .message
        .ends_with("showing the first 200."));
}

#[test]
fn a_caption_takes_at_most_nine_hundred_characters_of_the_link() {
    use super::fields::MAX_CAPTION_IN_LINK;
    // An accented letter is 6 characters escaped, an emoji 12.
    for (letter, fits) in [("é", 150), ("🦀", 75)] {
        let parsed = parse_query(&format!("caption={}", letter.repeat(180)));
        assert_eq!(parsed.state.caption.chars().count(), fits, "{letter}");
        assert!(to_query(&parsed.state).len() <= "caption=".len() + MAX_CAPTION_IN_LINK);
        assert!(
            parsed.notices[0]
                .message
                .ends_with(&format!("showing the first {fits}.")),
            "{}",
            parsed.notices[0].message
        );
        assert_eq!(parse_query(&to_query(&parsed.state)).state, parsed.state);
    }
}

#[test]
fn a_typed_value_sets_its_field_as_a_link_would() {
    let mut state = LabState::default();
    assert!(set_field(&mut state, "limit", "250").is_ok());
    assert!(set_field(&mut state, "window", "3600").is_ok());
    assert_eq!(state.settings.limit, 250);
    assert_eq!(state.settings.window, Span::from_secs(3600));
    assert!(set_field(&mut state, "timeout", "400").is_ok());
    assert_eq!(state.durable.timeout, Span::from_millis(400));
}

#[test]
fn a_refused_typed_value_gets_the_links_reason_names_the_value_kept_and_changes_nothing() {
    let mut state = parse_query("limit=100&window=60").state;
    let before = state.clone();
    let refused = set_field(&mut state, "limit", "0").expect_err("0 is no limit");
    assert_eq!(refused.field, "limit");
    assert_eq!(
        parse_query("limit=0").notices[0].message,
        "limit=\"0\": the limit must be at least 1 request; using the default, 5.",
        "a link falls back to the default"
    );
    assert_eq!(
        refused.message, "limit=\"0\": the limit must be at least 1 request; keeping 100.",
        "a typed value keeps the value in force"
    );
    assert_eq!(state, before);
    let window = set_field(&mut state, "window", "abc").expect_err("not seconds");
    assert!(
        window.message.ends_with("; keeping 60 s."),
        "{}",
        window.message
    );
    assert_eq!(state, before);
}

#[test]
fn a_refused_typed_value_at_the_default_says_the_default_is_kept() {
    let mut state = LabState::default();
    let refused = set_field(&mut state, "limit", "-3").expect_err("negative");
    assert!(
        refused.message.ends_with("; keeping the default, 5."),
        "{}",
        refused.message
    );
    let mut state = parse_query("compose=2/s@0-60").state;
    let compose = set_field(&mut state, "compose", "x").expect_err("not a segment");
    assert!(
        compose.message.ends_with("; keeping 2/s@0-60."),
        "{}",
        compose.message
    );
    let mut state = parse_query("do=1&timeout=400").state;
    let timeout = set_field(&mut state, "timeout", "0").expect_err("too short");
    assert!(
        timeout.message.ends_with("; keeping 400 ms."),
        "{}",
        timeout.message
    );
}

#[test]
fn a_view_and_key_lanes_are_read_and_written_back() {
    use crate::core::lab_state::Lanes;
    let parsed = parse_query("pattern=several-keys&view=8.25-12&lanes=key");
    assert!(parsed.notices.is_empty(), "{:?}", parsed.notices);
    assert_eq!(
        parsed.state.view,
        Some((Time::from_millis(8_250), Time::from_secs(12)))
    );
    assert_eq!(parsed.state.lanes, Lanes::Key);
    let query = to_query(&parsed.state);
    assert!(query.ends_with("view=8.25-12&lanes=key"), "{query}");
    assert_eq!(parse_query(&query).state, parsed.state);
    // The whole trace and one lane are the defaults, and a link leaves them out.
    assert_eq!(to_query(&parse_query("lanes=one").state), "");
    assert_eq!(
        parse_query("view=0.000001-0.001001").state.view,
        Some((Time(1), Time(1_001))),
        "to the microsecond"
    );
}

#[test]
fn a_bad_view_or_lanes_is_named_and_shows_the_whole_trace_on_one_lane() {
    let cases = [
        ("view=12", "write it as FROM-TO in seconds, like 8-12"),
        ("view=12-8", "the start must come before the end"),
        ("view=5-5", "the start must come before the end"),
        ("view=5-5.0005", "at least 0.001 s wide"),
        ("view=a-8", "\"a\" is not a number of seconds"),
        ("view=1-2.0000001", "more than 6 decimals"),
        ("lanes=keys", "use one (every request on one line) or key"),
    ];
    for (query, says) in cases {
        let parsed = parse_query(&format!("limit=3&{query}"));
        assert_eq!(parsed.state.settings.limit, 3, "{query}: the rest applies");
        assert_eq!(parsed.state.view, None, "{query}");
        assert_eq!(parsed.notices.len(), 1, "{query}");
        let message = &parsed.notices[0].message;
        assert!(message.contains(says), "{query}: {message}");
        let falls_back = if query.starts_with("view") {
            "showing the whole trace."
        } else {
            "using one."
        };
        assert!(message.ends_with(falls_back), "{query}: {message}");
    }
}

#[test]
fn a_state_that_differs_only_in_how_it_is_looked_at_runs_the_same() {
    let base = parse_query("pattern=steady").state;
    let looked = parse_query("pattern=steady&view=2-4&lanes=key&theme=dark").state;
    assert!(base.same_run_as(&looked) && looked.same_run_as(&base));
    assert!(!base.same_run_as(&parse_query("pattern=steady&limit=4").state));
}

/// The states whose links the version before keys were decoded item by item wrote (its
/// `to_query`, run as it was), with those links.
fn links_written_before() -> Vec<(LabState, &'static str)> {
    use crate::core::compose::parse_segments;
    let keyed = |keys: &[&str]| {
        Pattern::from_points(
            keys.iter()
                .enumerate()
                .map(|(i, k)| Point::new(Time(i as u64 * 250_000), *k))
                .collect(),
        )
    };
    let mut many_keys = LabState {
        pattern: keyed(&[
            "tenant:a",
            "tenant:a",
            "a b",
            "tenant:b",
            "a+b",
            "50%",
            "k=v&x#y;z",
            "\"quoted\" 'key'",
            "é ü",
            "🦀 crab",
            "tenant:a",
        ]),
        ..LabState::default()
    };
    many_keys.settings.limit = 3;
    let mut routed = Point::new(Time(1_500_000), "tenant:a");
    routed.origin = Some(Region::Sydney);
    routed.route = Some("POST /login".into());
    routed.cost = 3;
    let mut regions = LabState {
        pattern: Pattern::from_points(vec![
            Point::new(Time::ZERO, "ip:10.0.0.1"),
            routed,
            Point::new(Time(2_000_001), "x"),
        ]),
        ..LabState::default()
    };
    regions.durable.enabled = true;
    let captioned = LabState {
        pattern: Pattern::Trace(
            vec![Time(0), Time(500_000), Time(9_592_000), Time(9_592_000)].into(),
        ),
        caption: "Bursts & trickles: 5 per 10 s (é, 🦀)".into(),
        ..LabState::default()
    };
    let composed = LabState {
        pattern: Pattern::Steady,
        compose: parse_segments(
            "150@0;2/s@0-60,key=tenant:a,region=fra,route=GET /x,cost=2;~3/s@10-20,key=a b+c 50%",
        )
        .unwrap(),
        ..LabState::default()
    };
    let keyed_and_composed = LabState {
        pattern: keyed(&["a", "b"]),
        compose: parse_segments("5@1,key=tenant:z").unwrap(),
        ..LabState::default()
    };
    let mut named = LabState {
        kept: KeptTrace::Named(Some("0123456789abcdef".into())),
        algorithms: vec![Algorithm::FixedWindow, Algorithm::Gcra],
        ..LabState::default()
    };
    named.settings.limit = 7;
    vec![
        (many_keys, "limit=3&trace=0@tenant:a,0.25@tenant:a,0.5@a%20b,0.75@tenant:b,1@a%2Bb,1.25@50%25,1.5@k%3Dv%26x%23y%3Bz,1.75@%22quoted%22%20%27key%27,2@%C3%A9%20%C3%BC,2.25@%F0%9F%A6%80%20crab,2.5@tenant:a"),
        (regions, "trace=0@ip:10.0.0.1,1.5*3@tenant:a@syd@POST%20%2Flogin,2.000001@x&do=1"),
        (captioned, "trace=0,0.5,9.592,9.592&caption=Bursts%20%26%20trickles:%205%20per%2010%20s%20%28%C3%A9%2C%20%F0%9F%A6%80%29"),
        (composed, "pattern=steady&compose=150%400%3B2%2Fs%400-60%2Ckey%3Dtenant:a%2Cregion%3Dfra%2Croute%3DGET%20%2Fx%2Ccost%3D2%3B~3%2Fs%4010-20%2Ckey%3Da%20b%2Bc%2050%25"),
        (keyed_and_composed, "trace=0@a,0.25@b&compose=5%401%2Ckey%3Dtenant:z"),
        (named, "limit=7&trace=stored:0123456789abcdef&algos=fixed,gcra"),
    ]
}

#[test]
fn links_the_earlier_version_wrote_open_the_same_view() {
    for (state, link) in links_written_before() {
        let parsed = parse_query(link);
        assert!(parsed.notices.is_empty(), "{link}: {:?}", parsed.notices);
        assert_eq!(parsed.state, state, "{link}");
        assert_eq!(parse_query(&to_query(&state)).state, state, "{link}");
    }
    // With a question: the question's view under the link's fields, as before.
    for (link, expected) in [
        (
            "q=window-edge&trace=0,0,1@k%20x",
            "q=window-edge&trace=0,0,1@k%20x",
        ),
        (
            "q=burst-plus-one&pattern=&compose=20%400%2Ckey%3Dtenant:q",
            "q=burst-plus-one&pattern=&compose=20%400%2Ckey%3Dtenant:q",
        ),
    ] {
        let parsed = parse_query(link);
        assert!(parsed.notices.is_empty(), "{link}: {:?}", parsed.notices);
        assert_eq!(to_query(&parsed.state), expected);
    }
}

#[test]
fn a_key_holding_a_comma_survives_the_link_that_used_to_split_it() {
    // What the earlier version wrote for a pasted `1733350000,"acme, inc"` and could not read.
    let parsed = parse_query("trace=0@acme%2C%20inc,1@acme%2C%20inc");
    assert!(parsed.notices.is_empty(), "{:?}", parsed.notices);
    let Pattern::Keyed(points) = &parsed.state.pattern else {
        panic!("a keyed trace")
    };
    assert_eq!(points[0].key, "acme, inc");
    assert_eq!(points.len(), 2);
    assert_eq!(
        to_query(&parsed.state),
        "trace=0@acme%2C%20inc,1@acme%2C%20inc"
    );
    // The same list escaped whole once more, as a form writes it.
    let escaped = parse_query("trace=0%40acme%252C%2520inc%2C1%40acme%252C%2520inc");
    assert_eq!(escaped.state, parsed.state);
}

#[test]
fn a_composed_segments_key_is_written_escaped_inside_the_escaped_segments() {
    let state = LabState {
        compose: crate::core::compose::parse_segments("5@1,key=acme%2C%20inc;2@3,key=a%3Bb")
            .unwrap(),
        ..LabState::default()
    };
    assert_eq!(state.compose[0].key.as_deref(), Some("acme, inc"));
    assert_eq!(state.compose[1].key.as_deref(), Some("a;b"));
    let query = to_query(&state);
    assert_eq!(
        query,
        "compose=5%401%2Ckey%3Dacme%252C%2520inc%3B2%403%2Ckey%3Da%253Bb"
    );
    assert_eq!(parse_query(&query).state, state);
}

/// `n` requests a quarter second apart with the key `acme, inc`: about 20 characters of a link
/// each.
fn comma_keyed(n: u64) -> LabState {
    points_state(
        &(0..n)
            .map(|i| Point::new(Time(i * 250_000), "acme, inc"))
            .collect::<Vec<_>>(),
    )
}

#[test]
fn a_trace_goes_in_the_link_while_the_whole_query_stays_within_its_characters() {
    // The longest trace whose link fits, whatever the other fields take.
    let fitting = (1..400)
        .map(comma_keyed)
        .take_while(|s| !needs_keeping(s))
        .last()
        .unwrap();
    let query = to_query(&fitting);
    assert!(query.len() <= MAX_QUERY_CHARS && query.len() > MAX_QUERY_CHARS - 40);
    assert!(reopens(&fitting));
    assert_eq!(parse_query(&query).state, fitting);
    // One field more and the same trace no longer fits: it is to be kept.
    let mut grown = fitting.clone();
    grown.caption = "x".repeat(40);
    assert!(query.len() + "&caption=".len() + 40 > MAX_QUERY_CHARS);
    assert!(needs_keeping(&grown) && !reopens(&grown));
    let caption = format!("caption={}", grown.caption);
    assert_eq!(to_query(&grown), caption, "the traffic left out");
    // Once kept, the link names it, and opens it again (once the page reads it back).
    grown.kept = KeptTrace::Kept("0123456789abcdef".into());
    assert_eq!(
        to_query(&grown),
        format!("trace=stored:0123456789abcdef&{caption}")
    );
    assert!(reopens(&grown) && !needs_keeping(&grown));
    // A kept trace that fits again goes back in the link as its list.
    grown.caption.clear();
    assert_eq!(to_query(&grown), query);
}

#[test]
fn five_thousand_requests_with_comma_keys_are_kept_and_their_link_is_short() {
    let mut state = comma_keyed(5_000);
    assert!(needs_keeping(&state));
    assert!(!reopens(&state));
    assert!(to_query(&state).is_empty());
    let kept = crate::core::job::run_to_end(kept::KeepTrace::new(state.pattern.clone()));
    let points = parse_stored_trace(&kept.text).unwrap();
    assert_eq!(Pattern::from_points(points), state.pattern);
    state.kept = KeptTrace::Kept(kept.id.clone());
    assert_eq!(to_query(&state), format!("trace=stored:{}", kept.id));
}

#[test]
fn composed_traffic_too_long_for_a_link_is_to_be_kept_as_one_trace() {
    let text: Vec<String> = (0..50)
        .map(|i| {
            format!(
                "{}@{i},key=tenant {i} with a long name%2C and a comma",
                i + 1
            )
        })
        .collect();
    let mut state = LabState::default();
    set_field(&mut state, "compose", &text.join(";")).unwrap();
    assert!(needs_keeping(&state) && !reopens(&state));
    assert!(!to_query(&state).contains("compose"));
    // What the page does: the traffic it runs becomes the kept trace, in the segments' place.
    let traffic = state.traffic();
    state.pattern = traffic.clone();
    state.compose.clear();
    state.kept = KeptTrace::Kept("0123456789abcdef".into());
    assert_eq!(
        state.traffic(),
        traffic,
        "the same requests, so the same run"
    );
    assert_eq!(to_query(&state), "trace=stored:0123456789abcdef");
    assert!(reopens(&state));
}

#[test]
fn every_field_at_its_longest_with_a_kept_trace_still_fits_a_link() {
    let rows: Vec<&str> = Algorithm::ALL.iter().map(|a| a.slug()).collect();
    let link = format!(
        "limit=999999&window=86399.999999&trace=stored:0123456789abcdef&algos={}&capacity=999999&refill=999999.999999&burst=999999&fixed-align=first&count-refused=1&instances=64&spread=key&also=999999/86400&also-key=prefix&spend=all&clients=obey&retries=10&do=1&seed=18446744073709551615&embed=1&controls=preset,play,send,limit,window,algos,tuning,theme&caption={}&theme=dark&view=86399.123456-86400&lanes=key",
        rows.join(","),
        "🦀".repeat(200),
    );
    let parsed = parse_query(&link);
    let fields: Vec<&str> = parsed.notices.iter().map(|n| n.field).collect();
    assert_eq!(fields, ["caption"], "{:?}", parsed.notices);
    let state = parsed.state;
    assert!(state.kept.is_named());
    let query = to_query(&state);
    assert!(
        query.len() <= MAX_QUERY_CHARS,
        "{} characters: {query}",
        query.len()
    );
    assert!(reopens(&state));
}

#[test]
fn a_kept_traces_link_with_its_colon_percent_encoded_names_the_same_trace() {
    // What `URLSearchParams` writes when a page or a script rewrites the query.
    let plain = parse_query("trace=stored:0123456789abcdef&limit=3");
    let escaped = parse_query("trace=stored%3A0123456789abcdef&limit=3");
    assert_eq!(escaped.state, plain.state);
    assert!(escaped.notices.is_empty(), "{:?}", escaped.notices);
}
