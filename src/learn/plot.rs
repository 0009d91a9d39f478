//! The learning curve: Elo against the baseline evaluator (with its 95% interval) over
//! the training games, and, where the run has a held-out accuracy sample, the share of
//! its positions where the model's move keeps the exact value (right axis), as a small
//! self-contained SVG.

use std::fmt::Write;

/// One evaluation of the model during training.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CurvePoint {
    /// Training games played before the evaluation.
    pub games: u64,
    pub elo: f64,
    pub low: f64,
    pub high: f64,
}

const WIDTH: f64 = 720.0;
const HEIGHT: f64 = 420.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 20.0;
/// The right margin with the held-out axis.
const RIGHT_WITH_AXIS: f64 = 64.0;
const HELD_OUT_COLOUR: &str = "#d9730d";
const TOP: f64 = 40.0;
const BOTTOM: f64 = 50.0;

/// A step of 1, 2 or 5 times a power of ten giving about `ticks` ticks over `span`.
fn nice_step(span: f64, ticks: f64) -> f64 {
    let raw = (span / ticks).max(1e-9);
    let power = 10f64.powf(raw.log10().floor());
    let fraction = raw / power;
    let nice = if fraction <= 1.0 {
        1.0
    } else if fraction <= 2.0 {
        2.0
    } else if fraction <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * power
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The curve of `points` (in training order) titled `title`, with the held-out
/// optimal-move rates `held_out` (games, rate in 0..=1) if any.
pub fn learning_curve_svg(title: &str, points: &[CurvePoint], held_out: &[(u64, f64)]) -> String {
    let max_games = points
        .iter()
        .map(|p| p.games)
        .chain(held_out.iter().map(|h| h.0))
        .max()
        .unwrap_or(0)
        .max(1) as f64;
    let right = if held_out.is_empty() {
        RIGHT
    } else {
        RIGHT_WITH_AXIS
    };
    let lows = points.iter().map(|p| p.low).chain([0.0]);
    let highs = points.iter().map(|p| p.high).chain([0.0]);
    let (mut y_min, mut y_max) = (
        lows.fold(f64::MAX, f64::min),
        highs.fold(f64::MIN, f64::max),
    );
    if y_max - y_min < 50.0 {
        y_max += 25.0;
        y_min -= 25.0;
    }
    let y_step = nice_step(y_max - y_min, 6.0);
    y_min = (y_min / y_step).floor() * y_step;
    y_max = (y_max / y_step).ceil() * y_step;
    let x_step = nice_step(max_games, 6.0);
    let x_max = (max_games / x_step).ceil() * x_step;
    let plot_w = WIDTH - LEFT - right;
    let plot_h = HEIGHT - TOP - BOTTOM;
    let x = |games: f64| LEFT + games / x_max * plot_w;
    let y = |elo: f64| TOP + (y_max - elo) / (y_max - y_min) * plot_h;

    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(svg, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        svg,
        r#"<text x="{}" y="22" text-anchor="middle" font-size="15">{}</text>"#,
        WIDTH / 2.0,
        escape(title)
    );
    // Grid and labels.
    let mut tick = y_min;
    while tick <= y_max + y_step / 2.0 {
        let _ = writeln!(
            svg,
            r##"<line x1="{LEFT}" y1="{0:.1}" x2="{1}" y2="{0:.1}" stroke="#ddd"/><text x="{2}" y="{3:.1}" text-anchor="end">{tick:+.0}</text>"##,
            y(tick),
            WIDTH - right,
            LEFT - 6.0,
            y(tick) + 4.0
        );
        tick += y_step;
    }
    let mut tick = 0.0;
    while tick <= x_max + x_step / 2.0 {
        let _ = writeln!(
            svg,
            r##"<line x1="{0:.1}" y1="{TOP}" x2="{0:.1}" y2="{1}" stroke="#eee"/><text x="{0:.1}" y="{2}" text-anchor="middle">{tick:.0}</text>"##,
            x(tick),
            HEIGHT - BOTTOM,
            HEIGHT - BOTTOM + 16.0
        );
        tick += x_step;
    }
    let _ = writeln!(
        svg,
        r##"<line x1="{LEFT}" y1="{0:.1}" x2="{1}" y2="{0:.1}" stroke="#888" stroke-dasharray="4 3"/>"##,
        y(0.0),
        WIDTH - right
    );
    let _ = writeln!(
        svg,
        r#"<text x="{}" y="{}" text-anchor="middle">training games</text>"#,
        LEFT + plot_w / 2.0,
        HEIGHT - 12.0
    );
    let _ = writeln!(
        svg,
        r#"<text x="16" y="{0}" text-anchor="middle" transform="rotate(-90 16 {0})">Elo against the baseline (95% interval)</text>"#,
        TOP + plot_h / 2.0
    );
    // Intervals, the curve, the points.
    for p in points {
        let _ = writeln!(
            svg,
            r##"<line x1="{0:.1}" y1="{1:.1}" x2="{0:.1}" y2="{2:.1}" stroke="#6a9fd8" stroke-width="2"/>"##,
            x(p.games as f64),
            y(p.low),
            y(p.high)
        );
    }
    let line: Vec<String> = points
        .iter()
        .map(|p| format!("{:.1},{:.1}", x(p.games as f64), y(p.elo)))
        .collect();
    let _ = writeln!(
        svg,
        r##"<polyline points="{}" fill="none" stroke="#1f5fa8" stroke-width="2"/>"##,
        line.join(" ")
    );
    for p in points {
        let _ = writeln!(
            svg,
            r##"<circle cx="{:.1}" cy="{:.1}" r="3.5" fill="#1f5fa8"/>"##,
            x(p.games as f64),
            y(p.elo)
        );
    }
    if !held_out.is_empty() {
        draw_held_out(&mut svg, held_out, &x, plot_h, right);
    }
    svg.push_str("</svg>\n");
    svg
}

/// The held-out optimal-move rates on a 0–100% axis at the right.
fn draw_held_out(
    svg: &mut String,
    held_out: &[(u64, f64)],
    x: &dyn Fn(f64) -> f64,
    plot_h: f64,
    right: f64,
) {
    let y = |rate: f64| TOP + (1.0 - rate.clamp(0.0, 1.0)) * plot_h;
    let axis = WIDTH - right;
    for percent in (0..=100).step_by(20) {
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" fill="{HELD_OUT_COLOUR}">{percent}%</text>"#,
            axis + 6.0,
            y(f64::from(percent) / 100.0) + 4.0
        );
    }
    let _ = writeln!(
        svg,
        r#"<text x="{0:.1}" y="{1:.1}" text-anchor="middle" fill="{HELD_OUT_COLOUR}" transform="rotate(90 {0:.1} {1:.1})">held-out optimal moves (depth 4)</text>"#,
        WIDTH - 12.0,
        TOP + plot_h / 2.0
    );
    let line: Vec<String> = held_out
        .iter()
        .map(|&(games, rate)| format!("{:.1},{:.1}", x(games as f64), y(rate)))
        .collect();
    let _ = writeln!(
        svg,
        r#"<polyline points="{}" fill="none" stroke="{HELD_OUT_COLOUR}" stroke-width="2" stroke-dasharray="6 3"/>"#,
        line.join(" ")
    );
    for &(games, rate) in held_out {
        let _ = writeln!(
            svg,
            r#"<rect x="{:.1}" y="{:.1}" width="6" height="6" fill="{HELD_OUT_COLOUR}"/>"#,
            x(games as f64) - 3.0,
            y(rate) - 3.0
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_curve_has_a_point_and_interval_per_evaluation() {
        let points = [
            CurvePoint {
                games: 500,
                elo: -20.0,
                low: -80.0,
                high: 40.0,
            },
            CurvePoint {
                games: 1000,
                elo: 60.0,
                low: 10.0,
                high: 110.0,
            },
            CurvePoint {
                games: 1500,
                elo: 140.0,
                low: 90.0,
                high: 200.0,
            },
        ];
        let svg = learning_curve_svg("samuel <test>", &points, &[]);
        assert!(svg.starts_with("<svg"));
        assert!(svg.trim_end().ends_with("</svg>"));
        assert_eq!(svg.matches("<circle").count(), 3);
        assert!(svg.contains("samuel &lt;test&gt;"));
        assert!(!svg.contains("NaN") && !svg.contains("inf"));
        // No evaluation yet: still a valid, empty chart.
        let empty = learning_curve_svg("empty", &[], &[]);
        assert!(empty.contains("</svg>") && !empty.contains("NaN"));
        // With held-out rates: one marker each on a second axis.
        let both = learning_curve_svg("both", &points, &[(500, 0.5), (1000, 0.62), (1500, 0.7)]);
        assert_eq!(both.matches("<rect x=").count(), 3);
        assert!(both.contains("held-out optimal moves") && !both.contains("NaN"));
    }

    #[test]
    fn ticks_are_round_numbers() {
        assert_eq!(nice_step(1000.0, 5.0), 200.0);
        assert_eq!(nice_step(70.0, 6.0), 20.0);
        assert_eq!(nice_step(3.0, 6.0), 0.5);
    }
}
