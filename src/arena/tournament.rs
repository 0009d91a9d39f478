//! Round robins: every pair of players plays one paired match (the same openings for
//! every pair), and the results become one table and one rating list.
//!
//! Ratings are the maximum-likelihood Bradley–Terry fit of all games (a draw counts as
//! half a win for each side), in Elo relative to one player, the anchor. One virtual draw is
//! added to every pair so that a player who won or lost every game still gets a finite
//! rating; with 400 games a pair it moves ratings by well under one Elo.

use serde::Serialize;

use super::stats::{Estimate, Trinomial};

/// The result of one pair of players: `a` and `b` are indices into the players.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct PairingResult {
    pub a: usize,
    pub b: usize,
    /// Game totals from `a`'s side.
    pub games: Trinomial,
    /// `a`'s score and Elo difference with its interval (pentanomial, as `match`).
    pub estimate: Estimate,
}

/// Every pair `(i, j)` with `i < j` of `n` players, in table order: the first player
/// against each other, then the second, and so on.
pub fn pairings(n: usize) -> Vec<(usize, usize)> {
    (0..n)
        .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
        .collect()
}

/// Ratings of `n` players in Elo relative to player `anchor`, fitted to all results.
pub fn ratings(n: usize, results: &[PairingResult], anchor: usize) -> Vec<f64> {
    if anchor >= n {
        return vec![0.0; n];
    }
    // points[i][j]: i's points against j, one virtual draw included.
    let mut points = vec![vec![0.0f64; n]; n];
    let mut games = vec![vec![0.0f64; n]; n];
    for (i, j) in pairings(n) {
        points[i][j] += 0.5;
        points[j][i] += 0.5;
        games[i][j] += 1.0;
        games[j][i] += 1.0;
    }
    for r in results {
        let total = r.games.games() as f64;
        let a_points = r.games.points();
        points[r.a][r.b] += a_points;
        points[r.b][r.a] += total - a_points;
        games[r.a][r.b] += total;
        games[r.b][r.a] += total;
    }
    // Hunter's minorisation–maximisation iteration for the Bradley–Terry strengths.
    let mut strength = vec![1.0f64; n];
    for _ in 0..10_000 {
        let mut largest_change = 0.0f64;
        for i in 0..n {
            let won: f64 = points[i].iter().sum();
            let expected: f64 = (0..n)
                .filter(|&j| j != i && games[i][j] > 0.0)
                .map(|j| games[i][j] / (strength[i] + strength[j]))
                .sum();
            if expected > 0.0 {
                let next = won / expected;
                largest_change = largest_change.max((next / strength[i]).ln().abs());
                strength[i] = next;
            }
        }
        let scale = strength[anchor];
        strength.iter_mut().for_each(|s| *s /= scale);
        if largest_change < 1e-12 {
            break;
        }
    }
    strength
        .iter()
        .map(|s| 400.0 * s.log10())
        .map(|elo| if elo == 0.0 { 0.0 } else { elo })
        .collect()
}

/// The round robin as Markdown: one row per pair, then the ratings, best first.
pub fn markdown(
    names: &[String],
    results: &[PairingResult],
    ratings: &[f64],
    anchor: usize,
) -> String {
    let mut text = String::from(
        "| A | B | W–D–L for A | Score | Elo (A − B), 95% interval |\n|---|---|---|---|---|\n",
    );
    for r in results {
        let e = &r.estimate;
        let elo = match (e.interval_rounded(0), e.unmeasured()) {
            (Some((low, high)), _) => {
                format!("{} [{}, {}]", signed(e.elo), signed(low), signed(high))
            }
            (None, why) => format!("n/a ({})", why.unwrap_or_default()),
        };
        text.push_str(&format!(
            "| {} | {} | {}–{}–{} | {:.1}% | {elo} |\n",
            names[r.a],
            names[r.b],
            r.games.wins,
            r.games.draws,
            r.games.losses,
            100.0 * e.score,
        ));
    }
    let mut order: Vec<usize> = (0..names.len()).collect();
    order.sort_by(|&i, &j| ratings[j].total_cmp(&ratings[i]));
    let list: Vec<String> = order
        .iter()
        .map(|&i| format!("{} {}", names[i], signed(ratings[i])))
        .collect();
    text.push_str(&format!(
        "\nRatings (Elo relative to {}, fitted to all games): **{}**\n",
        names[anchor],
        list.join(", ")
    ));
    text
}

