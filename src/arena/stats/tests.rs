use super::*;

const EPS: f64 = 1e-6;

fn assert_close(actual: f64, expected: f64, tolerance: f64) {
    assert!(
        (actual - expected).abs() <= tolerance,
        "expected {expected}, got {actual} (tolerance {tolerance})"
    );
}

fn assert_finite(e: &Estimate) {
    for value in [e.score, e.elo, e.elo_low, e.elo_high, e.los] {
        assert!(value.is_finite(), "non-finite value in {e:?}");
    }
    if let Some(d) = e.draw_ratio {
        assert!(d.is_finite(), "non-finite draw ratio in {e:?}");
    }
    assert!(e.elo_low <= e.elo && e.elo <= e.elo_high, "{e:?}");
    assert!((0.0..=1.0).contains(&e.los), "{e:?}");
}

// --- Elo model ---

#[test]
fn elo_of_three_quarters_is_400_log10_3() {
    // s/(1 − s) = 0.75/0.25 = 3, so Elo = 400·log10(3) = 190.848501887…
    assert_close(elo_from_score(0.75), 400.0 * 3f64.log10(), 1e-12);
    assert_close(elo_from_score(0.75), 190.848_501_887_864_98, 1e-9);
    assert_close(elo_from_score(0.25), -190.848_501_887_864_98, 1e-9);
    assert_eq!(elo_from_score(0.5), 0.0);
    assert_close(score_from_elo(400.0 * 3f64.log10()), 0.75, 1e-12);
    // 400 Elo: 10^1 = 10 times the odds, s = 10/11.
    assert_close(score_from_elo(400.0), 10.0 / 11.0, 1e-12);
}

#[test]
fn score_and_elo_round_trip() {
    for elo in [-800.0, -190.0, -35.5, -1.0, 0.0, 0.25, 10.0, 123.4, 700.0] {
        assert_close(elo_from_score(score_from_elo(elo)), elo, 1e-9);
    }
    for score in [0.001, 0.1, 0.37, 0.5, 0.62, 0.9, 0.999] {
        assert_close(score_from_elo(elo_from_score(score)), score, 1e-12);
    }
}

#[test]
fn raw_elo_model_saturates_without_nan() {
    assert_eq!(elo_from_score(1.0), f64::INFINITY);
    assert_eq!(elo_from_score(0.0), f64::NEG_INFINITY);
    assert_eq!(elo_from_score(1.5), f64::INFINITY);
    assert_eq!(elo_from_score(-0.5), f64::NEG_INFINITY);
    assert_eq!(score_from_elo(1e6), 1.0);
    assert_eq!(score_from_elo(-1e6), 0.0);
}

// --- erf ---

#[test]
fn erf_matches_known_values() {
    // Reference values to 16 digits (e.g. mpmath / glibc).
    let table = [
        (0.1, 0.1124629160182849, 0.8875370839817152),
        (0.5, 0.5204998778130465, 0.4795001221869535),
        (1.0, 0.8427007929497149, 0.15729920705028513),
        (1.5, 0.9661051464753108, 0.033894853524689274),
        (2.0, 0.9953222650189527, 0.004677734981047265),
        (3.0, 0.9999779095030014, 2.2090496998585438e-05),
        (4.0, 0.9999999845827421, 1.541725790028002e-08),
        (5.0, 0.9999999999984626, 1.5374597944280351e-12),
    ];
    for (x, erf_x, erfc_x) in table {
        assert_close(erf(x), erf_x, 1e-15);
        assert_close(erf(-x), -erf_x, 1e-15);
        // erfc is checked relatively: the tail is what it is for.
        assert_close(erfc(x) / erfc_x, 1.0, 1e-14);
        assert_close(erfc(-x), 2.0 - erfc_x, 1e-15);
    }
    assert_eq!(erf(0.0), 0.0);
    assert_eq!(erfc(0.0), 1.0);
    assert_close(erfc(6.0) / 2.1519736712498916e-17, 1.0, 1e-13);
    assert_eq!(erf(f64::INFINITY), 1.0);
    assert_eq!(erf(f64::NEG_INFINITY), -1.0);
    assert_eq!(erfc(30.0), 0.0);
}

