//! Samuel's games: self-play of A (learning) against B (frozen), one game after another,
//! and the selection matches that keep the model.

use std::sync::Arc;

use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};

use super::rule::{
    GameSums, RESULT_VALUE, after_game, learning_features, replace_least_useful, step_size, update,
};
use super::{SamuelSettings, SamuelState, SelectAgainst, Selected, squared_error};
use crate::arena::engine_game::{Exploration, GameRules, play_engine_game};
use crate::eval::linear::{Features, Linear, LinearWeights, MAX_FEATURES, feature_count};
use crate::game::{Game, Outcome, Side};
use crate::io::dataset::DatasetGame;
use crate::learn::controls::{OutcomeTarget, PositionFilter};
use crate::rng;
use crate::search::{Limits, SearchConfig, Searcher, Tablebase};

/// What one iteration did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SamuelReport {
    pub games: u64,
    pub positions: u64,
    /// Mean squared error (in units², a unit being 100 centi-units) of A's static values
    /// against its search values over the positions A learned from in this iteration,
    /// with A's weights from before the iteration and from after it.
    pub loss_before: f64,
    pub loss: f64,
    pub updates: u64,
    pub a_wins: u64,
    pub draws: u64,
    pub b_wins: u64,
    /// Times B took A's weights.
    pub copies: u64,
    /// Times A's largest weight was set to zero.
    pub zeroings: u64,
    /// Term replacements as (removed, added) feature indices.
    pub replaced: Vec<(usize, usize)>,
    /// Selection-match scores of A in this iteration.
    pub selections: Vec<f64>,
    /// Seconds the selection matches took (the rest went to the games and learning).
    pub selection_seconds: f64,
}

/// Self-play settings of a Samuel iteration.
pub struct SamuelPlay<'a, G> {
    pub limits: Limits,
    pub exploration: Option<Exploration>,
    pub ply_cap: u32,
    pub tt_mib: usize,
    pub openings: &'a [G],
    pub seed: u64,
    /// Endgame database of both players' searches.
    pub tablebase: Option<Arc<dyn Tablebase<G>>>,
    /// End each game on entering the database, with its result.
    pub adjudicate: bool,
    /// What a game's end is worth (`[training] target`): in the selection scores, the
    /// features' correlations with winning and the targets that blend in the game.
    pub target: OutcomeTarget,
}

impl<G: Features> SamuelPlay<'_, G> {
    fn searcher(&self, weights: &LinearWeights) -> Searcher<G, Linear<G>> {
        Searcher::new(linear_evaluator(weights), SearchConfig::FULL, self.tt_mib)
            .with_tablebase(self.tablebase.clone())
    }

    fn rules(&self) -> GameRules<'_, G> {
        GameRules {
            ply_cap: self.ply_cap,
            exploration: self.exploration,
            adjudicator: self.tablebase.as_deref().filter(|_| self.adjudicate),
        }
    }
}

pub(super) fn linear_evaluator<G: Features>(weights: &LinearWeights) -> Linear<G> {
    Linear::new(weights).expect("learner weights fit the feature set")
}

/// The selection match: `weights` against `opponent`, `select_games` games at
/// `select_depth` from the first `select_games / 2` openings, each with both colours, no
/// exploration. Returns the weights' score (0..=1): the mean of their games' values as
/// `play.target` says (1 a win, ½ a draw, 0 a loss; or by the margin).
pub fn selection_score<G: Features>(
    weights: &LinearWeights,
    opponent: &LinearWeights,
    settings: &SamuelSettings,
    play: &SamuelPlay<G>,
) -> f64 {
    let limits = Limits::depth(settings.select_depth);
    let rules = || GameRules {
        exploration: None,
        ..play.rules()
    };
    // The games are independent (fresh searchers, their own random streams): played in
    // parallel, their scores summed in game order.
    let scores: Vec<f64> = (0..settings.select_games)
        .into_par_iter()
        .map(|index| {
            // Fresh searchers each game: the score depends on the weights alone.
            let mut candidate = play.searcher(weights);
            let mut other = play.searcher(opponent);
            let a_side = if index.is_multiple_of(2) {
                Side::First
            } else {
                Side::Second
            };
            let opening = play.openings[((index / 2) % play.openings.len() as u64) as usize];
            let mut rng = rng::stream(play.seed ^ SELECTION_STREAM, index);
            let game = play_engine_game(index, opening, rules(), &mut rng, |record, _| {
                if record.position().side_to_move() == a_side {
                    candidate.search(record, &limits, |_| {})
                } else {
                    other.search(record, &limits, |_| {})
                }
            });
            play.target.of_game(&game, a_side)
        })
        .collect();
    scores.iter().sum::<f64>() / settings.select_games.max(1) as f64
}

