//! Samuel's rules on real games: copy on a win and zero after three losses, the update
//! towards the search value, term replacement, selection of the model and the
//! head-to-head selection margin. (The rules' game-free arithmetic is tested beside them
//! in `src/learn/samuel/`.)

use std::sync::atomic::AtomicBool;

use evalearn::eval::Evaluator;
use evalearn::eval::linear::{Features, Linear, LinearWeights, MAX_FEATURES, feature_count};
use evalearn::game::{Game, Outcome, Side};
use evalearn::games::brazilian::Brazilian;
use evalearn::games::kalah::Kalah;
use evalearn::learn::controls::OutcomeTarget;
use evalearn::learn::samuel::{
    Correlation, SamuelControls, SamuelPlay, SamuelSettings, SamuelState, SelectAgainst, Selected,
    after_game, iteration, learning_features, replace_least_useful, select, selection_score,
    update,
};
use evalearn::search::{Limits, WIN_THRESHOLD};

fn settings() -> SamuelSettings {
    SamuelSettings::default()
}

#[test]
fn copy_on_win_and_zero_after_three_losses() {
    let mut state = SamuelState::new::<Brazilian>();
    state.a.weights[3] = 5.0;
    state.a.weights[7] = -9.0;
    // A wins with White: B takes A's weights.
    let (copied, zeroed) = after_game(
        &mut state,
        Outcome::Win(Side::First),
        Side::First,
        &settings(),
    );
    assert!(copied && !zeroed);
    assert_eq!(state.b, state.a);
    // Two losses, a draw (the streak breaks), then three losses: the largest weight
    // (|−9|) goes to zero at the third.
    for outcome in [
        Outcome::Win(Side::Second),
        Outcome::Win(Side::Second),
        Outcome::Draw,
    ] {
        assert_eq!(
            after_game(&mut state, outcome, Side::First, &settings()),
            (false, false)
        );
    }
    assert_eq!(state.a.weights[7], -9.0);
    for _ in 0..2 {
        assert_eq!(
            after_game(
                &mut state,
                Outcome::Win(Side::First),
                Side::Second,
                &settings()
            ),
            (false, false)
        );
    }
    let (copied, zeroed) = after_game(
        &mut state,
        Outcome::Win(Side::First),
        Side::Second,
        &settings(),
    );
    assert!(!copied && zeroed);
    assert_eq!(state.a.weights[7], 0.0);
    assert_eq!(state.a.weights[3], 5.0);
    assert_eq!(state.loss_streak, 0);
    // B was not touched by the losses.
    assert_eq!(state.b.weights[7], -9.0);
}

/// The pool features of a learnable position.
fn pool_features(pos: &Brazilian, target: i32) -> Option<[i32; MAX_FEATURES]> {
    let mut f = [0; MAX_FEATURES];
    learning_features(pos, target, &mut f).then_some(f)
}

#[test]
fn the_update_moves_the_static_value_towards_the_search_value() {
    // Men far apart: no capture pending, and the features are not all zero.
    let pos = Brazilian::parse_position("W:W17,21,22,23:B1,2,3").unwrap();
    assert!(pos.is_quiet());
    let mut weights = LinearWeights::zero::<Brazilian>();
    let before = Linear::<Brazilian>::new(&weights).unwrap().evaluate(&pos);
    let target = before + 150;
    let f = pool_features(&pos, target).unwrap();
    let s = settings();
    let error = update(&mut weights, pos.anchor(), &f, target, 0.005, s.error_clip);
    assert_eq!(error, 150.0);
    let after = Linear::<Brazilian>::new(&weights).unwrap().evaluate(&pos);
    assert!(
        after > before && after < target,
        "{before} → {after} (target {target})"
    );
    // Only active features learn.
    for &i in &weights.reserve {
        assert_eq!(weights.weights[usize::from(i)], 0.0);
    }
    // Decided values and positions with a capture pending are not learned from.
    assert!(pool_features(&pos, WIN_THRESHOLD).is_none());
    let capture = Brazilian::parse_position("W:W22:B18").unwrap();
    assert!(pool_features(&capture, 0).is_none());
}