/// erf by a series with positive terms only (no cancellation):
/// erf(x) = (2/√π)·e^(−x²)·Σₙ 2ⁿ·x^(2n+1) / (1·3·…·(2n+1)).
fn erf_by_series(x: f64) -> f64 {
    let mut term = x;
    let mut sum = x;
    let mut n = 0.0;
    while term > 1e-18 * sum {
        n += 1.0;
        term *= 2.0 * x * x / (2.0 * n + 1.0);
        sum += term;
    }
    std::f64::consts::FRAC_2_SQRT_PI * (-x * x).exp() * sum
}

#[test]
fn erf_agrees_with_series_across_branches() {
    // Covers the three branches and their joins at 0.46875 and 4.
    let mut x = 0.01;
    while x < 5.0 {
        assert_close(erf(x), erf_by_series(x), 1e-14);
        x += 0.0123;
    }
    for x in [0.46875, 0.468_750_001, 4.0, 4.000_000_001] {
        assert_close(erf(x), erf_by_series(x), 1e-14);
    }
}

#[test]
fn normal_cdf_known_values() {
    assert_eq!(normal_cdf(0.0), 0.5);
    assert_close(normal_cdf(1.96), 0.9750021048517795, 1e-15);
    assert_close(normal_cdf(-1.0), 0.15865525393145707, 1e-15);
    assert_close(normal_cdf(-8.0) / 6.220960574271819e-16, 1.0, 1e-12);
}

// --- Estimates ---

#[test]
fn trinomial_60_20_20() {
    // n = 100 games, points = 60 + 20/2 = 70, score m = 0.7.
    // Per-game variance: 0.6·(1 − 0.7)² + 0.2·(0.5 − 0.7)² + 0.2·(0 − 0.7)²
    //                  = 0.6·0.09 + 0.2·0.04 + 0.2·0.49 = 0.054 + 0.008 + 0.098 = 0.16.
    // stderr = √(0.16/100) = 0.04; 1.96·0.04 = 0.0784 → scores [0.6216, 0.7784].
    // Elo  = 400·log10(0.7/0.3)       = 147.190714…
    // low  = 400·log10(0.6216/0.3784) =  86.223951…
    // high = 400·log10(0.7784/0.2216) = 218.253228…
    // LOS = Φ((w − l)/√(w + l)) = Φ(40/√80) = ½(1 + erf(40/√160)) = 0.999996127…
    let e = Trinomial::new(60, 20, 20).estimate();
    assert_eq!(e.games, 100);
    assert_close(e.score, 0.7, 1e-12);
    assert_close(e.elo, 400.0 * (0.7f64 / 0.3).log10(), 1e-9);
    assert_close(e.elo, 147.190_714_117_837_73, EPS);
    assert_close(e.elo_low, 400.0 * (0.6216f64 / 0.3784).log10(), 1e-9);
    assert_close(e.elo_low, 86.223_951_225_241_02, EPS);
    assert_close(e.elo_high, 400.0 * (0.7784f64 / 0.2216).log10(), 1e-9);
    assert_close(e.elo_high, 218.253_228_481_561_3, EPS);
    assert_close(e.los, 0.5 * (1.0 + erf(40.0 / 160f64.sqrt())), 1e-15);
    assert_close(e.los, 0.999_996_127_891_784_5, 1e-12);
    assert_eq!(e.draw_ratio, Some(0.2));
    assert_finite(&e);
}

#[test]
fn los_10_wins_5_losses_is_classic_formula() {
    // (w − l)/√(2(w + l)) = 5/√30; draws do not matter.
    let expected = 0.5 * (1.0 + erf(5.0 / 30f64.sqrt()));
    assert_close(expected, 0.901_647_198_770_526_6, 1e-12);
    for draws in [0, 7, 100] {
        assert_close(Trinomial::new(10, draws, 5).estimate().los, expected, 1e-12);
    }
    // Swapping wins and losses mirrors it.
    assert_close(
        Trinomial::new(5, 3, 10).estimate().los,
        1.0 - expected,
        1e-12,
    );
}