/// An Elo figure with its sign (`−` for negatives, as the README writes them).
fn signed(elo: f64) -> String {
    let rounded = elo.round();
    if rounded < 0.0 {
        format!("−{}", -rounded)
    } else if rounded > 0.0 {
        format!("+{rounded}")
    } else {
        "0".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::stats::score_from_elo;

    fn result(a: usize, b: usize, wins: u64, draws: u64, losses: u64) -> PairingResult {
        let games = Trinomial::new(wins, draws, losses);
        PairingResult {
            a,
            b,
            games,
            estimate: games.estimate(),
        }
    }

    #[test]
    fn a_pairing_of_one_result_has_no_interval_in_the_table() {
        let names = vec!["a".to_string(), "b".to_string()];
        let results = [result(0, 1, 0, 4, 0), result(0, 1, 3, 0, 1)];
        let table = markdown(&names, &results, &[0.0, 0.0], 0);
        assert!(
            table.contains("| 0–4–0 | 50.0% | n/a (all 4 games drawn) |"),
            "{table}"
        );
        let row = table.lines().find(|l| l.contains("| 3–0–1 |")).unwrap();
        assert!(row.contains(" [") && !row.contains("n/a"), "{table}");
    }

    #[test]
    fn every_pair_once_in_table_order() {
        assert_eq!(pairings(3), vec![(0, 1), (0, 2), (1, 2)]);
        assert_eq!(pairings(4).len(), 6);
        assert!(pairings(1).is_empty());
    }

    #[test]
    fn ratings_follow_consistent_results() {
        // B scores 76% against A, C scores 76% against B: C ≈ 2 × 200 Elo over A when
        // C also scores what that predicts against A.
        let step = score_from_elo(200.0);
        let c_over_a = score_from_elo(400.0);
        let games = 10_000.0;
        let of = |score: f64| (score * games).round() as u64;
        let results = [
            result(0, 1, of(1.0 - step), 0, of(step)),
            result(0, 2, of(1.0 - c_over_a), 0, of(c_over_a)),
            result(1, 2, of(1.0 - step), 0, of(step)),
        ];
        let r = ratings(3, &results, 0);
        assert_eq!(r[0], 0.0);
        assert!((r[1] - 200.0).abs() < 2.0, "{r:?}");
        assert!((r[2] - 400.0).abs() < 2.0, "{r:?}");
    }

    #[test]
    fn a_perfect_score_still_gets_a_finite_rating() {
        let r = ratings(2, &[result(0, 1, 0, 0, 400)], 0);
        assert!(r[1].is_finite() && r[1] > 400.0, "{r:?}");
        let even = ratings(2, &[result(0, 1, 10, 380, 10)], 1);
        assert!(even[1].abs() < 1e-6, "{even:?}");
    }

    #[test]
    fn the_table_has_a_row_per_pair_and_ratings_best_first() {
        let names = vec!["td".to_string(), "material".to_string()];
        let results = [result(0, 1, 313, 40, 47)];
        let r = ratings(2, &results, 1);
        assert_eq!(r[1], 0.0);
        let table = markdown(&names, &results, &r, 1);
        assert!(
            table.contains("| td | material | 313–40–47 | 83.2% |"),
            "{table}"
        );
        assert!(table.contains("relative to material"), "{table}");
        let ratings_line = table.lines().last().unwrap();
        assert!(
            ratings_line.find("td +").unwrap() < ratings_line.find("material 0").unwrap(),
            "{table}"
        );
    }
}
