//! Scan's Hub protocol for Brazilian draughts: evalearn as an engine that GUIs,
//! pydraughts and the lidraughts bot bridge drive ([`engine`]), and as a client that
//! plays matches against any Hub engine ([`client`]).

pub mod client;
pub mod engine;
pub mod notation;
pub mod protocol;
pub mod time;

use crate::arena::players::{EngineProtocol, Player};
use crate::games::brazilian::Brazilian;

impl EngineProtocol for Brazilian {
    const PROTOCOL: Option<(&'static str, &'static str)> = Some(("Hub", "hub"));

    fn external_player(command: &str) -> Result<Box<dyn Player<Self>>, String> {
        Ok(Box::new(client::HubClient::start(command)?))
    }
}