/// The selection after `played` games: A's weights play their match (against the anchor
/// or the model, as `select_against` says) and become the model if they win it. Returns
/// their score, or `None` for the first weights taken unopposed.
pub fn select<G: Features>(
    state: &mut SamuelState,
    settings: &SamuelSettings,
    play: &SamuelPlay<G>,
    played: u64,
) -> Option<f64> {
    let candidate = &state.a;
    let (score, kept) = match (settings.select_against, &state.best) {
        (SelectAgainst::Anchor, best) => {
            let score = selection_score(candidate, &LinearWeights::zero::<G>(), settings, play);
            (Some(score), best.as_ref().is_none_or(|b| score > b.score))
        }
        (SelectAgainst::Model, None) => (None, true),
        (SelectAgainst::Model, Some(best)) => {
            let score = selection_score(candidate, &best.weights, settings, play);
            (Some(score), score > 0.5 + settings.select_margin)
        }
    };
    if kept {
        state.best = Some(Box::new(Selected {
            weights: state.a.clone(),
            score: score.unwrap_or(0.5),
            game: played,
        }));
    }
    score
}

/// Keeps the selection matches' random streams apart from the self-play games'.
const SELECTION_STREAM: u64 = 0x5E1E_C7ED_5A4E_1959;

/// The `[training]` controls of a Samuel iteration.
pub struct SamuelControls<'a, G: Game> {
    /// Whether a game (by number) is held out: played without learning, and kept.
    pub held_out: &'a dyn Fn(u64) -> bool,
    /// Weight of the search value in the targets, the rest the game result.
    pub search_weight: f64,
    /// Factor of `learning_rate` (the schedule).
    pub rate_factor: f64,
    pub filter: PositionFilter<'a, G>,
    /// The held-out games played.
    pub held_games: Vec<DatasetGame<G>>,
}

impl<G: Game> SamuelControls<'_, G> {
    /// No game held out, search values as targets, every position learned from.
    pub fn plain() -> SamuelControls<'static, G> {
        SamuelControls {
            held_out: &|_| false,
            search_weight: 1.0,
            rate_factor: 1.0,
            filter: PositionFilter::none(),
            held_games: Vec::new(),
        }
    }

    /// Whether A learns during its games, after each move (Samuel's rule); otherwise at
    /// the end of each game, in order, from its record: blending in the result or
    /// sampling the game's positions needs the whole game.
    fn online(&self) -> bool {
        self.search_weight == 1.0 && self.filter.max_per_game == 0
    }

    /// The target at a position whose search value is `score` for the side to move,
    /// whose game was worth `end` centi-units to it (±[`RESULT_VALUE`] won or lost, or
    /// its margin: [`OutcomeTarget::centi_of_game`]): `w·score + (1 − w)·end`, rounded.
    fn target(&self, score: i32, end: f64) -> i32 {
        let w = self.search_weight;
        if w == 1.0 {
            return score;
        }
        (w * score as f64 + (1.0 - w) * end).round() as i32
    }

    /// The (position, target) pairs learned from in `game`: the positions (of `side`
    /// alone, if given) with a search value that [`learning_features`] and the filter
    /// keep, in order, the game's end valued as `end` says.
    pub(super) fn learning_pairs(
        &self,
        game: &DatasetGame<G>,
        side: Option<Side>,
        end: OutcomeTarget,
    ) -> Vec<(G, i32)>
    where
        G: Features,
    {
        let mut f = [0; MAX_FEATURES];
        let candidates = (0..game.scores.len()).filter(|&i| {
            let pos = &game.positions[i];
            side.is_none_or(|s| pos.side_to_move() == s)
                && learning_features(pos, game.scores[i], &mut f)
        });
        (self.filter.select(game, candidates).into_iter())
            .map(|i| {
                let pos = game.positions[i];
                let value = end.centi_of_game(game, pos.side_to_move(), RESULT_VALUE);
                (pos, self.target(game.scores[i], value))
            })
            .collect()
    }
}