#[test]
fn pentanomial_example() {
    // counts [1, 8, 32, 28, 31]: 100 pairs, 200 games.
    // Pair scores x = points/2 ∈ {0, ¼, ½, ¾, 1}:
    // Σx  = 0·1 + 0.25·8 + 0.5·32 + 0.75·28 + 1·31 = 0 + 2 + 16 + 21 + 31 = 70 → m = 0.7.
    // Σx² = 0.0625·8 + 0.25·32 + 0.5625·28 + 1·31 = 0.5 + 8 + 15.75 + 31 = 55.25
    // v = 55.25/100 − 0.7² = 0.5525 − 0.49 = 0.0625 (per pair).
    // stderr = √(0.0625/100) = 0.025; 1.96·0.025 = 0.049 → scores [0.651, 0.749].
    // Elo  = 400·log10(0.7/0.3)     = 147.190714…
    // low  = 400·log10(0.651/0.349) = 108.302225…
    // high = 400·log10(0.749/0.251) = 189.923238…
    // LOS: v₀ = v + (m − ½)² = 0.0625 + 0.04 = 0.1025, z = 0.2/√(0.1025/100) = 6.2470…,
    //      Φ(z) = 0.99999999979…
    let p = Pentanomial::new([1, 8, 32, 28, 31]);
    assert_eq!(p.pairs(), 100);
    assert_eq!(p.games(), 200);
    assert_close(p.points(), 140.0, 1e-12);
    let e = p.estimate();
    assert_eq!(e.games, 200);
    assert_close(e.score, 0.7, 1e-12);
    assert_close(e.elo, 147.190_714_117_837_73, EPS);
    assert_close(e.elo_low, 400.0 * (0.651f64 / 0.349).log10(), 1e-9);
    assert_close(e.elo_low, 108.302_224_643_604_75, EPS);
    assert_close(e.elo_high, 400.0 * (0.749f64 / 0.251).log10(), 1e-9);
    assert_close(e.elo_high, 189.923_238_487_371_35, EPS);
    assert_close(e.los, normal_cdf(0.2 / (0.1025f64 / 100.0).sqrt()), 1e-15);
    assert_close(e.los, 0.999_999_999_790_728_2, 1e-12);
    assert_eq!(e.draw_ratio, None);
    assert_finite(&e);
}

#[test]
fn tallies_from_pairs() {
    use GameResult::{Draw, Loss, Win};
    let pairs = [
        (Win, Loss),  // 1 point
        (Draw, Draw), // 1 point
        (Win, Draw),  // 1½
        (Win, Win),   // 2
        (Loss, Draw), // ½
    ];
    let tally = MatchTally::from_pairs(pairs);
    assert_eq!(tally.pentanomial.counts, [0, 1, 2, 1, 1]);
    assert_eq!(tally.pentanomial, Pentanomial::from_pairs(pairs));
    assert_eq!(tally.trinomial, Trinomial::new(4, 4, 2));
    assert_eq!(
        tally.trinomial,
        Trinomial::from_results(pairs.iter().flat_map(|&(a, b)| [a, b]))
    );
    // Both tallies count the same points: 4 + 4/2 = 6 = 1 + 1 + 1.5 + 2 + 0.5.
    assert_close(tally.trinomial.points(), 6.0, 1e-12);
    assert_close(tally.pentanomial.points(), 6.0, 1e-12);
    let e = tally.estimate();
    assert_eq!(e.games, 10);
    assert_close(e.score, 0.6, 1e-12);
    assert_eq!(e.draw_ratio, Some(0.4));
    assert_eq!(
        e,
        Estimate {
            draw_ratio: Some(0.4),
            ..tally.pentanomial.estimate()
        }
    );
}

#[test]
fn game_result_from_outcome() {
    assert_eq!(
        GameResult::from_outcome(Outcome::Win(Side::First), Side::First),
        GameResult::Win
    );
    assert_eq!(
        GameResult::from_outcome(Outcome::Win(Side::First), Side::Second),
        GameResult::Loss
    );
    assert_eq!(
        GameResult::from_outcome(Outcome::Draw, Side::Second),
        GameResult::Draw
    );
}

