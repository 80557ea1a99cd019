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
    (0..MAX_REQUESTS_IN_LINK as u64 + 1)
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
    assert_eq!(state.settings.products.cf_period, Some(60));
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
    assert_eq!(parsed.state.settings.products.cf_limit, Some(7));
    assert_eq!(parsed.state.settings.products.cf_period, None);
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
    let long = "é".repeat(MAX_CAPTION_CHARS + 5);
    let parsed = parse_query(&format!("caption={long}"));
    assert_eq!(parsed.state.caption.chars().count(), MAX_CAPTION_CHARS);
    assert_eq!(parsed.notices[0].field, "caption");
    assert!(parsed.notices[0]
        .message
        .ends_with("showing the first 200."));
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
fn a_refused_typed_value_gets_the_links_message_and_changes_nothing() {
    let mut state = parse_query("limit=7").state;
    let before = state.clone();
    let refused = set_field(&mut state, "limit", "0").unwrap_err();
    assert_eq!(refused.field, "limit");
    assert_eq!(
        refused.message,
        parse_query("limit=0").notices[0].message,
        "the same words as a link"
    );
    assert_eq!(state, before);
    assert!(set_field(&mut state, "window", "abc").is_err());
    assert_eq!(state, before);
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
