//! Kalah through the public API: perft, Dubner's worked example and sample game, the
//! capture and game-end rules, laps, variants, position and move texts (round trips and
//! every error kind, fuzzed), the single-sowing API, packing and `.klh` game files.

use std::collections::{HashMap, HashSet};

use evalearn::game::perft::{divide, perft};
use evalearn::game::{Game, GameFile, GameRecord, GameStatus, Outcome, SavedGame, Side};
use evalearn::games::kalah::{
    A, B, Kalah, KalahMove, KalahMoveError, KalahMoves, KalahPositionError, KalahRules,
    MAX_KALAH_MOVES, MAX_SOWINGS, SowingEnd,
};
use evalearn::rng::stream;
use proptest::prelude::*;
use rand::RngExt;

fn pos(text: &str) -> Kalah {
    Kalah::parse_position(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn pos_of(rules: KalahRules, text: &str) -> Kalah {
    Kalah::parse_position_of(rules, text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn legal(p: &Kalah) -> Vec<KalahMove> {
    let mut moves = KalahMoves::new();
    p.legal_moves(&mut moves);
    moves.to_vec()
}

fn play(p: Kalah, text: &str) -> Kalah {
    let mv = p
        .parse_move(text)
        .unwrap_or_else(|e| panic!("{text} in {}: {e}", p.format_position()));
    assert!(legal(&p).contains(&mv), "{text} not generated");
    p.play(mv)
}

/// Dubner's picture of a position: B's store and B's pits 6..1 / A's pits 1..6 and
/// A's store.
fn seed_rows(p: &Kalah) -> String {
    let c = p.counts();
    let top: Vec<String> = [13, 12, 11, 10, 9, 8, 7]
        .iter()
        .map(|&i| c[i].to_string())
        .collect();
    let bottom: Vec<String> = (0..7).map(|i| c[i].to_string()).collect();
    format!("{} / {}", top.join(" "), bottom.join(" "))
}

const FOUR: KalahRules = KalahRules {
    stones: 4,
    empty_capture: false,
};
const EMPTY_CAPTURE: KalahRules = KalahRules {
    stones: 6,
    empty_capture: true,
};

/// A seeded random game from the start of `rules`, played to its end.
fn random_game(rules: KalahRules, seed: u64) -> GameRecord<Kalah> {
    let mut rng = stream(seed, 0);
    let mut record = GameRecord::new(Kalah::start_of(rules));
    let mut moves = KalahMoves::new();
    while record.status() == GameStatus::Ongoing {
        record.position().legal_moves(&mut moves);
        record.play(moves[rng.random_range(0..moves.len())]);
    }
    record
}

/// A random distribution of the rules' stones over the desk (most not reachable in play,
/// which the text forms do not care about).
fn random_position(rules: KalahRules, seed: u64) -> Kalah {
    let mut rng = stream(seed, 1);
    let mut counts = [0u8; 14];
    let spread = rng.random_range(1..=14);
    for _ in 0..rules.total() {
        counts[rng.random_range(0..spread) * 14 / spread + rng.random_range(0..14 / spread)] += 1;
    }
    let side = if rng.random_bool(0.5) { A } else { B };
    Kalah::from_counts(rules, counts, side).unwrap()
}

// ---------------------------------------------------------------------------- perft

#[test]
fn perft_from_the_start() {
    let start = Kalah::start();
    let expected = [10, 60, 329, 1907, 12441, 80209];
    for (depth, &nodes) in (1..).zip(&expected) {
        assert_eq!(perft(&start, depth), nodes, "perft {depth}");
    }
    let parts = divide(&start, 4);
    assert_eq!(parts.len(), 10);
    assert_eq!(parts.iter().map(|p| p.1).sum::<u64>(), 1907);
}

#[test]
fn move_order_and_list_size() {
    let start = Kalah::start();
    let texts: Vec<String> = legal(&start)
        .iter()
        .map(|&m| start.format_move(m))
        .collect();
    assert_eq!(
        texts,
        ["1,2", "1,3", "1,4", "1,5", "1,6", "2", "3", "4", "5", "6"]
    );
    // The figures of the move list's size: A's pits 16,5,4,40,2,1 give 1,204 moves,
    // 6,5,4,3,2,1 give 912 (B's pits hold the rest).
    for (text, n) in [
        ("A:16,5,4,40,2,1,0,1,1,1,1,0,0,0", 1204),
        ("A:6,5,4,3,2,1,0,8,8,8,8,8,11,0", 912),
    ] {
        let p = pos(text);
        let moves = legal(&p);
        assert_eq!(moves.len(), n, "{text}");
        assert!(moves.len() <= MAX_KALAH_MOVES);
        assert_eq!(moves.iter().collect::<HashSet<_>>().len(), n);
        assert_eq!(p.count_legal_moves(&mut KalahMoves::new()), n as u64);
        for &mv in &moves {
            assert_eq!(p.parse_move(&p.format_move(mv)), Ok(mv));
            assert!(mv.len() <= 29, "{mv:?}");
        }
    }
}

// ------------------------------------------------------- Dubner's example and game

#[test]
fn the_seeds_worked_example() {
    let start = Kalah::start();
    assert_eq!(seed_rows(&start), "0 6 6 6 6 6 6 / 6 6 6 6 6 6 0");
    let one = start.sow(1).unwrap();
    assert_eq!(seed_rows(&one.position), "0 6 6 6 6 6 6 / 0 7 7 7 7 7 1");
    assert_eq!(one.end, SowingEnd::SowsAgain);
    assert_eq!(one.position.side_to_move(), A);

    let after_a = play(start, "1,2");
    assert_eq!(seed_rows(&after_a), "0 6 6 6 6 7 7 / 0 0 8 8 8 8 2");
    assert_eq!(after_a.side_to_move(), B);
    let after_b = play(after_a, "1");
    assert_eq!(seed_rows(&after_b), "1 7 7 7 7 8 0 / 1 0 8 8 8 8 2");
    assert_eq!(after_b.side_to_move(), A);
    // A's single stone in pit 1 lands in the empty pit 2, facing B's pit 5 (7 stones).
    let capture = after_b.sow(1).unwrap();
    assert_eq!(capture.captured, 8);
    assert_eq!(capture.end, SowingEnd::TurnPasses);
    let after_capture = play(after_b, "1");
    assert_eq!(capture.position, after_capture);
    assert_eq!(seed_rows(&after_capture), "1 7 0 7 7 8 0 / 0 0 8 8 8 8 10");
    assert_eq!(
        after_capture.format_position(),
        "B:0,0,8,8,8,8,10,0,8,7,7,0,7,1"
    );
    assert_eq!(after_capture.pit(B, 5), 0);
    assert_eq!(after_capture.store(A), 10);
    assert_eq!(after_capture.score_margin(), 9);
}

/// Dubner's sample game (MAXLEVEL 5, A first) in its machine pit indices: A 0..5,
/// B 7..12.
const SEED_GAME: [(&str, &str); 13] = [
    ("0 3", "11"),
    ("5", "7"),
    ("2", "11 9"),
    ("3 5", "11"),
    ("2", "12"),
    ("5 3", "8"),
    ("0 5 4 5", "11 10"),
    ("5 4 5 1", "11 9 8"),
    ("2", "10 11 12"),
    ("5", "7"),
    ("4", "9"),
    ("5 3", "9"),
    ("5 4", "10 12 11"),
];

/// A seed index as a pit number 1..6 of its side.
fn seed_pits(indices: &str, side: Side) -> String {
    let offset = if side == A { -1 } else { 6 };
    indices
        .split_whitespace()
        .map(|i| (i.parse::<i32>().unwrap() - offset).to_string())
        .collect::<Vec<_>>()
        .join(",")
}

#[test]
fn the_seeds_sample_game_ends_32_40() {
    let mut p = Kalah::start();
    let mut klh = String::new();
    for (round, (a, b)) in SEED_GAME.iter().enumerate() {
        let a = seed_pits(a, A);
        let b = seed_pits(b, B);
        p = play(p, &a);
        p = play(p, &b);
        klh.push_str(&format!(
            "{:>2}) A: {} B: {}\n",
            round + 1,
            a.replace(',', " "),
            b.replace(',', " ")
        ));
    }
    assert!(p.is_over());
    assert_eq!((p.store(A), p.store(B)), (32, 40));
    assert_eq!(p.counts()[..6], [0; 6]);
    assert_eq!(p.counts()[7..13], [0; 6]);
    assert_eq!(p.outcome_without_moves(), Outcome::Win(B));
    assert!(klh.starts_with(" 1) A: 1 4 B: 5\n 2) A: 6 B: 1\n"), "{klh}");

    // The same game as a game file, with Dubner's final line.
    let text = format!(
        "[Game \"kalah\"]\n[Result \"32-40\"]\n{klh}Stones in the stores at the end: A 32, B 40\n"
    );
    let games = Kalah::read_games(KalahRules::default(), &text).unwrap();
    assert_eq!(games.len(), 1);
    assert_eq!(games[0].moves.len(), 26);
    assert_eq!(games[0].result, Some(Outcome::Win(B)));
    assert_eq!(*games[0].record().position(), p);
    let wrong = text.replace("32-40", "33-39");
    let err = Kalah::read_games(KalahRules::default(), &wrong).unwrap_err();
    assert!(err.contains("line 2") && err.contains("32-40"), "{err}");
    let wrong = text.replace("A 32, B 40", "A 40, B 32");
    assert!(Kalah::read_games(KalahRules::default(), &wrong).is_err());
}

// ------------------------------------------------------------------------ the rules

#[test]
fn capture_needs_stones_opposite_unless_empty_capture() {
    // A's pit 2 holds one stone; pit 3 is empty and faces B's pit 4, empty too.
    let text = "A:0,1,0,5,5,5,20,5,5,5,0,5,5,11";
    let standard = play(pos(text), "2");
    assert_eq!(
        standard.format_position(),
        "B:0,0,1,5,5,5,20,5,5,5,0,5,5,11"
    );
    let variant = pos_of(EMPTY_CAPTURE, text);
    let sown = variant.sow(2).unwrap();
    assert_eq!(sown.captured, 1);
    assert_eq!(
        sown.position.format_position(),
        "B:0,0,0,5,5,5,21,5,5,5,0,5,5,11"
    );
    // With stones opposite both variants capture them.
    let text = "A:0,1,0,5,5,5,20,5,5,5,3,5,5,8";
    for rules in [KalahRules::default(), EMPTY_CAPTURE] {
        let after = play(pos_of(rules, text), "2");
        assert_eq!(after.format_position(), "B:0,0,0,5,5,5,24,5,5,5,0,5,5,8");
    }
    // B's pits face A's the same way: B's pit 1 (one stone) into empty pit 2, facing A's
    // pit 5.
    let after = play(pos("B:5,5,5,5,4,5,10,1,0,5,5,5,5,12"), "1");
    assert_eq!(after.format_position(), "A:5,5,5,5,0,5,10,0,0,5,5,5,5,17");
}

#[test]
fn the_game_ends_when_the_movers_row_empties() {
    // A's last stone ends in A's store: no further sowing, B's stones go to B's store.
    let p = pos("A:0,0,0,0,0,1,30,1,2,3,4,5,6,20");
    assert_eq!(texts(&p), ["6"]);
    let sown = p.sow(6).unwrap();
    assert_eq!(sown.end, SowingEnd::GameOver);
    let end = play(p, "6");
    assert_eq!(sown.position, end);
    assert_eq!(end.format_position(), "B:0,0,0,0,0,0,31,0,0,0,0,0,0,41");
    assert!(end.is_over() && !end.has_legal_move() && legal(&end).is_empty());
    assert_eq!(end.outcome_without_moves(), Outcome::Win(B));
    // The same after a sowing that reaches B's row.
    let end = play(pos("A:0,0,0,0,0,2,30,1,2,3,4,5,6,19"), "6");
    assert_eq!(end.format_position(), "B:0,0,0,0,0,0,31,0,0,0,0,0,0,41");
    // And in the middle of a compound move: 5 ends in the store leaving a stone in
    // pit 6, whose sowing then ends in the store and empties the row.
    let p = pos("A:0,0,0,0,2,0,30,1,2,3,4,5,6,19");
    assert_eq!(texts(&p), ["5,6"]);
    let end = play(p, "5,6");
    assert_eq!(end.format_position(), "B:0,0,0,0,0,0,32,0,0,0,0,0,0,40");
    assert!(matches!(
        p.parse_move("5,6,1"),
        Err(KalahMoveError::GameEnded {
            sowing: 2,
            pit: 6,
            ..
        })
    ));
}

#[test]
fn the_game_ends_when_the_next_player_has_no_stones_and_may_be_drawn() {
    // A's pit 4 stone lands in the empty pit 5 and takes B's last stones (pit 2); B has
    // nothing to sow, so A's pit 1 goes to A's store: 36–36.
    let p = pos("A:2,0,0,1,0,0,30,0,3,0,0,0,0,36");
    let sown = p.sow(4).unwrap();
    assert_eq!((sown.end, sown.captured), (SowingEnd::GameOver, 4));
    let end = play(p, "4");
    assert_eq!(end.format_position(), "B:0,0,0,0,0,0,36,0,0,0,0,0,0,36");
    assert_eq!(end.outcome_without_moves(), Outcome::Draw);
    let mut record = GameRecord::new(p);
    record.play(p.parse_move("4").unwrap());
    assert!(matches!(
        record.status(),
        GameStatus::Over {
            outcome: Outcome::Draw,
            ..
        }
    ));
}

#[test]
fn texts_with_a_row_empty_are_over_and_count_the_rest_to_its_owner() {
    // A to move without stones: B's 6 go to B's store, 33 against 39.
    let p = pos("A:0,0,0,0,0,0,33,1,1,1,1,1,1,33");
    assert!(p.is_over() && legal(&p).is_empty());
    assert_eq!(p.count_legal_moves(&mut KalahMoves::new()), 0);
    assert_eq!(p.final_score(), (33, 39));
    assert_eq!(p.outcome_without_moves(), Outcome::Win(B));
    assert_eq!(p.parse_move("1"), Err(KalahMoveError::GameOver));
    assert_eq!(p.sow(1).unwrap_err(), KalahMoveError::GameOver);
    // A to move with stones but B without: the game is over too (rule 2).
    let p = pos("A:3,0,0,0,0,0,30,0,0,0,0,0,0,39");
    assert!(p.is_over() && !p.has_legal_move());
    assert_eq!(p.outcome_without_moves(), Outcome::Win(B));
    let p = pos("B:0,0,0,0,0,0,40,0,0,0,0,0,0,32");
    assert_eq!(p.outcome_without_moves(), Outcome::Win(A));
}

#[test]
fn laps_of_thirteen_and_more() {
    // 13 stones: one in every slot but B's store, the last back in the emptied pit 1,
    // which captures B's pit 6.
    let p = pos("A:13,1,1,1,1,1,20,1,1,1,1,1,4,25");
    let sown = p.sow(1).unwrap();
    assert_eq!((sown.end, sown.captured), (SowingEnd::TurnPasses, 6));
    assert_eq!(
        play(p, "1").format_position(),
        "B:0,2,2,2,2,2,27,2,2,2,2,2,0,25"
    );
    // 19 stones from pit 1: a lap, then six more, the last in the store: A sows again.
    let p = pos("A:19,0,0,0,0,1,10,1,1,1,1,1,1,36");
    let sown = p.sow(1).unwrap();
    assert_eq!(sown.end, SowingEnd::SowsAgain);
    assert_eq!(
        sown.position.format_position(),
        "A:1,2,2,2,2,3,12,2,2,2,2,2,2,36"
    );
    assert!(
        texts(&p)
            .iter()
            .all(|t| t.starts_with("1,") || t.starts_with("6,"))
    );
    // 14 stones from pit 1: the last lands in pit 2, empty before the sowing but given a
    // stone by the lap: no capture.
    let p = pos("A:14,0,0,0,0,0,10,1,1,1,1,1,1,42");
    let after = play(p, "1");
    assert_eq!(after.format_position(), "B:1,2,1,1,1,1,11,2,2,2,2,2,2,42");
    // B laps too, skipping A's store.
    let p = pos("B:1,1,1,1,1,1,20,13,0,0,0,0,0,33");
    assert_eq!(
        play(p, "1").format_position(),
        "A:2,2,2,2,2,0,20,0,1,1,1,1,1,37"
    );
}

fn texts(p: &Kalah) -> Vec<String> {
    legal(p).iter().map(|&m| p.format_move(m)).collect()
}

#[test]
fn sowing_one_at_a_time_is_playing_the_move() {
    for seed in 0..150 {
        let rules = [KalahRules::default(), FOUR, EMPTY_CAPTURE][seed as usize % 3];
        for p in random_game(rules, seed).positions() {
            for mv in legal(p) {
                let mut current = *p;
                let n = mv.len();
                for (k, pit) in mv.sowings().enumerate() {
                    let sown = current.sow(pit).unwrap();
                    assert_eq!(sown.turn_goes_on(), k + 1 < n, "{mv:?} in {p:?}");
                    current = sown.position;
                }
                assert_eq!(current, p.play(mv));
                assert_eq!(current.side_to_move(), p.side_to_move().opponent());
                assert_eq!(current.stones_total(), rules.total());
            }
        }
    }
}

#[test]
fn random_games_end_with_empty_pits_and_never_repeat() {
    let mut scratch = KalahMoves::new();
    for seed in 0..300 {
        let rules = [KalahRules::default(), FOUR, EMPTY_CAPTURE][seed as usize % 3];
        let record = random_game(rules, 1000 + seed);
        let last = record.position();
        assert!(last.is_over());
        assert_eq!(last.stones_in_pits(A) + last.stones_in_pits(B), 0);
        let positions: HashSet<&Kalah> = record.positions().iter().collect();
        assert_eq!(
            positions.len(),
            record.positions().len(),
            "a position recurred"
        );
        for p in record.positions() {
            assert!(p.is_quiet());
            let n = legal(p).len() as u64;
            assert_eq!(p.count_legal_moves(&mut scratch), n);
            assert_eq!(p.has_legal_move(), n > 0);
            for mv in legal(p) {
                assert!(p.history_index(mv) < Kalah::HISTORY_SIZE);
                assert!(p.is_irreversible(mv));
            }
        }
    }
}

#[test]
fn hash_is_a_function_of_the_position() {
    let mut by_hash: HashMap<u64, Kalah> = HashMap::new();
    let mut transpositions = 0;
    for seed in 0..3000 {
        for p in random_game(KalahRules::default(), 5000 + seed).positions() {
            let rebuilt = Kalah::parse_position(&p.format_position()).unwrap();
            assert_eq!(rebuilt.hash_key(), p.hash_key());
            match by_hash.insert(p.hash_key(), *p) {
                Some(other) if other != *p => panic!("hash collision: {other:?} and {p:?}"),
                Some(_) => transpositions += 1,
                None => {}
            }
        }
    }
    assert!(transpositions > 100, "only {transpositions} repeats");
}

// ----------------------------------------------------------------------- variants

#[test]
fn variants_start_totals_and_names() {
    let four = Kalah::start_of(FOUR);
    assert_eq!(four.stones_total(), 48);
    assert_eq!(four.format_position(), "A:4,4,4,4,4,4,0,4,4,4,4,4,4,0");
    assert_eq!(Kalah::variant_name(FOUR), "kalah:6:4");
    assert_eq!(Kalah::variant_name(KalahRules::default()), "kalah");
    assert_eq!(
        Kalah::variant_name(EMPTY_CAPTURE),
        "kalah:6:6:empty-capture"
    );
    assert_eq!(Kalah::parse_variant("6:4"), Ok(FOUR));
    assert_eq!(Kalah::parse_variant(""), Ok(KalahRules::default()));
    assert_eq!(Kalah::parse_variant("6:6:empty-capture"), Ok(EMPTY_CAPTURE));
    for stones in 1..=6 {
        let rules = KalahRules {
            stones,
            empty_capture: stones % 2 == 0,
        };
        let name = Kalah::variant_name(rules);
        let options = name.strip_prefix("kalah").unwrap().trim_start_matches(':');
        assert_eq!(Kalah::parse_variant(options), Ok(rules));
        assert_eq!(Kalah::start_of(rules).stones_total(), 12 * stones as u32);
    }
    for (bad, field) in [
        ("4", "pits '4'"),
        ("6:9", "stones '9'"),
        ("6:0", "stones '0'"),
        ("6:four", "stones 'four'"),
        ("6:4:capture", "option 'capture'"),
        ("6:4:empty-capture:6", "extra field '6'"),
    ] {
        let err = Kalah::parse_variant(bad).unwrap_err();
        assert!(err.contains(field), "{bad}: {err}");
    }
    // Totals are the variant's.
    let start_text = Kalah::start().format_position();
    assert_eq!(
        Kalah::parse_position_of(FOUR, &start_text),
        Err(KalahPositionError::WrongTotal {
            found: 72,
            rules: FOUR
        })
    );
    assert_eq!(
        Kalah::parse_position_of(FOUR, &four.format_position()),
        Ok(four)
    );
    let err = Kalah::parse_position(&four.format_position()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "kalah position: stones total 48, kalah (6 stones a pit) has 72"
    );
    // Four stones: 1 from the start ends in B's pit; 3 ends in the store.
    assert_eq!(
        texts(&four),
        ["1", "2", "3,1", "3,2", "3,4", "3,5", "3,6", "4", "5", "6"]
    );
}

// ------------------------------------------------------------------ position texts

#[test]
fn position_text_errors_name_what_and_where() {
    use KalahPositionError as E;
    let err = |t: &str| Kalah::parse_position(t).unwrap_err();
    assert_eq!(err(""), E::Empty);
    assert_eq!(err("   "), E::Empty);
    assert_eq!(err(&"A:".repeat(200)), E::TooLong { len: 400 });
    assert_eq!(err("6,6,6,6,6,6,0,6,6,6,6,6,6,0"), E::MissingSide);
    assert_eq!(
        err("C:6,6,6,6,6,6,0,6,6,6,6,6,6,0"),
        E::UnknownSide { found: "C".into() }
    );
    assert_eq!(
        err("A:6,6,6,6,6,6,0,6,6,6,6,6,6"),
        E::FieldCount { found: 13 }
    );
    assert_eq!(
        err("A:6,6,6,6,6,6,0,6,6,6,6,6,6,0,0"),
        E::FieldCount { found: 15 }
    );
    let e = err("A:6,6,6,6,6,6,0,6,x7,6,6,6,6,0");
    assert_eq!(
        e,
        E::NotANumber {
            field: 9,
            found: "x7".into()
        }
    );
    assert_eq!(
        e.to_string(),
        "kalah position field 9 (\"x7\"): not a number"
    );
    assert_eq!(
        err("A:6,6,6,6,6,6,0,6,-1,6,6,6,6,0"),
        E::NotANumber {
            field: 9,
            found: "-1".into()
        }
    );
    assert_eq!(
        err("A:6,6,,6,6,6,0,6,6,6,6,6,6,0"),
        E::NotANumber {
            field: 3,
            found: String::new()
        }
    );
    assert_eq!(
        err("A:73,0,0,0,0,0,0,0,0,0,0,0,0,0"),
        E::CountAboveTotal {
            field: 1,
            found: "73".into(),
            total: 72
        }
    );
    assert_eq!(
        err("A:0,0,0,0,0,0,0,0,0,0,0,0,0,99999999999999999999"),
        E::CountAboveTotal {
            field: 14,
            found: "99999999999999999999".into(),
            total: 72
        }
    );
    let e = err("A:6,6,6,6,6,6,0,6,6,6,6,6,5,0");
    assert_eq!(
        e,
        E::WrongTotal {
            found: 71,
            rules: KalahRules::default()
        }
    );
    assert_eq!(
        e.to_string(),
        "kalah position: stones total 71, kalah (6 stones a pit) has 72"
    );
    let bad_rules = KalahRules {
        stones: 9,
        empty_capture: false,
    };
    assert_eq!(
        Kalah::parse_position_of(bad_rules, "A:0,0,0,0,0,0,0,0,0,0,0,0,0,0"),
        Err(E::BadRules { rules: bad_rules })
    );
    // Every error says something.
    for e in [E::Empty, E::MissingSide, E::FieldCount { found: 3 }] {
        assert!(!e.to_string().is_empty());
    }
}

#[test]
fn positions_round_trip_through_text_and_packing() {
    for seed in 0..200 {
        let rules = [KalahRules::default(), FOUR, EMPTY_CAPTURE][seed as usize % 3];
        let mut all: Vec<Kalah> = random_game(rules, seed).positions().to_vec();
        all.push(random_position(rules, seed));
        for p in all {
            let text = p.format_position();
            assert_eq!(Kalah::parse_position_of(rules, &text), Ok(p), "{text}");
            assert_eq!(Kalah::unpack(&p.pack()), Ok(p));
            assert_eq!(
                Kalah::from_counts(rules, *p.counts(), p.side_to_move()),
                Ok(p)
            );
        }
    }
}

// ---------------------------------------------------------------------- move texts

#[test]
fn move_text_errors_name_what_and_where() {
    use KalahMoveError as E;
    let start = Kalah::start();
    let err = |t: &str| start.parse_move(t).unwrap_err();
    assert_eq!(err(""), E::Empty);
    assert_eq!(err(" \t"), E::Empty);
    assert_eq!(err(&"1".repeat(300)), E::TooLong { len: 300 });
    assert_eq!(
        err(&vec!["1"; MAX_SOWINGS + 1].join(",")),
        E::TooManySowings {
            count: MAX_SOWINGS + 1
        }
    );
    assert_eq!(
        err("1,x"),
        E::NotANumber {
            sowing: 2,
            found: "x".into()
        }
    );
    assert_eq!(
        err("1,"),
        E::NotANumber {
            sowing: 2,
            found: String::new()
        }
    );
    assert_eq!(
        err("7"),
        E::PitOutOfRange {
            sowing: 1,
            found: "7".into()
        }
    );
    assert_eq!(
        err("0"),
        E::PitOutOfRange {
            sowing: 1,
            found: "0".into()
        }
    );
    assert_eq!(err("1,1"), E::EmptyPit { sowing: 2, pit: 1 });
    assert_eq!(err("1,1").to_string(), "sowing 2: pit 1 is empty");
    let e = err("1");
    assert_eq!(
        e.to_string(),
        "the turn goes on after 1: add the next sowing (e.g. 1,2)"
    );
    let e = err("2,3");
    assert_eq!(
        e,
        E::TurnPassed {
            sowing: 1,
            pit: 2,
            text: "2,3".into()
        }
    );
    assert!(
        e.to_string()
            .contains("the turn has passed after sowing 1 (pit 2 of \"2,3\")")
    );
    assert_eq!(
        err("1,2,3"),
        E::TurnPassed {
            sowing: 2,
            pit: 2,
            text: "1,2,3".into()
        }
    );
    let over = pos("B:0,0,0,0,0,0,36,0,0,0,0,0,0,36");
    assert_eq!(over.parse_move("1"), Err(E::GameOver));
    // The single-sowing API reports the same faults.
    assert_eq!(
        start.sow(0).unwrap_err(),
        E::PitOutOfRange {
            sowing: 1,
            found: "0".into()
        }
    );
    let after = play(start, "1,2");
    assert_eq!(
        play(after, "1").sow(2).unwrap_err().to_string(),
        "sowing 1: pit 2 is empty"
    );
}

#[test]
fn every_legal_move_round_trips() {
    for seed in 0..200 {
        let rules = [KalahRules::default(), FOUR, EMPTY_CAPTURE][seed as usize % 3];
        let mut all: Vec<Kalah> = random_game(rules, 300 + seed).positions().to_vec();
        all.push(random_position(rules, 300 + seed));
        for p in all {
            for mv in legal(&p) {
                let text = p.format_move(mv);
                assert_eq!(p.parse_move(&text), Ok(mv), "{text}");
                assert_eq!(p.parse_move(&text.replace(',', " ")), Ok(mv));
                assert_eq!(p.unpack_move(&p.pack_move(mv)), Ok(mv));
                assert_eq!(text.split(',').count(), mv.len());
            }
        }
    }
}

// ----------------------------------------------------------------------- game files

fn saved(record: &GameRecord<Kalah>, seed: u64) -> SavedGame<Kalah> {
    let result = match record.status() {
        GameStatus::Over { outcome, .. } => Some(outcome),
        GameStatus::Ongoing => None,
    };
    let tags = vec![
        ("Event".to_string(), format!("random game {seed}")),
        ("A".to_string(), "random \"mover\"".to_string()),
        ("B".to_string(), "evalearn".to_string()),
    ];
    SavedGame::from_record(record, tags, result)
}

#[test]
fn game_files_round_trip() {
    assert_eq!(Kalah::FILE_EXTENSION, "klh");
    for rules in [KalahRules::default(), FOUR, EMPTY_CAPTURE] {
        let mut games = Vec::new();
        for seed in 0..60 {
            let full = random_game(rules, 7000 + seed);
            // Whole games, unfinished ones, and ones from a position with B to move.
            let cut = (seed as usize * 7) % (full.ply() + 1);
            let mut record = GameRecord::new(full.positions()[seed as usize % 3]);
            for &mv in &full.moves()[seed as usize % 3..cut.max(seed as usize % 3)] {
                record.play(mv);
            }
            let record = if seed % 2 == 0 { full } else { record };
            games.push(saved(&record, seed));
        }
        // An unfinished game with a decided result.
        let mut decided = saved(&GameRecord::new(Kalah::start_of(rules)), 99);
        decided.result = Some(Outcome::Win(B));
        games.push(decided);
        let text: String = games.iter().map(Kalah::write_game).collect();
        let read = Kalah::read_games(rules, &text).unwrap();
        assert_eq!(read.len(), games.len());
        for (a, b) in games.iter().zip(&read) {
            assert_eq!(a.start, b.start);
            assert_eq!(a.moves, b.moves);
            assert_eq!(a.result, b.result, "{}", Kalah::write_game(a));
            assert_eq!(b.tag("A"), Some("random \"mover\""));
            assert_eq!(b.tag("Game"), Some(Kalah::variant_name(rules).as_str()));
            assert_eq!(Kalah::write_game(b), Kalah::write_game(a));
        }
        // Another variant's reader refuses them.
        let other = if rules == FOUR {
            KalahRules::default()
        } else {
            FOUR
        };
        assert!(Kalah::read_games(other, &text).is_err());
    }
}

#[test]
fn game_file_layout() {
    let start = pos("B:6,6,6,6,6,6,0,6,6,6,6,6,6,0");
    let mut record = GameRecord::new(start);
    for text in ["2", "1", "1"] {
        let mv = record.position().parse_move(text).unwrap();
        record.play(mv);
    }
    let mut game = saved(&record, 1);
    game.tags.insert(0, ("Result".into(), "ignored".into()));
    let text = Kalah::write_game(&game);
    assert_eq!(
        text,
        "[Event \"random game 1\"]\n[Game \"kalah\"]\n\
         [Start \"B:6,6,6,6,6,6,0,6,6,6,6,6,6,0\"]\n[A \"random \\\"mover\\\"\"]\n\
         [B \"evalearn\"]\n[Result \"*\"]\n 1) B: 2\n 2) A: 1 B: 1\n\n"
    );
    // Extra whitespace, glued side markers, a blank line after the tags.
    let loose = "\n\n  [Game   \"kalah\" ]  \n[Start \"B:6,6,6,6,6,6,0,6,6,6,6,6,6,0\"]\n\n\
                 1)B:2\n   2)   A:1   B:   1   \n\n\n";
    let read = Kalah::read_games(KalahRules::default(), loose).unwrap();
    assert_eq!(read.len(), 1);
    assert_eq!(read[0].moves, record.moves());
}

#[test]
fn game_file_errors() {
    let rules = KalahRules::default();
    let err = |t: &str| Kalah::read_games(rules, t).unwrap_err();
    for (text, wanted) in [
        (
            " 1) A: 1\n",
            "game 1, line 1: round 1, A's move \"1\": the turn goes on",
        ),
        (
            " 1) A: 1 2 B: 2\n 3) A: 2\n",
            "line 2: round number \"3\", expected 2",
        ),
        (" 1) A: 1 2\n 2) B: 1\n", "line 2: B's move out of place"),
        (" 1) A: 1 2 A: 3\n", "it is B's move here"),
        (" 1) X: 1\n", "expected A: or B:"),
        (
            "[Game \"kalah:6:4\"]\n",
            "the game is kalah:6:4, but kalah is being read",
        ),
        ("[Game \"chess\"]\n", "is not kalah"),
        ("[Start \"A:1\"]\n", "Start tag: kalah position: 1 numbers"),
        ("[Result \"abc\"]\n", "Result \"abc\""),
        ("[Event no quotes]\n", "double quotes"),
        ("hello\n", "found \"hello\""),
        (
            "[Result \"3-4\"]\n 1) A: 1 2\nStones in the stores at the end: A 2, B 0\n",
            "line 3: final stores given, but the game is not over",
        ),
        (
            " 1) A: 1 2\n\n 1) A: 9\n",
            "kalah game 2, line 3: round 1, A's move \"9\"",
        ),
    ] {
        let e = err(text);
        assert!(e.contains(wanted), "{text:?}: {e}");
    }
    assert!(err(&" ".repeat(Kalah::MAX_FILE_BYTES + 1)).contains("bytes"));
    assert_eq!(Kalah::read_games(rules, "\n \n").unwrap(), Vec::new());
}

// -------------------------------------------------------------------------- fuzzing

/// Applies edits (position, 0 insert / 1 delete / 2 replace, character) to `text`.
fn mutate(text: &str, edits: &[(usize, usize, String)]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for (at, kind, c) in edits {
        let at = at % (chars.len() + 1);
        let c = c.chars().next().unwrap_or(' ');
        match kind {
            0 => chars.insert(at, c),
            1 if at < chars.len() => {
                chars.remove(at);
            }
            _ if at < chars.len() => chars[at] = c,
            _ => {}
        }
    }
    chars.into_iter().collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn random_text_is_never_a_panic(text in "\\PC{0,80}") {
        let _ = Kalah::parse_position(&text);
        let _ = Kalah::start().parse_move(&text);
        let _ = Kalah::read_games(KalahRules::default(), &text);
        let _ = Kalah::parse_variant(&text);
    }

    #[test]
    fn random_bytes_are_never_a_panic(bytes in prop::collection::vec(any::<u8>(), 0..120)) {
        let text = String::from_utf8_lossy(&bytes);
        let _ = Kalah::parse_position(&text);
        let _ = Kalah::start().parse_move(&text);
        let _ = Kalah::read_games(FOUR, &text);
    }

    #[test]
    fn position_like_text_parses_or_errs(text in "[AB:, 0-9]{0,60}") {
        if let Ok(p) = Kalah::parse_position(&text) {
            prop_assert_eq!(Kalah::parse_position(&p.format_position()), Ok(p));
            prop_assert_eq!(p.stones_total(), 72);
        }
    }

    #[test]
    fn mutated_positions_parse_or_err(seed in 0u64..2000, edits in prop::collection::vec((0usize..60, 0usize..3, "[AB:, 0-9x]"), 1..4)) {
        let record = random_game(KalahRules::default(), seed);
        let p = record.positions()[seed as usize % record.positions().len()];
        let text = mutate(&p.format_position(), &edits);
        if let Ok(q) = Kalah::parse_position(&text) {
            prop_assert_eq!(Kalah::parse_position(&q.format_position()), Ok(q));
            // Whatever is accepted can be played on without a panic.
            for mv in legal(&q) {
                prop_assert_eq!(q.play(mv).stones_total(), 72);
            }
        }
    }

    #[test]
    fn packed_positions_unpack_or_err(counts in prop::array::uniform14(0u8..80), a in any::<bool>(), stones in 0u8..9, empty in any::<bool>()) {
        let packed = evalearn::games::kalah::PackedKalah { counts, a_to_move: a, stones, empty_capture: empty };
        if let Ok(p) = Kalah::unpack(&packed) {
            prop_assert_eq!(p.pack(), packed);
        }
    }

    #[test]
    fn playing_any_bits_keeps_the_stones(seed in 0u64..2000, bits in any::<u128>()) {
        // Only legal moves may be played, but other bits must not break anything.
        let p = random_position(KalahRules::default(), seed);
        let after = p.play(KalahMove(bits));
        prop_assert_eq!(after.stones_total(), 72);
        prop_assert_eq!(after.side_to_move(), p.side_to_move().opponent());
        prop_assert!(p.history_index(KalahMove(bits)) < Kalah::HISTORY_SIZE);
    }

    #[test]
    fn move_like_text_parses_or_errs(seed in 0u64..2000, text in "[0-9, ]{0,14}") {
        let record = random_game(KalahRules::default(), seed);
        let p = record.positions()[seed as usize % record.positions().len()];
        if let Ok(mv) = p.parse_move(&text) {
            prop_assert!(legal(&p).contains(&mv));
        }
    }

    #[test]
    fn mutated_game_files_parse_or_err(seed in 0u64..500, edits in prop::collection::vec((0usize..1500, 0usize..3, "[\\[\\]\"()AB:0-9 \n*\\-,]"), 1..6)) {
        let record = random_game(KalahRules::default(), seed);
        let text = mutate(&Kalah::write_game(&saved(&record, seed)), &edits);
        if let Ok(games) = Kalah::read_games(KalahRules::default(), &text) {
            for game in games {
                // Whatever is accepted writes back readably.
                let again = Kalah::read_games(KalahRules::default(), &Kalah::write_game(&game));
                prop_assert!(again.is_ok(), "{:?}", again);
            }
        }
    }
}
