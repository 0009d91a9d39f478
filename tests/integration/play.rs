//! `evalearn play` driven through a pipe: a scripted game, hot reload of the model while
//! the game goes on, and watch mode.

use crate::common;
use common::{Piped, linear_header, save_linear, temp_dir};

use evalearn::game::{Game, GameFile, GameStatus};
use evalearn::games::brazilian::Brazilian;
use evalearn::games::brazilian::pdn;
use evalearn::games::kalah::{Kalah, KalahRules};

/// A running `evalearn play`.
struct Play(Piped);

impl Play {
    fn start(args: &[&str]) -> Play {
        let mut all = vec!["play"];
        all.extend_from_slice(args);
        Play(Piped::start(&all))
    }

    fn send(&mut self, line: &str) {
        self.0.send(line);
    }

    fn wait_for(&mut self, needle: &str) -> String {
        self.0.wait_for(needle)
    }

    /// The first legal move the `moves` command lists.
    fn some_legal_move(&mut self) -> String {
        self.send("moves");
        let line = self.wait_for("legal moves: ");
        let list = line.split("legal moves: ").nth(1).unwrap();
        list.split_whitespace().next().unwrap().to_string()
    }

    fn finish(self) -> Vec<String> {
        self.0.finish()
    }
}

#[test]
fn a_scripted_game_with_mistakes_undo_and_save() {
    let dir = temp_dir("scripted");
    let saved = dir.join("game.pdn");
    let auto = dir.join("auto.pdn");
    let mut play = Play::start(&[
        "--depth",
        "3",
        "--side",
        "white",
        "--pdn",
        auto.to_str().unwrap(),
    ]);
    play.wait_for("white to move");
    play.send("22");
    assert!(play.wait_for("ambiguous").contains("22-17"));
    play.send("17-13");
    assert!(
        play.wait_for("not a legal move")
            .contains("no white piece on 17")
    );
    play.send("e3-f5");
    play.wait_for("not a legal move");
    play.send("bogus");
    play.wait_for("unknown command bogus: type help");
    play.send("c3-d4");
    play.wait_for("black plays");
    play.send("undo");
    play.wait_for("move 1, white to move");
    play.send("21");
    play.wait_for("last move 21-17");
    play.wait_for("black plays");
    let second = play.some_legal_move();
    play.send(&second);
    play.wait_for("black plays");
    play.send("fen");
    let fen = play
        .wait_for("fen ")
        .split_once("fen ")
        .unwrap()
        .1
        .to_string();
    // A file that cannot be written is named.
    let nowhere = dir.join("no-such-folder").join("x.pdn");
    play.send(&format!("save {}", nowhere.display()));
    assert!(
        play.wait_for("cannot save")
            .contains(&format!("cannot save to {}: ", nowhere.display()))
    );
    play.send("save");
    play.wait_for("save FILE: give the file");
    play.send(&format!("save {}", saved.display()));
    play.wait_for("saved to");
    play.send("quit");
    let transcript = play.finish();
    assert!(transcript.iter().any(|l| l.contains("game saved to")));

    // The PDN replays to the position the game reached.
    let games = pdn::read_games(&std::fs::read_to_string(&saved).unwrap()).unwrap();
    assert_eq!(games.len(), 1);
    assert_eq!(games[0].moves.len(), 4);
    let end = games[0].record().position().format_position();
    assert_eq!(end, fen);
    assert_eq!(
        Brazilian::parse_position(&fen).unwrap().format_position(),
        end
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_model_is_reloaded_and_a_broken_file_is_survived() {
    let dir = temp_dir("reload");
    let model = dir.join("model.bin");
    let mut header = linear_header();
    header.meta.games = 100;
    save_linear(&model, &mut header, 0.0);
    assert_eq!(header.revision, 1);

    let mut play = Play::start(&[
        "--model",
        model.to_str().unwrap(),
        "--depth",
        "2",
        "--pdn",
        dir.join("games.pdn").to_str().unwrap(),
    ]);
    play.wait_for("revision 1");
    play.send("22-18");
    play.wait_for("black plays");

    // Training writes revision 2: the next engine move uses it.
    header.meta.games = 200;
    save_linear(&model, &mut header, 1.5);
    let mv = play.some_legal_move();
    play.send(&mv);
    let reload = play.wait_for("model reloaded");
    assert!(reload.contains("revision 2"), "{reload}");
    assert!(reload.contains("200 games"), "{reload}");
    play.wait_for("black plays");

    // A file that cannot be loaded: one warning, the game goes on with revision 2.
    std::fs::write(&model, b"this is not a model").unwrap();
    let mv = play.some_legal_move();
    play.send(&mv);
    let warning = play.wait_for("warning");
    assert!(warning.contains("revision 2"), "{warning}");
    play.wait_for("black plays");
    let mv = play.some_legal_move();
    play.send(&mv);
    play.wait_for("black plays");
    play.send("quit");
    let transcript = play.finish();
    let warnings = transcript.iter().filter(|l| l.contains("warning")).count();
    assert_eq!(warnings, 1, "{}", transcript.join("\n"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn watch_mode_plays_a_whole_game_and_saves_it() {
    let dir = temp_dir("watch");
    let pdn_path = dir.join("watched.pdn");
    let play = Play::start(&[
        "--side",
        "none",
        "--depth",
        "2",
        "--pdn",
        pdn_path.to_str().unwrap(),
    ]);
    let transcript = play.finish();
    assert!(transcript.iter().any(|l| l.starts_with("game over")));
    let games = pdn::read_games(&std::fs::read_to_string(&pdn_path).unwrap()).unwrap();
    assert_eq!(games.len(), 1);
    let record = games[0].record();
    match record.status() {
        GameStatus::Over { outcome, .. } => {
            assert_eq!(games[0].result, Some(outcome))
        }
        GameStatus::Ongoing => panic!("the saved game is not finished"),
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Watching, `quit` stops the game between two moves and saves it unfinished; other
/// lines are answered. (The game at depth 8 lasts far longer than a line takes to
/// arrive.)
#[test]
fn watch_mode_stops_on_quit() {
    let dir = temp_dir("watch-quit");
    let pdn_path = dir.join("watched.pdn");
    let mut play = Play::start(&[
        "--side",
        "none",
        "--depth",
        "8",
        "--pdn",
        pdn_path.to_str().unwrap(),
    ]);
    play.wait_for("Type quit to stop watching");
    play.send("help");
    play.wait_for("help: while watching, only quit");
    play.send("quit");
    play.wait_for("stopped watching");
    let transcript = play.finish();
    assert!(!transcript.iter().any(|l| l.starts_with("game over")));
    let games = pdn::read_games(&std::fs::read_to_string(&pdn_path).unwrap()).unwrap();
    assert_eq!(games.len(), 1);
    assert_eq!(games[0].result, None, "unfinished");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_play_arguments_are_exit_status_2() {
    for args in [
        &["play", "--model", "/nonexistent/model.bin"][..],
        &["play", "--eval", "nonsense.bin"],
        &["play", "--depth", "0"],
        &["play", "--fen", "W:W33:B1"],
        &["play", "--side", "purple"],
        &["play", "--depth", "3", "--movetime", "100"],
    ] {
        common::assert_input_error(args);
    }
}

#[test]
fn kalah_one_sowing_at_a_time_undo_and_the_seed_record() {
    let dir = temp_dir("kalah-play");
    let saved = dir.join("game.klh");
    let mut play = Play::start(&[
        "--game",
        "kalah",
        "--depth",
        "2",
        "--side",
        "first",
        "--save",
        dir.join("auto.klh").to_str().unwrap(),
    ]);
    play.wait_for("A to move");
    // Pit 1's six stones end in the store: the board is drawn again and the turn goes on.
    play.send("1");
    play.wait_for("the turn goes on after 1");
    play.send("undo");
    play.wait_for("turn started again");
    play.send("7");
    play.wait_for("pits are numbered 1..6");
    play.send("1,1");
    play.wait_for("sowing 2: pit 1 is empty");
    // The whole compound move at once.
    play.send("1,2");
    play.wait_for("B plays");
    play.wait_for("A to move");
    play.send("position");
    let position = play
        .wait_for("position ")
        .split_once("position ")
        .unwrap()
        .1
        .to_string();
    play.send(&format!("save {}", saved.display()));
    play.wait_for("saved to");
    play.send("quit");
    play.finish();

    // The record is Dubner's: one line per round, and it replays to the position.
    let text = std::fs::read_to_string(&saved).unwrap();
    assert!(text.contains(" 1) A: 1 2 B: "), "{text}");
    let games = Kalah::read_games(KalahRules::default(), &text).unwrap();
    assert_eq!(games.len(), 1);
    assert_eq!(games[0].moves.len(), 2);
    assert_eq!(games[0].record().position().format_position(), position);
    std::fs::remove_dir_all(&dir).unwrap();
}
