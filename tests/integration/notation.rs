//! Round trips of FEN, moves and PDN; the position hash; and malformed text of every kind
//! (random strings and mutations of valid ones) always giving an error, never a panic.

use std::collections::HashMap;

use evalearn::game::{Game, GameRecord, GameStatus, MoveList, Side};
use evalearn::games::brazilian::pdn::{self, PdnGame};
use evalearn::games::brazilian::{Brazilian, Piece, Square};
use proptest::prelude::*;
use rand::{RngExt, SeedableRng, rngs::Xoshiro256PlusPlus};

/// A seeded random game from the start, to its end or `max_plies`.
fn random_game(seed: u64, max_plies: usize) -> GameRecord<Brazilian> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut record = GameRecord::new(Brazilian::start());
    let mut moves = MoveList::new();
    while record.status() == GameStatus::Ongoing && record.ply() < max_plies {
        record.position().legal_moves(&mut moves);
        record.play(moves[rng.random_range(0..moves.len())]);
    }
    record
}

#[test]
fn fen_round_trips_on_random_game_positions() {
    for seed in 0..300 {
        for pos in random_game(seed, 300).positions() {
            let fen = pos.format_position();
            assert_eq!(Brazilian::parse_position(&fen).as_ref(), Ok(pos), "{fen}");
            let algebraic = pos.to_fen_algebraic();
            assert_eq!(
                Brazilian::parse_position(&algebraic).as_ref(),
                Ok(pos),
                "{algebraic}"
            );
            assert_eq!(
                Brazilian::from_pieces(pos.pieces(), pos.side_to_move()).as_ref(),
                Ok(pos)
            );
        }
    }
}

#[test]
fn every_legal_move_round_trips_through_both_notations() {
    let mut moves = MoveList::new();
    for seed in 0..300 {
        for pos in random_game(seed, 300).positions() {
            pos.legal_moves(&mut moves);
            for &mv in moves.iter() {
                let numeric = pos.format_move(mv);
                assert_eq!(pos.parse_move(&numeric), Ok(mv), "{numeric} in {pos:?}");
                let algebraic = pos.format_move_algebraic(mv);
                assert_eq!(pos.parse_move(&algebraic), Ok(mv), "{algebraic}");
            }
        }
    }
}

#[test]
fn pdn_round_trips_random_games() {
    let games: Vec<PdnGame> = (0..200)
        .map(|seed| {
            let record = random_game(1000 + seed, 400);
            let result = match record.status() {
                GameStatus::Over { outcome, .. } => Some(outcome),
                GameStatus::Ongoing => None,
            };
            let tags = vec![
                ("Event".to_string(), format!("random game {seed}")),
                ("White".to_string(), "random \"mover\"".to_string()),
            ];
            PdnGame::from_record(&record, tags, result)
        })
        .collect();
    let text: String = games.iter().map(pdn::write_game).collect();
    let read = pdn::read_games(&text).expect("own PDN reads back");
    assert_eq!(read.len(), games.len());
    for (a, b) in games.iter().zip(&read) {
        assert_eq!(a.start, b.start);
        assert_eq!(a.moves, b.moves);
        assert_eq!(a.result, b.result);
        assert_eq!(a.tag("White"), b.tag("White"));
        assert_eq!(b.record().position(), a.record().position());
        assert_eq!(pdn::write_game(b), pdn::write_game(a));
    }
}

#[test]
fn hash_is_the_same_by_any_move_order() {
    // Every position met in random games: the hash depends on the position only.
    let mut by_hash: HashMap<u64, Brazilian> = HashMap::new();
    let mut transpositions = 0;
    for seed in 0..2000 {
        for pos in random_game(5000 + seed, 200).positions() {
            let rebuilt = Brazilian::from_pieces(pos.pieces(), pos.side_to_move()).unwrap();
            assert_eq!(rebuilt.hash_key(), pos.hash_key());
            match by_hash.insert(pos.hash_key(), *pos) {
                Some(other) if other != *pos => panic!("hash collision: {other:?} and {pos:?}"),
                Some(_) => transpositions += 1,
                None => {}
            }
        }
    }
    assert!(
        transpositions > 1000,
        "only {transpositions} positions met twice"
    );
    assert_ne!(
        Brazilian::start().hash_key(),
        Brazilian::start()
            .with_side_to_move(Side::Second)
            .hash_key()
    );
}

