use super::*;

fn settings() -> SamuelSettings {
    SamuelSettings::default()
}

#[test]
fn the_step_decays_with_the_games_played() {
    let mut s = settings();
    s.learning_rate = 0.01;
    s.step_decay_games = 1000.0;
    assert_eq!(step_size(&s, 0), 0.01);
    assert_eq!(step_size(&s, 1000), 0.005);
    assert!((step_size(&s, 3000) - 0.0025).abs() < 1e-12);
    s.step_decay_games = 0.0;
    assert_eq!(step_size(&s, 5000), 0.01);
}

#[test]
fn correlation_of_hand_made_games() {
    // Feature 2 in two won games, 0 in two lost ones (2 positions each): r = 1.
    let mut c = Correlation::default();
    c.add_game(2.0, 4.0, 8.0, 1.0);
    c.add_game(2.0, 4.0, 8.0, 1.0);
    c.add_game(2.0, 0.0, 0.0, -1.0);
    c.add_game(2.0, 0.0, 0.0, -1.0);
    assert!((c.value() - 1.0).abs() < 1e-12);
    // Values 1 and 3 in a win, 1 and 3 in a loss: no relation, r = 0.
    let mut c = Correlation::default();
    c.add_game(2.0, 4.0, 10.0, 1.0);
    c.add_game(2.0, 4.0, 10.0, -1.0);
    assert_eq!(c.value(), 0.0);
    // A constant feature has no variance: 0, not NaN.
    let mut c = Correlation::default();
    c.add_game(3.0, 3.0, 3.0, 1.0);
    c.add_game(1.0, 1.0, 1.0, -1.0);
    assert_eq!(c.value(), 0.0);
}

/// For a game's own tests (a game with margins; `game` finished by the rules, with one
/// searched position, its side to move's search value `score`): Samuel's targets blend
/// the search with the game's margin `m` as `100·m` centi-units, or with its result as
/// `±RESULT_VALUE`.
pub(crate) fn targets_blend_in_the_margin_in_centi_units<G: Features>(
    game: &DatasetGame<G>,
    score: i32,
) {
    use crate::arena::margins::game_margin;
    use crate::learn::controls::OutcomeTarget;
    let mut controls = SamuelControls::<G>::plain();
    controls.search_weight = 0.5;
    let side = game.positions[0].side_to_move();
    let m = game_margin(game, side).expect("a game finished by the rules");
    let pairs = controls.learning_pairs(game, None, OutcomeTarget::Margin { scale: 4.0 });
    assert_eq!(pairs.len(), 1);
    assert_eq!(
        pairs[0].1,
        (f64::from(score + 100 * m) / 2.0).round() as i32
    );
    let result = (2.0 * game.outcome.score_for(side) - 1.0) * super::rule::RESULT_VALUE;
    let pairs = controls.learning_pairs(game, None, OutcomeTarget::Result);
    assert_eq!(
        pairs[0].1,
        ((f64::from(score) + result) / 2.0).round() as i32
    );
}
