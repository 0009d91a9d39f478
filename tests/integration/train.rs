//! `evalearn train`: short runs of each learner give loadable models whose loss went
//! down, a resumed run (also after Ctrl-C) equals an uninterrupted one, and bad configs
//! are rejected with the key's name.

use crate::common;
use common::{evalearn, temp_dir, wait_until_ready};

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use evalearn::accuracy::heldout::HeldOut;
use evalearn::eval::Evaluator;
use evalearn::eval::spec::EvalSpec;
use evalearn::game::{Game, random_plies};
use evalearn::games::brazilian::Brazilian;
use evalearn::games::brazilian::treestats::random_positions;
use evalearn::games::kalah::KalahRules;
use evalearn::games::kalah::{Kalah, KalahMoves};
use evalearn::learn::train::{HELD_OUT_SEED, MetricsLine};

/// A tiny config for `learner` writing `model`.
fn tiny_config(dir: &Path, learner: &str, iterations: u64, extra: &str) -> PathBuf {
    game_config(dir, "brazilian", learner, iterations, extra)
}

/// A tiny config for `learner` on `game` writing `DIR/LEARNER.bin`.
fn game_config(dir: &Path, game: &str, learner: &str, iterations: u64, extra: &str) -> PathBuf {
    let model = dir.join(format!("{learner}.bin"));
    let text = format!(
        "learner = \"{learner}\"\ngame = \"{game}\"\nseed = 5\nmodel = \"{}\"\n\n[budget]\niterations = {iterations}\n\n\
         [selfplay]\ndepth = 2\ngames_per_iteration = 40\ntemperature = 0.3\nthreads = 2\n\n\
         [evaluation]\nevery = 2\ngames = 20\ndepth = 2\n{extra}",
        model.display()
    );
    let path = dir.join(format!("{learner}-{iterations}.toml"));
    std::fs::write(&path, text).unwrap();
    path
}