#[test]
fn the_least_correlated_active_feature_makes_way_for_the_reserve_head() {
    let mut state = SamuelState::new::<Brazilian>();
    assert_eq!(replace_least_useful(&mut state, 100), None, "no data yet");
    let n = feature_count::<Brazilian>();
    // Every feature perfectly correlated except active feature 5 (value 1 in both a
    // win and a loss: r = 0); it carries a weight, which is cleared.
    for i in 0..n {
        let (win, loss) = if i == 5 { (1.0, 1.0) } else { (1.0, 0.0) };
        state.usefulness[i].add_game(1.0, win, win, 1.0);
        state.usefulness[i].add_game(1.0, loss, loss, -1.0);
    }
    state.a.weights[5] = 7.0;
    let head = usize::from(state.a.reserve[0]);
    assert_eq!(replace_least_useful(&mut state, 100), Some((5, head)));
    assert!(state.a.is_active(head) && !state.a.is_active(5));
    assert_eq!(usize::from(*state.a.reserve.last().unwrap()), 5);
    assert_eq!(state.a.weights[5], 0.0);
    assert_eq!(state.a.active.len(), Brazilian::ACTIVE);
    let r = state.a.replaced[0];
    assert_eq!((r.game, r.removed, usize::from(r.added)), (100, 5, head));
    state.a.validate::<Brazilian>().unwrap();
    // The correlations restart.
    assert!(
        state
            .usefulness
            .iter()
            .all(|c| *c == Correlation::default())
    );
}

#[test]
fn the_model_is_the_best_selected_weights() {
    let openings = [Brazilian::start()];
    let play = SamuelPlay {
        limits: Limits::depth(1),
        exploration: None,
        ply_cap: 40,
        tt_mib: 1,
        openings: &openings,
        seed: 3,
        tablebase: None,
        adjudicate: false,
        target: OutcomeTarget::Result,
    };
    let mut s = settings();
    s.replace_every = 2;
    s.select_every = 2;
    s.select_games = 2;
    s.select_depth = 3;
    let mut state = SamuelState::new::<Brazilian>();
    let stop = AtomicBool::new(false);
    let mut controls = SamuelControls::plain();
    let report = iteration(&mut state, &s, &play, &mut controls, 0, 6, &stop, || {}).unwrap();
    assert_eq!(report.selections.len(), 3);
    assert_eq!(report.replaced.len(), 3);
    let best = state.best.as_ref().unwrap();
    let top = report.selections.iter().cloned().fold(f64::MIN, f64::max);
    assert_eq!(best.score, top);
    // The first selection reaching the top is kept.
    let first = report.selections.iter().position(|&x| x == top).unwrap();
    assert_eq!(best.game, 2 * (first as u64 + 1));
    assert_eq!(state.model(), &best.weights);
    // The match depends on the weights alone.
    let zero = LinearWeights::zero::<Brazilian>();
    assert_eq!(selection_score(&best.weights, &zero, &s, &play), best.score);
}

fn kalah_play(openings: &[Kalah]) -> SamuelPlay<'_, Kalah> {
    SamuelPlay {
        limits: Limits::depth(2),
        exploration: None,
        ply_cap: 200,
        tt_mib: 1,
        openings,
        seed: 5,
        tablebase: None,
        adjudicate: false,
        target: OutcomeTarget::Result,
    }
}

#[test]
fn head_to_head_the_model_is_replaced_only_by_a_winner_by_the_margin() {
    let openings = [Kalah::start()];
    let play = kalah_play(&openings);
    let mut s = settings();
    s.select_against = SelectAgainst::Model;
    s.select_games = 2;
    s.select_depth = 3;
    // The first candidate is taken unopposed.
    let mut state = SamuelState::new::<Kalah>();
    assert_eq!(select(&mut state, &s, &play, 10), None);
    let first = state.best.clone().unwrap();
    assert_eq!((first.game, first.score), (10, 0.5));
    assert_eq!(first.weights, state.a);
    // The same weights again: the paired match is a tie, which keeps the model.
    assert_eq!(select(&mut state, &s, &play, 20), Some(0.5));
    assert_eq!(state.best.as_ref().unwrap().game, 10);
    // A model that gives stones away loses to the store difference alone: the
    // candidate replaces it when it scores above ½ + margin, not otherwise.
    let mut bad = LinearWeights::zero::<Kalah>();
    let given_away = Kalah::FEATURE_NAMES
        .iter()
        .position(|&n| n == "given_away")
        .unwrap();
    let out = bad.active[0];
    bad.active[0] = given_away as u16;
    bad.reserve.retain(|&r| usize::from(r) != given_away);
    bad.reserve.push(out);
    bad.weights[given_away] = 5000.0;
    bad.validate::<Kalah>().unwrap();
    let zero = LinearWeights::zero::<Kalah>();
    let won = selection_score(&zero, &bad, &s, &play);
    assert!(won > 0.5, "{won}");
    for (margin, replaced) in [(won - 0.5, false), ((won - 0.5) / 2.0, true)] {
        s.select_margin = margin;
        let mut state = SamuelState::new::<Kalah>();
        state.best = Some(Box::new(Selected {
            weights: bad.clone(),
            score: 0.5,
            game: 0,
        }));
        assert_eq!(select(&mut state, &s, &play, 30), Some(won));
        let best = state.best.as_ref().unwrap();
        assert_eq!(best.weights == zero, replaced, "margin {margin}");
        assert_eq!(best.game, if replaced { 30 } else { 0 });
        assert_eq!(state.model(), &best.weights);
    }
}