/// Two orders of the same quiet moves on disjoint squares (a, r, b and b, r, a) reach the
/// same position and hash.
#[test]
fn hash_of_transposed_move_orders() {
    let mut checked = 0;
    let (mut first, mut reply, mut third) = (MoveList::new(), MoveList::new(), MoveList::new());
    for seed in 0..3000 {
        for pos in random_game(seed, 40).positions() {
            pos.legal_moves(&mut first);
            if first.len() < 2 || first[0].is_capture() {
                continue;
            }
            let (a, b) = (first[0], first[first.len() - 1]);
            let after_a = pos.play(a);
            after_a.legal_moves(&mut reply);
            let Some(&r) = reply.first() else { continue };
            let squares = |m: <Brazilian as Game>::Move| [m.from(), m.to()];
            let disjoint = squares(a)
                .iter()
                .chain(&squares(b))
                .chain(&squares(r))
                .collect::<std::collections::HashSet<_>>()
                .len()
                == 6;
            if r.is_capture() || !disjoint {
                continue;
            }
            let one = after_a.play(r);
            one.legal_moves(&mut third);
            if !third.contains(&b) {
                continue;
            }
            let via_a = one.play(b);
            let after_b = pos.play(b);
            after_b.legal_moves(&mut reply);
            if !reply.contains(&r) {
                continue;
            }
            let two = after_b.play(r);
            two.legal_moves(&mut third);
            if !third.contains(&a) {
                continue;
            }
            let via_b = two.play(a);
            assert_eq!(via_a, via_b);
            assert_eq!(via_a.hash_key(), via_b.hash_key());
            checked += 1;
        }
    }
    assert!(checked > 10_000, "only {checked} transpositions checked");
}

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
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn random_text_is_never_a_panic(text in "\\PC{0,80}") {
        let _ = Brazilian::parse_position(&text);
        let _ = Brazilian::start().parse_move(&text);
        let _ = pdn::read_games(&text);
    }

    #[test]
    fn fen_like_text_parses_or_errs(text in "[WBK:,0-9a-hx\\- .]{0,60}") {
        if let Ok(pos) = Brazilian::parse_position(&text) {
            // Whatever is accepted prints back to a FEN that reads the same.
            prop_assert_eq!(Brazilian::parse_position(&pos.format_position()), Ok(pos));
        }
    }

    #[test]
    fn mutated_fen_parses_or_errs(seed in 0u64..5000, edits in prop::collection::vec((0usize..200, 0usize..3, "[WBK:,0-9a-h\\-x. ]"), 1..4)) {
        let record = random_game(seed, 60);
        let text = mutate(&record.position().format_position(), &edits);
        if let Ok(pos) = Brazilian::parse_position(&text) {
            prop_assert_eq!(Brazilian::parse_position(&pos.format_position()), Ok(pos));
        }
    }

    #[test]
    fn move_like_text_parses_or_errs(seed in 0u64..5000, text in "[0-9a-hx\\-: ]{0,12}") {
        let record = random_game(seed, 40);
        let pos = record.position();
        if let Ok(mv) = pos.parse_move(&text) {
            let mut moves = MoveList::new();
            pos.legal_moves(&mut moves);
            prop_assert!(moves.contains(&mv));
        }
    }

    #[test]
    fn mutated_pdn_parses_or_errs(seed in 0u64..1000, edits in prop::collection::vec((0usize..4000, 0usize..3, "[\\[\\]{}()\";%$0-9a-hx\\-. \n*/]"), 1..6)) {
        let record = random_game(seed, 80);
        let game = PdnGame::from_record(&record, Vec::new(), None);
        let text = mutate(&pdn::write_game(&game), &edits);
        if let Ok(games) = pdn::read_games(&text) {
            for game in games {
                // Whatever is accepted replays and writes back readably.
                let again = pdn::read_games(&pdn::write_game(&game));
                prop_assert!(again.is_ok(), "{:?}", again);
            }
        }
    }
}

#[test]
fn squares_and_pieces_accessors_agree() {
    let pos = Brazilian::parse_position("B:WK3,22:B12,K29").unwrap();
    let sq = |n| Square::from_number(n).unwrap();
    assert_eq!(pos.piece_at(sq(3)), Some(Piece::King(Side::First)));
    assert_eq!(pos.piece_at(sq(22)), Some(Piece::Man(Side::First)));
    assert_eq!(pos.piece_at(sq(12)), Some(Piece::Man(Side::Second)));
    assert_eq!(pos.piece_at(sq(29)), Some(Piece::King(Side::Second)));
    assert_eq!(pos.piece_at(sq(1)), None);
    assert_eq!(pos.pieces().count(), 4);
}