fn metrics(path: &Path) -> Vec<MetricsLine> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn train(config: &Path, resume: bool) {
    let mut args = vec!["train", "--config", config.to_str().unwrap()];
    if resume {
        args.push("--resume");
    }
    let out = evalearn(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Trains each learner for four tiny iterations on `game` and checks the model, the
/// metrics and the curve; `evaluates` tells whether the model's values vary. Kalah's
/// runs learn its margins (`[training] target = "margin"`), draughts' its results.
fn each_learner_trains(game: &str, evaluates: impl Fn(&Path) -> bool) {
    let dir = temp_dir(&format!("learners-{game}"));
    let training = match game {
        "kalah" => "\n[training]\ntarget = \"margin\"\nmargin_scale = 5\n",
        _ => "",
    };
    for (learner, extra) in [
        ("samuel", ""),
        ("td", "\n[td]\nalpha = 0.2\n"),
        ("glem", "\n[glem]\nmin_support = 20\nepochs = 10\n"),
    ] {
        let config = game_config(&dir, game, learner, 4, &format!("{extra}{training}"));
        train(&config, false);
        let model = dir.join(format!("{learner}.bin"));
        let header = evalearn::io::model::read_header(&model).unwrap();
        assert_eq!(header.game, game);
        assert_eq!(header.revision, 4, "{learner}: one revision per iteration");
        assert_eq!(header.meta.games, 160);
        let lines = metrics(&dir.join(format!("{learner}.metrics.jsonl")));
        assert_eq!(lines.len(), 4, "{learner}");
        // The updates lowered the loss on the data they learned from: in every iteration
        // for GLEM and TD(λ); over the run for Samuel, whose rule sets A's largest weight
        // to zero after three losses in a row, a jump that may raise one iteration's loss.
        if learner == "samuel" {
            let before: f64 = lines.iter().map(|l| l.loss_before).sum();
            let after: f64 = lines.iter().map(|l| l.loss).sum();
            assert!(after < before, "{game} samuel: loss {before} → {after}");
        } else {
            for line in &lines {
                assert!(
                    line.loss < line.loss_before,
                    "{game} {learner} iteration {}: loss {} → {}",
                    line.iteration,
                    line.loss_before,
                    line.loss
                );
            }
        }
        assert!(lines[1].elo.is_some() && lines[3].elo.is_some() && lines[0].elo.is_none());
        let svg = std::fs::read_to_string(dir.join(format!("{learner}.curve.svg"))).unwrap();
        assert_eq!(svg.matches("<circle").count(), 2);
        // The held-out accuracy sample (Kalah; draughts only with an endgame database):
        // measured at each evaluation, the last one as a direct computation gives it.
        if game == "kalah" {
            // The evaluation match's margins, with their interval.
            for line in [&lines[1], &lines[3]] {
                let (mean, low, high) = (
                    line.margin.unwrap(),
                    line.margin_low.unwrap(),
                    line.margin_high.unwrap(),
                );
                assert!(
                    low <= mean && mean <= high && mean.abs() <= 48.0,
                    "{learner}: {mean} [{low}, {high}]"
                );
            }
            assert!(lines[0].margin.is_none());
            assert!(lines[1].held_out.is_some() && lines[0].held_out.is_none());
            let (evaluator, _) = EvalSpec::Model(model.clone()).load::<Kalah>().unwrap();
            let sample =
                HeldOut::<Kalah>::new(KalahRules::default(), None, 200, 5 ^ HELD_OUT_SEED).unwrap();
            assert_eq!(lines[3].held_out, Some(sample.measure(&evaluator)));
            assert_eq!(svg.matches("<rect x=").count(), 2);
        } else {
            assert!(
                lines
                    .iter()
                    .all(|l| l.held_out.is_none() && l.margin.is_none())
            );
        }
        assert!(
            evaluates(&model),
            "{game} {learner}: the model is zero everywhere"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn each_learner_trains_a_loadable_model_whose_loss_goes_down() {
    each_learner_trains("brazilian", |model| {
        let (evaluator, _) = EvalSpec::Model(model.to_path_buf())
            .load::<Brazilian>()
            .unwrap();
        random_positions(50, 1)
            .iter()
            .any(|p| evaluator.evaluate(p) != 0)
    });
}

/// Into a file or a pipe (no terminal), `train` writes a log for people: one line an
/// iteration, a line as each evaluation match starts, the summary; `--verbose` adds a
/// line as each stage starts and one on the run after each iteration.
#[test]
fn a_log_has_one_line_an_iteration_and_the_evaluations() {
    let dir = temp_dir("train-log");
    let config = tiny_config(&dir, "td", 4, "");
    let out = evalearn(&["train", "--config", config.to_str().unwrap()]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let (printed, said) = (common::stdout(&out), common::stderr(&out));
    let lines: Vec<&str> = printed.lines().collect();
    assert!(
        lines[0].starts_with("training td on brazilian"),
        "{printed}"
    );
    let iterations: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| l.starts_with("iteration "))
        .collect();
    assert_eq!(iterations.len(), 4, "{printed}");
    for (i, line) in iterations.iter().enumerate() {
        let n = i as u64 + 1;
        assert!(
            line.starts_with(&format!("iteration {n}/4: {} games, ", 40 * n)),
            "{line}"
        );
        // The evaluation's result is on its iteration's line.
        assert_eq!(
            line.contains("against material"),
            n.is_multiple_of(2),
            "{line}"
        );
    }
    let done = lines
        .iter()
        .position(|l| l.starts_with("done after 4 iterations"));
    let done = done.unwrap_or_else(|| panic!("{printed}"));
    assert!(lines[done + 1].starts_with("time: ") && lines[done + 2] == "next:");
    // The header, the held-out note (no endgame database here), the iterations, then the
    // summary: `done`, `time`, `next` and its three commands.
    assert_eq!(lines.len(), 2 + 4 + 6, "{printed}");
    let evaluations: Vec<&str> = said.lines().collect();
    assert_eq!(
        evaluations,
        [
            "iteration 2/4: 20 evaluation games",
            "iteration 4/4: 20 evaluation games"
        ],
        "{said}"
    );

    let verbose = evalearn(&[
        "train",
        "--config",
        config.to_str().unwrap(),
        "--restart",
        "--verbose",
    ]);
    assert!(verbose.status.success(), "{}", common::stderr(&verbose));
    let said = common::stderr(&verbose);
    // Per iteration: self-play, learning, the run's line; and the two evaluations.
    assert_eq!(said.lines().count(), 4 * 3 + 2, "{said}");
    assert_eq!(
        said.lines()
            .filter(|l| l.starts_with("run: iteration "))
            .count(),
        4
    );
    assert_eq!(
        common::stdout(&verbose)
            .lines()
            .filter(|l| l.starts_with("iteration "))
            .count(),
        4
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn each_learner_trains_on_kalah_too() {
    each_learner_trains("kalah", |model| {
        let (evaluator, _) = EvalSpec::Model(model.to_path_buf())
            .load::<Kalah>()
            .unwrap();
        let mut moves = KalahMoves::new();
        let mut rng = evalearn::rng::stream(1, 0);
        (0..50).any(|_| {
            random_plies(Kalah::start(), 3, &mut rng, &mut moves)
                .is_some_and(|p| evaluator.evaluate(&p) != evaluator.evaluate(&Kalah::start()))
        })
    });
}

/// What a finished run produced, save times aside: the model's values on fixed
/// positions, its header figures, and the metrics of every iteration.
fn outcome(dir: &Path, learner: &str) -> (Vec<i32>, (u64, u64, u64), Vec<String>) {
    let (evaluator, header) = EvalSpec::Model(dir.join(format!("{learner}.bin")))
        .load()
        .unwrap();
    let header = header.unwrap();
    let values = random_positions(300, 2)
        .iter()
        .map(|p| evaluator.evaluate(p))
        .collect();
    let lines = metrics(&dir.join(format!("{learner}.metrics.jsonl")))
        .into_iter()
        .map(|l| {
            format!(
                "{} {} {:.12} {:?} {}",
                l.games, l.positions, l.loss, l.elo, l.detail
            )
        })
        .collect();
    (
        values,
        (header.revision, header.meta.games, header.meta.positions),
        lines,
    )
}

/// Also for a TD network with a second hidden layer trained by the cross-entropy step.
#[test]
fn a_resumed_run_equals_an_uninterrupted_one() {
    let two_layers = "\n[td]\nhidden2 = 8\nloss = \"cross-entropy\"\n";
    for (name, learner, extra) in [
        ("samuel", "samuel", ""),
        ("td", "td", ""),
        ("td-two-layers", "td", two_layers),
    ] {
        let straight = temp_dir(&format!("straight-{name}"));
        let config = tiny_config(&straight, learner, 4, extra);
        train(&config, false);

        let resumed = temp_dir(&format!("resumed-{name}"));
        train(&tiny_config(&resumed, learner, 2, extra), false);
        train(&tiny_config(&resumed, learner, 4, extra), true);
        assert_eq!(
            outcome(&straight, learner),
            outcome(&resumed, learner),
            "{name}"
        );
        if !extra.is_empty() {
            // The model has its second layer, and `model info` says so.
            let model = straight.join("td.bin");
            let out = evalearn(&["model", "info", model.to_str().unwrap()]);
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(
                out.status.success() && text.contains("–48–8–1") && text.contains("of 48 and 8"),
                "{text}"
            );
            // A run resumed under another shape is refused.
            let other = tiny_config(&resumed, learner, 5, "");
            let out = evalearn(&["train", "--config", other.to_str().unwrap(), "--resume"]);
            assert_eq!(out.status.code(), Some(2));
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(err.contains("different configuration"), "{err}");
        }
        std::fs::remove_dir_all(&straight).unwrap();
        std::fs::remove_dir_all(&resumed).unwrap();
    }
}

#[test]
fn a_checkpoint_of_another_layout_is_refused_with_advice() {
    use evalearn::io::model::{read_header, save_model};
    let dir = temp_dir("resume-other-layout");
    train(&tiny_config(&dir, "td", 1, ""), false);
    // A checkpoint whose checksum holds but whose learner state has another layout, as
    // an earlier evalearn's would.
    let checkpoint = dir.join("td.ckpt");
    let mut header = read_header(&checkpoint).unwrap();
    save_model(&checkpoint, &mut header, &(1u32, "an older learner state")).unwrap();
    let config = tiny_config(&dir, "td", 2, "");
    let out = evalearn(&["train", "--config", config.to_str().unwrap(), "--resume"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("td.ckpt") && err.contains("train anew without --resume"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn ctrl_c_keeps_a_checkpoint_and_resume_finishes_the_run() {
    let straight = temp_dir("ctrlc-straight");
    train(&tiny_config(&straight, "samuel", 6, ""), false);

    let dir = temp_dir("ctrlc");
    let config = tiny_config(&dir, "samuel", 6, "");
    let mut child = Command::new(env!("CARGO_BIN_EXE_evalearn"))
        // Hermetic: no endgame database from the developer's `egdb/` folder.
        .env("EVALEARN_EGDB", "")
        .args(["train", "--config", config.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Interrupt once the first checkpoint exists.
    wait_until_ready(&mut child, "train writing a checkpoint", || {
        dir.join("samuel.ckpt").exists()
    });
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let exit = child.wait().unwrap();
    assert_eq!(exit.code(), Some(130), "{exit:?}");
    train(&config, true);
    assert_eq!(outcome(&straight, "samuel"), outcome(&dir, "samuel"));
    std::fs::remove_dir_all(&straight).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_configs_are_rejected_with_the_key_and_exit_status_2() {
    let dir = temp_dir("bad");
    let cases = [
        (
            "learner = \"samuel\"\nmodel = \"m.bin\"\nspeed = 3\n",
            "speed",
        ),
        ("learner = \"alphazero\"\nmodel = \"m.bin\"\n", "samuel"),
        (
            "learner = \"td\"\nmodel = \"m.bin\"\n[td]\nlambda = 2\n",
            "td.lambda",
        ),
        (
            "learner = \"td\"\nmodel = \"m.bin\"\n[selfplay]\ndepth = 3\nmovetime_ms = 5\n",
            "exactly one",
        ),
        (
            "learner = \"glem\"\nmodel = \"m.bin\"\n[glem]\nmax_atoms = 30\n",
            "glem.max_atoms",
        ),
        (
            "learner = \"td\"\nmodel = \"m.bin\"\n[td]\ninputs = \"pairs\"\n",
            "td.inputs: unknown input set \"pairs\" for brazilian, expected \"board\" or \"board-pairs\"",
        ),
        (
            "learner = \"td\"\nmodel = \"m.bin\"\n[td]\nhidden2 = 200\n",
            "td.hidden2",
        ),
        (
            "learner = \"td\"\nmodel = \"m.bin\"\n[td]\nloss = \"hinge\"\n",
            "cross-entropy",
        ),
        (
            "learner = \"td\"\nmodel = \"m.bin\"\n[evaluation]\nmovetime_ms = 100\nnodes = 5\n",
            "give one limit a move",
        ),
        (
            "learner = \"td\"\nmodel = \"m.bin\"\n[evaluation]\nkeep_best = true\n\
             [training]\nvalidation = 0.2\nkeep_best = true\n",
            "both would write NAME.best.bin",
        ),
        (
            "learner = \"td\"\nmodel = \"m.bin\"\n[td]\nactivation = \"relu\"\n",
            "clipped-relu",
        ),
        (
            "learner = \"td\"\nmodel = \"m.bin\"\n[td]\nactivation = \"clipped-relu\"\nhidden = 600\n",
            "td.hidden: must be 32..=512 hidden units with clipped-relu units",
        ),
        ("learner = \"samuel\"\n", "model"),
        ("not toml at all [", "TOML"),
        // A misspelt section or key is named with its own line, not the file's first.
        (
            "# a run\nlearner = \"td\"\nmodel = \"m.bin\"\n[budgt]\niterations = 3\n",
            "line 4: unknown section [budgt]; expected one of [budget], [selfplay]",
        ),
        (
            "learner = \"td\"\nmodel = \"m.bin\"\nsed = 3\n",
            "line 3: unknown key `sed`; expected one of `learner`, `game`, `seed`",
        ),
        // Another learner's section would be read by no one.
        (
            "learner = \"td\"\nmodel = \"m.bin\"\n[glem]\nmin_support = 3\n",
            "line 3: [glem] is the glem learner's section; this config's learner is \"td\"",
        ),
    ];
    for (i, (text, needle)) in cases.iter().enumerate() {
        let path = dir.join(format!("bad{i}.toml"));
        std::fs::write(&path, text).unwrap();
        for (plan, out) in common::train_and_plan(&path) {
            assert_eq!(out.status.code(), Some(2), "{text} {plan:?}");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                err.contains(needle) || (*needle == "TOML" && err.contains("expected")),
                "{text}: {err}"
            );
        }
    }
    let out = evalearn(&["train", "--config", "/nonexistent.toml"]);
    assert_eq!(out.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--plan` says where any learner's run stands, Samuel's too, refusing only what does
/// not apply (workers, a dataset) and what `train` would refuse before starting: a model
/// folder that does not exist (not created, as `--out` elsewhere is not).
#[test]
fn the_plan_of_any_learner_and_a_missing_model_folder() {
    let dir = temp_dir("plan-learners");
    let samuel = tiny_config(&dir, "samuel", 1, "");
    let samuel = samuel.to_str().unwrap();
    let out = evalearn(&["train", "--config", samuel, "--plan"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("samuel on brazilian")
            && text.contains(
                ": 0 of 1 iteration done; next iteration 1 (games 0–39), 1 iteration left"
            )
            && text.contains("\nnext_iteration 1\nrounds_left 1\n"),
        "{text}"
    );
    let pool = dir.join("pool");
    let out = evalearn(&[
        "train",
        "--config",
        samuel,
        "--plan",
        "--workers",
        pool.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--workers: the samuel learner learns during its own"),
        "{err}"
    );
    let listed = |dir: &Path| std::fs::read_dir(dir).unwrap().count();
    assert_eq!(listed(&dir), 1, "only the config: --plan writes nothing");

    // The model's folder must exist, checked before anything starts.
    let config = dir.join("nowhere.toml");
    let folder = dir.join("no-such-folder");
    std::fs::write(
        &config,
        format!(
            "learner = \"td\"\nmodel = \"{}\"\n[budget]\niterations = 1\n",
            folder.join("x.bin").display()
        ),
    )
    .unwrap();
    for (plan, out) in common::train_and_plan(&config) {
        assert_eq!(out.status.code(), Some(2), "{plan:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        let said = format!(
            "model {}: the folder {} does not exist",
            folder.join("x.bin").display(),
            folder.display()
        );
        assert!(err.contains(&said), "{err}");
        assert!(!String::from_utf8_lossy(&out.stdout).contains("training td"));
    }
    assert!(!folder.exists(), "the model's folder was made");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Evaluations at a node limit against the run's best: the metrics name the opponent and
/// the limit, the best model is kept exactly when an evaluation scored above 50%, and a
/// second run gives the same scores (a node limit is reproducible).
#[test]
fn evaluations_at_a_node_limit_against_the_runs_best_keep_the_best() {
    let runs: Vec<Vec<MetricsLine>> = (0..2)
        .map(|run| {
            let dir = temp_dir(&format!("eval-best-{run}"));
            let config = tiny_config(&dir, "td", 4, "nodes = 400\nopponent = \"best\"\n");
            train(&config, false);
            let lines = metrics(&dir.join("td.metrics.jsonl"));
            let evaluated: Vec<&MetricsLine> = lines.iter().filter(|l| l.score.is_some()).collect();
            assert_eq!(evaluated.len(), 2);
            for line in &evaluated {
                assert_eq!(line.opponent.as_deref(), Some("the run's best"));
                assert_eq!(line.limit.as_deref(), Some("400 nodes a move"));
            }
            let beat = evaluated.iter().any(|l| l.score.unwrap() > 0.5);
            assert_eq!(dir.join("td.best.bin").exists(), beat, "{evaluated:?}");
            std::fs::remove_dir_all(&dir).unwrap();
            lines
        })
        .collect();
    let scores = |lines: &[MetricsLine]| lines.iter().map(|l| l.score).collect::<Vec<_>>();
    assert_eq!(scores(&runs[0]), scores(&runs[1]));
}

/// Evaluations at a move time against a named model file; a missing opponent file is
/// refused before training starts, with the key's name.
#[test]
fn evaluations_at_a_move_time_against_a_named_model() {
    let dir = temp_dir("eval-named");
    let opponent = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/td.bin");
    let extra = format!("movetime_ms = 5\nopponent = \"{}\"\n", opponent.display());
    let config = tiny_config(&dir, "td", 2, &extra);
    train(&config, false);
    let lines = metrics(&dir.join("td.metrics.jsonl"));
    let last = lines.last().unwrap();
    assert_eq!(last.opponent.as_deref(), Some(opponent.to_str().unwrap()));
    assert_eq!(last.limit.as_deref(), Some("5 ms a move"));
    let missing = tiny_config(&dir, "glem", 2, "opponent = \"/nonexistent/model.bin\"\n");
    let out = evalearn(&["train", "--config", missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("evaluation.opponent"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A clipped-ReLU network trains, loads, says what it is, and plays the same search on
/// the portable and SSE2 kernels as on the fastest this CPU has (a CPU without AVX2 gets
/// the same moves); a kernel path the CPU lacks, or no path at all, is refused.
#[test]
fn a_clipped_network_trains_and_plays_on_every_kernel_path() {
    let dir = temp_dir("clipped");
    let config = tiny_config(
        &dir,
        "td",
        2,
        "\n[td]\nactivation = \"clipped-relu\"\nhidden = 64\nhidden2 = 16\nalpha = 0.02\n",
    );
    train(&config, false);
    let model = dir.join("td.bin");
    let model = model.to_str().unwrap();
    let info = evalearn(&["model", "info", model]);
    let text = String::from_utf8_lossy(&info.stdout);
    assert!(
        text.contains("two clipped-relu hidden layers of 64 and 16 units"),
        "{text}"
    );
    let nodes = |path: &str| {
        let out = common::evalearn_command()
            .env("EVALEARN_SIMD", path)
            .args(["bench", "--eval", model, "--depth", "6"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{path}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .last()
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .to_string()
    };
    let fastest = nodes("");
    let slower: &[&str] = match cfg!(target_arch = "x86_64") {
        true => &["scalar", "sse2"],
        false => &["scalar"],
    };
    for &path in slower {
        assert_eq!(nodes(path), fastest, "{path}");
    }
    let out = common::evalearn_command()
        .env("EVALEARN_SIMD", "mmx")
        .args(["bench", "--eval", model, "--depth", "2"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("EVALEARN_SIMD=mmx: not a kernel path"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