#[test]
fn all_draws() {
    // Variance 0 and mean ½: interval collapses to [0, 0], LOS ½.
    let neutral = |e: Estimate| {
        assert_eq!(e.score, 0.5);
        assert_eq!((e.elo, e.elo_low, e.elo_high), (0.0, 0.0, 0.0));
        assert_eq!(e.los, 0.5);
        assert_finite(&e);
    };
    let t = Trinomial::new(0, 30, 0).estimate();
    assert_eq!(t.draw_ratio, Some(1.0));
    neutral(t);
    neutral(Pentanomial::new([0, 0, 15, 0, 0]).estimate());
}

#[test]
fn all_wins_and_all_losses() {
    // 10 wins of 10: score 1 → clamped to 1 − 1/20 = 0.95 → Elo 400·log10(19) = 511.501…;
    // variance 0, so the interval is that point. LOS: v₀ = ¼, z = ½/√(¼/10) = √10.
    let wins = Trinomial::new(10, 0, 0).estimate();
    let elo_19 = 400.0 * 19f64.log10();
    assert_close(elo_19, 511.501_440_381_131_4, 1e-9);
    assert_eq!(wins.score, 1.0);
    assert_close(wins.elo, elo_19, 1e-9);
    assert_close(wins.elo_low, elo_19, 1e-9);
    assert_close(wins.elo_high, elo_19, 1e-9);
    assert_close(wins.los, normal_cdf(10f64.sqrt()), 1e-15);
    assert_finite(&wins);

    let losses = Trinomial::new(0, 0, 10).estimate();
    assert_eq!(losses.score, 0.0);
    assert_close(losses.elo, -elo_19, 1e-9);
    assert_close(losses.elo_high, -elo_19, 1e-9);
    assert_close(losses.los, normal_cdf(-(10f64.sqrt())), 1e-15);
    assert_finite(&losses);

    // 5 pairs won 2–0: 10 games, the same clamp.
    let pair_wins = Pentanomial::new([0, 0, 0, 0, 5]).estimate();
    assert_close(pair_wins.elo, elo_19, 1e-9);
    assert_close(pair_wins.elo_low, elo_19, 1e-9);
    assert_finite(&pair_wins);
    let pair_losses = Pentanomial::new([5, 0, 0, 0, 0]).estimate();
    assert_close(pair_losses.elo, -elo_19, 1e-9);
    assert_finite(&pair_losses);

    // One game decides nothing: the clamp interval is {½}.
    let single = Trinomial::new(1, 0, 0).estimate();
    assert_eq!(
        (single.elo, single.elo_low, single.elo_high),
        (0.0, 0.0, 0.0)
    );
    assert_finite(&single);
}

#[test]
fn interval_bounds_beyond_0_or_1_are_clamped() {
    // 9 W, 1 L: m = 0.9, v = 0.09, stderr = 0.3/√10 = 0.0949, high = 1.086 > 1
    // → clamped to 0.95 → 400·log10(19).
    let e = Trinomial::new(9, 0, 1).estimate();
    assert_close(e.elo_high, 400.0 * 19f64.log10(), 1e-9);
    assert_close(e.elo, 400.0 * 9f64.log10(), 1e-9);
    assert_finite(&e);
}

