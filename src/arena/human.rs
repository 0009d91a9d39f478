//! The person at the board: which sides a person plays, and the tags of the games
//! played against the engine (the terminal's and the browser's).

use clap::ValueEnum;

use crate::game::{Game, Side, player_tag};

/// Which sides the person plays.
#[derive(Clone, Copy, PartialEq, Eq, Debug, ValueEnum)]
pub enum HumanSide {
    /// The first player: White in draughts, A in Kalah
    #[value(alias = "white", alias = "a")]
    First,
    /// The second player: Black in draughts, B in Kalah
    #[value(alias = "black", alias = "b")]
    Second,
    /// The person plays both sides (the engine only gives hints).
    Both,
    /// The engine plays itself (watch mode).
    None,
}

impl HumanSide {
    pub fn plays(self, side: Side) -> bool {
        match self {
            HumanSide::First => side == Side::First,
            HumanSide::Second => side == Side::Second,
            HumanSide::Both => true,
            HumanSide::None => false,
        }
    }
}

/// The tags of a game file written by a person's game against the engine (`play`,
/// `serve`): event, site, today's date and the players (`human`, the engine's label).
pub fn game_tags<G: Game>(
    event: &str,
    human: HumanSide,
    engine_label: &str,
) -> Vec<(String, String)> {
    let engine = format!("evalearn ({engine_label})");
    let name = |side| {
        if human.plays(side) {
            "human".to_string()
        } else {
            engine.clone()
        }
    };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    // "YYYY-MM-DD hh:mm:ss UTC" → "YYYY.MM.DD".
    let date = crate::io::model::format_utc(now)[..10].replace('-', ".");
    vec![
        ("Event".to_string(), event.to_string()),
        ("Site".to_string(), "evalearn".to_string()),
        ("Date".to_string(), date),
        (player_tag::<G>(Side::First), name(Side::First)),
        (player_tag::<G>(Side::Second), name(Side::Second)),
    ]
}
