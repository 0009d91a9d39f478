//! Scan's Hub protocol for Brazilian draughts: evalearn as an engine that GUIs,
//! pydraughts and the lidraughts bot bridge drive ([`engine`]), and as a client that
//! plays matches against any Hub engine ([`client`]).

pub mod client;
pub mod engine;
pub mod notation;
pub mod protocol;
pub mod time;

use crate::arena::players::Player;
use crate::game::Game;
use crate::game::brazilian::Brazilian;
use crate::game::kalah::Kalah;

/// Games an external Hub engine can play: Brazilian draughts only (Hub is a draughts
/// protocol).
pub trait HubGame: Game {
    /// Starts the engine `command` as a player of this game.
    fn hub_player(command: &str) -> Result<Box<dyn Player<Self>>, String>;
}

impl HubGame for Brazilian {
    fn hub_player(command: &str) -> Result<Box<dyn Player<Self>>, String> {
        Ok(Box::new(client::HubClient::start(command)?))
    }
}

impl HubGame for Kalah {
    fn hub_player(command: &str) -> Result<Box<dyn Player<Self>>, String> {
        Err(format!(
            "hub:{command}: Hub engines play Brazilian draughts, not Kalah"
        ))
    }
}