#[test]
fn zero_width_intervals_are_never_given() {
    let text = |e: Estimate| e.elo_text(1);
    assert_eq!(text(MatchTally::default().estimate()), "n/a (no games)");
    let pairs = |pairs: &[(GameResult, GameResult)]| {
        MatchTally::from_pairs(pairs.iter().copied()).estimate()
    };
    use GameResult::{Draw, Loss, Win};
    assert_eq!(text(pairs(&[(Draw, Draw)])), "n/a (both games drawn)");
    assert_eq!(text(pairs(&[(Win, Loss)])), "n/a (a single pair)");
    assert_eq!(text(pairs(&[(Loss, Loss); 20])), "n/a (all 40 games lost)");
    assert_eq!(text(pairs(&[(Win, Win); 3])), "n/a (all 6 games won)");
    assert_eq!(
        text(pairs(&[(Win, Loss), (Draw, Draw), (Loss, Win)])),
        "n/a (all 3 pairs scored 1–1)"
    );
    assert_eq!(
        text(pairs(&[(Draw, Loss), (Loss, Draw)])),
        "n/a (all 2 pairs scored ½–1½)"
    );
    assert_eq!(
        Trinomial::new(1, 0, 0).estimate().unmeasured().as_deref(),
        Some("the only game won")
    );
    // Every other small match has an interval of positive width, also as printed.
    for counts in (0..4u64.pow(5)).map(|i| {
        let mut c = [0; 5];
        (0..5).fold(i, |rest, k| {
            c[k] = rest % 4;
            rest / 4
        });
        c
    }) {
        let e = Pentanomial::new(counts).estimate();
        match e.interval_rounded(1) {
            Some((low, high)) => {
                assert!(low < high, "{counts:?}: {e:?}");
                assert!(low <= e.elo && e.elo <= high, "{counts:?}: {e:?}");
                assert!(!e.elo_text(1).contains("n/a"), "{counts:?}");
            }
            None => assert!(e.elo_text(1).starts_with("n/a ("), "{counts:?}"),
        }
    }
}

#[test]
fn printed_intervals_are_rounded_outwards() {
    let e = Estimate {
        games: 100,
        score: 0.5,
        elo: 0.015,
        elo_low: 0.01,
        elo_high: 0.02,
        los: 0.5,
        draw_ratio: None,
    };
    assert_eq!(e.elo_text(1), "+0.0 [+0.0, +0.1]");
    let e = Estimate {
        elo: -3.3,
        elo_low: -3.31,
        elo_high: -3.29,
        ..e
    };
    assert_eq!(e.elo_text(1), "-3.3 [-3.4, -3.2]");
    assert_eq!(e.elo_text(0), "-3 [-4, -3]");
}

#[test]
fn zero_games() {
    for e in [
        Trinomial::default().estimate(),
        Pentanomial::default().estimate(),
        MatchTally::default().estimate(),
    ] {
        assert_eq!(e.games, 0);
        assert_eq!(e.score, 0.5);
        assert_eq!((e.elo, e.elo_low, e.elo_high), (0.0, 0.0, 0.0));
        assert_eq!(e.los, 0.5);
        assert_finite(&e);
    }
    assert_eq!(Trinomial::default().estimate().draw_ratio, Some(0.0));
}

#[test]
fn no_nan_on_many_small_tallies() {
    for w in 0..6 {
        for d in 0..6 {
            for l in 0..6 {
                assert_finite(&Trinomial::new(w, d, l).estimate());
            }
        }
    }
    for a in 0..3 {
        for b in 0..3 {
            for c in 0..3 {
                for d in 0..3 {
                    for e in 0..3 {
                        assert_finite(&Pentanomial::new([a, b, c, d, e]).estimate());
                    }
                }
            }
        }
    }
    let huge = Trinomial::new(u64::MAX, u64::MAX, 1).estimate();
    assert_finite(&huge);
    assert_finite(&Pentanomial::new([u64::MAX; 5]).estimate());
}

#[test]
fn estimate_serializes_to_json() {
    let json = serde_json::to_string(&Trinomial::new(60, 20, 20).estimate()).unwrap();
    assert!(json.contains("\"games\":100"), "{json}");
    assert!(json.contains("\"draw_ratio\":0.2"), "{json}");
    let json = serde_json::to_string(&Pentanomial::default().estimate()).unwrap();
    assert!(json.contains("\"draw_ratio\":null"), "{json}");
}

// --- SPRT ---

fn params(text: &str) -> SprtParams {
    SprtParams::parse(text).unwrap()
}

#[test]
fn sprt_bounds_for_five_percent_are_ln_19() {
    // ln(0.05/0.95) = −ln 19, ln(0.95/0.05) = ln 19 = 2.944438979…
    let p = params("0,10,0.05,0.05");
    assert_close(p.lower_bound(), -(19f64.ln()), 1e-12);
    assert_close(p.upper_bound(), 19f64.ln(), 1e-12);
    assert_close(p.upper_bound(), 2.944_438_979_166_44, 1e-12);
    // Asymmetric: alpha 0.05, beta 0.1 → ln(0.1/0.95), ln(0.9/0.05) = ln 18.
    let q = params("0,5,0.05,0.1");
    assert_close(q.lower_bound(), (0.1f64 / 0.95).ln(), 1e-12);
    assert_close(q.upper_bound(), 18f64.ln(), 1e-12);
}