/// Plays `games` games numbered from `first_game` (their random streams and openings
/// follow the number), learning as it goes, but not in held-out games (`controls`).
/// Returns `None` if `stop` was raised: the iteration is then incomplete and `state`
/// must be discarded.
#[allow(clippy::too_many_arguments)]
pub fn iteration<G: Features>(
    state: &mut SamuelState,
    settings: &SamuelSettings,
    play: &SamuelPlay<G>,
    controls: &mut SamuelControls<'_, G>,
    first_game: u64,
    games: u64,
    stop: &AtomicBool,
    mut on_game: impl FnMut(),
) -> Option<SamuelReport> {
    let mut searcher_a = play.searcher(&state.a);
    let mut searcher_b = play.searcher(&state.b);
    let mut report = SamuelReport::default();
    let start = state.a.clone();
    let mut learned: Vec<(G, i32)> = Vec::new();
    let mut sums = GameSums::new();
    let count = feature_count::<G>();
    for index in first_game..first_game + games {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        let a_side = if index.is_multiple_of(2) {
            Side::First
        } else {
            Side::Second
        };
        let rate = step_size(settings, index) * controls.rate_factor;
        let held = (controls.held_out)(index);
        let online = controls.online() && !held;
        let opening = play.openings[(index % play.openings.len() as u64) as usize];
        let mut rng = rng::stream(play.seed, index);
        let game = play_engine_game(index, opening, play.rules(), &mut rng, |record, exact| {
            let limits = Limits {
                exact_root_values: exact,
                ..play.limits.clone()
            };
            let pos = *record.position();
            if pos.side_to_move() != a_side {
                return searcher_b.search(record, &limits, |_| {});
            }
            let result = searcher_a.search(record, &limits, |_| {});
            let mut f = [0; MAX_FEATURES];
            if online
                && learning_features(&pos, result.score, &mut f)
                && controls.filter.admits(&pos)
            {
                let f = &f[..count];
                sums.add(f);
                update(
                    &mut state.a,
                    pos.anchor(),
                    f,
                    result.score,
                    rate,
                    settings.error_clip,
                );
                learned.push((pos, result.score));
                report.updates += 1;
                *searcher_a.evaluator_mut() = linear_evaluator(&state.a);
            }
            result
        });
        // Raised during the game, the flag cut its searches short: it is not learned from.
        if stop.load(Ordering::SeqCst) {
            return None;
        }
        if held {
            controls.held_games.push(game);
            on_game();
            continue;
        }
        if !controls.online() {
            for (pos, target) in controls.learning_pairs(&game, Some(a_side), play.target) {
                let mut f = [0; MAX_FEATURES];
                learning_features(&pos, target, &mut f);
                let f = &f[..count];
                sums.add(f);
                update(
                    &mut state.a,
                    pos.anchor(),
                    f,
                    target,
                    rate,
                    settings.error_clip,
                );
                learned.push((pos, target));
                report.updates += 1;
            }
            *searcher_a.evaluator_mut() = linear_evaluator(&state.a);
        }
        report.games += 1;
        report.positions += controls
            .filter
            .admitted_positions(std::slice::from_ref(&game));
        sums.finish(
            &mut state.usefulness,
            2.0 * play.target.of_game(&game, a_side) - 1.0,
        );
        let players = Players {
            a: &mut searcher_a,
            b: &mut searcher_b,
        };
        after_iteration_game(state, settings, play, &mut report, players, &game, a_side);
        on_game();
    }
    if stop.load(Ordering::SeqCst) {
        return None;
    }
    report.loss_before = squared_error(&start, &learned);
    report.loss = squared_error(&state.a, &learned);
    Some(report)
}

/// The two searchers of an iteration's games, A's and B's.
struct Players<'a, G: Features> {
    a: &'a mut Searcher<G, Linear<G>>,
    b: &'a mut Searcher<G, Linear<G>>,
}

/// What follows a game of the iteration (number `game.index`, A playing `a_side`): the
/// tally, B taking A's weights or A's largest weight zeroed, term replacement and the
/// selection match when due; the searchers get the weights that changed.
fn after_iteration_game<G: Features>(
    state: &mut SamuelState,
    settings: &SamuelSettings,
    play: &SamuelPlay<G>,
    report: &mut SamuelReport,
    players: Players<'_, G>,
    game: &DatasetGame<G>,
    a_side: Side,
) {
    match game.outcome {
        Outcome::Win(side) if side == a_side => report.a_wins += 1,
        Outcome::Win(_) => report.b_wins += 1,
        Outcome::Draw => report.draws += 1,
    }
    let (copied, zeroed) = after_game(state, game.outcome, a_side, settings);
    report.copies += u64::from(copied);
    report.zeroings += u64::from(zeroed);
    if copied {
        *players.b.evaluator_mut() = linear_evaluator(&state.b);
    }
    let played = game.index + 1;
    let due = |every: u64| every > 0 && played.is_multiple_of(every);
    if due(settings.replace_every)
        && let Some(swap) = replace_least_useful(state, played)
    {
        report.replaced.push(swap);
    }
    if zeroed || due(settings.replace_every) {
        *players.a.evaluator_mut() = linear_evaluator(&state.a);
    }
    if due(settings.select_every) {
        let started = std::time::Instant::now();
        if let Some(score) = select(state, settings, play, played) {
            report.selections.push(score);
        }
        report.selection_seconds += started.elapsed().as_secs_f64();
    }
}
