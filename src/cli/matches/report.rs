//! The report of `evalearn match`: the terminal's lines, the JSON file, and the games for
//! the game file.

use super::super::CliGame;
use super::super::args::counted;
use crate::arena::margins::{self, PerfectSide};
use crate::arena::matches::{MatchConfig, MatchOutcome, PairResult};
use crate::arena::stats::GameResult;
use crate::game::{EndReason, SavedGame, Side, player_tag};

/// Games A and B lost on time.
fn time_forfeits<G: CliGame>(outcome: &MatchOutcome<G>) -> (usize, usize) {
    let mut lost = (0, 0);
    for pair in &outcome.pairs {
        for (g, game) in pair.games.iter().enumerate() {
            if game.reason == EndReason::TimeForfeit {
                let a_side = if g == 0 { Side::First } else { Side::Second };
                match GameResult::from_outcome(game.outcome, a_side) {
                    GameResult::Win => lost.1 += 1,
                    _ => lost.0 += 1,
                }
            }
        }
    }
    lost
}

/// The perfect side of a match and how many of its moves were exact.
#[derive(Clone, Copy)]
pub(super) struct PerfectPlay {
    pub(super) side: PerfectSide,
    pub(super) exact: u64,
    /// All its moves, in the games in progress at a stop too.
    pub(super) moves: u64,
}

impl PerfectPlay {
    fn line(&self) -> String {
        let side = self.side.letter();
        let share = if self.moves == 0 {
            0.0
        } else {
            100.0 * self.exact as f64 / self.moves as f64
        };
        format!(
            "exact moves  {side} (perfect) played {} of its {} moves exactly ({share:.1}%), the \
             rest with the search",
            self.exact, self.moves
        )
    }
}

pub(super) fn print_report<G: CliGame>(
    outcome: &MatchOutcome<G>,
    names: &(String, String),
    config: &MatchConfig,
    perfect: Option<PerfectPlay>,
) {
    let t = &outcome.tally.trinomial;
    let e = outcome.tally.estimate();
    println!("match: {} vs {}", names.0, names.1);
    println!(
        "games        {} ({}; each opening played twice, colours swapped; a game still on \
         at ply {} is a draw)",
        t.games(),
        counted(outcome.pairs.len() as u64, "pair", "pairs"),
        config.ply_cap
    );
    println!(
        "A            {}, {}, {}: score {:.1}%",
        counted(t.wins, "win", "wins"),
        counted(t.draws, "draw", "draws"),
        counted(t.losses, "loss", "losses"),
        100.0 * e.score
    );
    match e.interval_rounded(1) {
        Some((low, high)) => println!(
            "Elo (A − B)  {:+.1}, 95% interval [{low:+.1}, {high:+.1}]",
            e.elo
        ),
        None => println!("Elo (A − B)  n/a ({})", e.unmeasured().unwrap_or_default()),
    }
    println!("LOS          {:.1}%", 100.0 * e.los);
    if config.clock.is_some() {
        let (a, b) = time_forfeits(outcome);
        println!("lost on time A {a}, B {b}");
    }
    println!("draw ratio   {:.1}%", 100.0 * e.draw_ratio.unwrap_or(0.0));
    println!(
        "pentanomial  {:?} (pairs in which A scored 0, ½, 1, 1½, 2 points)",
        outcome.tally.pentanomial.counts
    );
    if let Some(summary) = margins::summarise(&outcome.pairs) {
        for line in summary.lines(G::SCORE_UNITS, perfect.map(|p| p.side)) {
            println!("{line}");
        }
    }
    if let Some(play) = perfect {
        println!("{}", play.line());
    }
    if let (Some(result), Some(params)) = (&outcome.sprt, &config.sprt) {
        println!(
            "SPRT         elo0 {} elo1 {} alpha {} beta {}: LLR {:.3} in [{:.3}, {:.3}] → {}{}",
            params.elo0(),
            params.elo1(),
            params.alpha(),
            params.beta(),
            result.llr,
            result.lower,
            result.upper,
            result.decision,
            if outcome.stopped_early {
                format!(" (stopped after {} pairs)", outcome.pairs.len())
            } else {
                String::new()
            }
        );
    }
}

pub(super) fn report_json<G: CliGame>(
    outcome: &MatchOutcome<G>,
    names: &(String, String),
    config: &MatchConfig,
    perfect: Option<PerfectPlay>,
) -> String {
    let t = &outcome.tally.trinomial;
    let e = outcome.tally.estimate();
    let mut json = serde_json::json!({
        "a": names.0,
        "b": names.1,
        "games": t.games(),
        "pairs": outcome.pairs.len(),
        "wins": t.wins,
        "draws": t.draws,
        "losses": t.losses,
        "score": e.score,
        "elo": e.unmeasured().is_none().then_some(e.elo),
        "elo_low": e.unmeasured().is_none().then_some(e.elo_low),
        "elo_high": e.unmeasured().is_none().then_some(e.elo_high),
        "unmeasured": e.unmeasured(),
        "los": e.los,
        "draw_ratio": e.draw_ratio,
        "pentanomial": outcome.tally.pentanomial.counts,
    });
    if let Some(summary) = margins::summarise(&outcome.pairs) {
        for (key, value) in summary.json(G::SCORE_UNITS, perfect.map(|p| p.side)) {
            json[key] = value;
        }
    }
    if let Some(play) = perfect {
        json["perfect_moves"] = play.moves.into();
        json["perfect_exact_moves"] = play.exact.into();
    }
    if config.clock.is_some() {
        let (a, b) = time_forfeits(outcome);
        json["lost_on_time"] = serde_json::json!({ "a": a, "b": b });
    }
    if let (Some(result), Some(params)) = (&outcome.sprt, &config.sprt) {
        json["sprt"] = serde_json::json!({
            "elo0": params.elo0(),
            "elo1": params.elo1(),
            "alpha": params.alpha(),
            "beta": params.beta(),
            "llr": result.llr,
            "lower": result.lower,
            "upper": result.upper,
            "decision": result.decision,
            "stopped_early": outcome.stopped_early,
        });
    }
    serde_json::to_string_pretty(&json).expect("plain values serialise")
}

/// The two games of a pair for a game file.
pub(super) fn pair_games<G: CliGame>(
    pair: &PairResult<G>,
    names: &(String, String),
) -> Vec<SavedGame<G>> {
    pair.games
        .iter()
        .enumerate()
        .map(|(g, game)| {
            let (first, second) = if g == 0 {
                (&names.0, &names.1)
            } else {
                (&names.1, &names.0)
            };
            let tags = vec![
                ("Event".to_string(), "evalearn match".to_string()),
                ("Round".to_string(), format!("{}.{}", pair.index + 1, g + 1)),
                (player_tag::<G>(Side::First), first.clone()),
                (player_tag::<G>(Side::Second), second.clone()),
            ];
            SavedGame {
                tags,
                start: game.positions[0],
                moves: game.moves.clone(),
                result: Some(game.outcome),
            }
        })
        .collect()
}