#[test]
fn sprt_decisions_at_the_bounds() {
    let p = params("0,10,0.05,0.05");
    let (lower, upper) = (p.lower_bound(), p.upper_bound());
    assert_eq!(p.decide(upper), SprtDecision::AcceptH1);
    assert_eq!(p.decide(upper + 1.0), SprtDecision::AcceptH1);
    assert_eq!(p.decide(lower), SprtDecision::AcceptH0);
    assert_eq!(p.decide(lower - 1.0), SprtDecision::AcceptH0);
    assert_eq!(p.decide(0.0), SprtDecision::Continue);
    assert_eq!(p.decide(upper - 1e-9), SprtDecision::Continue);
    assert_eq!(p.decide(lower + 1e-9), SprtDecision::Continue);
}

#[test]
fn sprt_llr_trinomial_by_hand() {
    // 12 W, 20 D, 8 L: N = 40, m = (12 + 10)/40 = 0.55,
    // v = (12·1 + 20·0.25)/40 − 0.55² = 0.425 − 0.3025 = 0.1225.
    // elo0 = −10, elo1 = 10: s₀ + s₁ = 1 by symmetry, so 2m − s₀ − s₁ = 0.1;
    // s₁ = 1/(1 + 10^(−1/40)) = 0.514387184…, s₁ − s₀ = 2s₁ − 1 = 0.028774368…
    // LLR = 40·0.028774368·0.1/(2·0.1225) = 0.469785605…
    let p = params("-10,10,0.05,0.05");
    let s1 = score_from_elo(10.0);
    assert_close(s1, 0.514_387_184_165_998_7, 1e-12);
    let r = Trinomial::new(12, 20, 8).sprt(&p);
    assert_close(r.llr, 40.0 * (2.0 * s1 - 1.0) * 0.1 / (2.0 * 0.1225), 1e-12);
    assert_close(r.llr, 0.469_785_605_420_366_1, EPS);
    assert_eq!(r.decision, SprtDecision::Continue);
    assert_close(r.lower, -(19f64.ln()), 1e-12);
    assert_close(r.upper, 19f64.ln(), 1e-12);

    // elo0 = 0, elo1 = 10: s₀ = ½, (2m − s₀ − s₁) = 1.1 − 0.5 − s₁ = 0.085612816…
    // LLR = 40·(s₁ − ½)·(0.6 − s₁)/0.245 = 0.201089…
    let r = Trinomial::new(12, 20, 8).sprt(&params("0,10,0.05,0.05"));
    assert_close(r.llr, 40.0 * (s1 - 0.5) * (0.6 - s1) / 0.245, 1e-12);
    assert_eq!(r.decision, SprtDecision::Continue);
}

#[test]
fn sprt_llr_pentanomial_by_hand() {
    // Pentanomial [1, 8, 32, 28, 31] (see pentanomial_example): N = 100 pairs,
    // m = 0.7, v = 0.0625. With elo0 = −10, elo1 = 10:
    // LLR = 100·(2s₁ − 1)·(1.4 − 1)/(2·0.0625) = 320·(2s₁ − 1) = 9.207797…
    // ≥ ln 19 → H1.
    let s1 = score_from_elo(10.0);
    let r = Pentanomial::new([1, 8, 32, 28, 31]).sprt(&params("-10,10,0.05,0.05"));
    assert_close(r.llr, 320.0 * (2.0 * s1 - 1.0), 1e-9);
    assert_close(r.llr, 9.207_797_866_239_176, EPS);
    assert_eq!(r.decision, SprtDecision::AcceptH1);
    // The mirror image rejects.
    let r = Pentanomial::new([31, 28, 32, 8, 1]).sprt(&params("-10,10,0.05,0.05"));
    assert_close(r.llr, -320.0 * (2.0 * s1 - 1.0), 1e-9);
    assert_eq!(r.decision, SprtDecision::AcceptH0);
}

#[test]
fn sprt_with_zero_variance_continues() {
    let p = params("0,10,0.05,0.05");
    for r in [
        Trinomial::default().sprt(&p),
        Trinomial::new(0, 50, 0).sprt(&p),
        Trinomial::new(50, 0, 0).sprt(&p),
        Pentanomial::new([0, 0, 0, 0, 9]).sprt(&p),
        MatchTally::default().sprt(&p),
    ] {
        assert_eq!(r.llr, 0.0);
        assert_eq!(r.decision, SprtDecision::Continue);
    }
}

#[test]
fn sprt_result_serializes() {
    // 60 W 20 D 20 L, elo0 = −10, elo1 = 10: LLR = 100·0.028774·(1.4 − 1)/(2·0.16) = 3.597
    // ≥ ln 19 = 2.944 → H1.
    let r = Trinomial::new(60, 20, 20).sprt(&params("-10,10,0.05,0.05"));
    assert_close(r.llr, 3.596_796_041_499_678, 1e-6);
    assert_eq!(r.decision, SprtDecision::AcceptH1);
    let json = serde_json::to_string(&r).unwrap();
    assert!(json.contains("\"decision\":\"accept_h1\""), "{json}");
}

#[test]
fn sprt_params_parse_and_display() {
    let p = params(" -2.5 , 7.5,0.05, 0.1 ");
    assert_eq!(
        (p.elo0(), p.elo1(), p.alpha(), p.beta()),
        (-2.5, 7.5, 0.05, 0.1)
    );
    assert_eq!(p.to_string(), "-2.5,7.5,0.05,0.1");
    assert_eq!(p.to_string().parse::<SprtParams>(), Ok(p));
}

#[test]
fn bad_sprt_params_are_rejected() {
    use SprtParamsError as E;
    // Which check fired, and on which field.
    fn kind(e: &E) -> String {
        match e {
            E::Format { .. } => "format".into(),
            E::Number { name, .. } => format!("number {name}"),
            E::NotFinite { name, .. } => format!("finite {name}"),
            E::EloOrder { .. } => "order".into(),
            E::ErrorRate { name, .. } => format!("rate {name}"),
            E::ErrorSum { .. } => "sum".into(),
        }
    }
    let cases = [
        ("", "format"),
        ("0,10,0.05", "format"),
        ("0,10,0.05,0.05,1", "format"),
        ("0;10;0.05;0.05", "format"),
        ("0,ten,0.05,0.05", "number ELO1"),
        ("0,10,,0.05", "number ALPHA"),
        ("inf,10,0.05,0.05", "finite ELO0"),
        ("0,NaN,0.05,0.05", "finite ELO1"),
        ("10,0,0.05,0.05", "order"),
        ("5,5,0.05,0.05", "order"),
        ("0,10,0,0.05", "rate ALPHA"),
        ("0,10,0.05,1", "rate BETA"),
        ("0,10,-0.1,0.05", "rate ALPHA"),
        ("0,10,NaN,0.05", "rate ALPHA"),
        ("0,10,0.6,0.5", "sum"),
        ("0,10,0.5,0.5", "sum"),
    ];
    for (text, expected) in cases {
        let err = SprtParams::parse(text).unwrap_err();
        assert_eq!(kind(&err), expected, "{text:?} gave {err:?}");
        assert!(err.to_string().starts_with("SPRT"), "{err}");
    }
    assert_eq!(
        SprtParams::parse("10,0,0.05,0.05").unwrap_err().to_string(),
        "SPRT needs ELO0 < ELO1 (H0: elo = ELO0 against H1: elo = ELO1), \
         got ELO0 = 10 and ELO1 = 0"
    );
    assert_eq!(
        SprtParams::parse("0,10").unwrap_err().to_string(),
        "SPRT parameters must be ELO0,ELO1,ALPHA,BETA (e.g. 0,10,0.05,0.05), got '0,10'"
    );
    assert!(SprtParams::new(0.0, 10.0, 0.05, f64::NAN).is_err());
    assert!(SprtParams::new(f64::NAN, 10.0, 0.05, 0.05).is_err());
}
