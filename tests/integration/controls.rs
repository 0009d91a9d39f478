//! `[training]` controls: held-out games are never learned from and are the same however
//! the games are played (threads, shards), every metrics line has its validation loss,
//! patience stops a run, `keep_best` keeps the model of the best iteration, a resumed
//! run with the controls equals an uninterrupted one, the position filters lower the
//! positions learned from, and bad values exit 2 naming the key.

use crate::common;
use common::{evalearn, evalearn_ok, temp_dir};

use std::path::{Path, PathBuf};

use evalearn::eval::Evaluator;
use evalearn::eval::spec::EvalSpec;
use evalearn::game::{Game, Outcome, Side, random_plies};
use evalearn::games::kalah::{Kalah, KalahMoves};
use evalearn::io::dataset::Dataset;
use evalearn::io::model::load_model;
use evalearn::learn::controls::held_out;
use evalearn::learn::train::{CHECKPOINT_KIND, Checkpoint, MetricsLine};

const SEED: u64 = 11;

/// A tiny Kalah(6,4) `learner` run in `dir` (model `dir/model.bin`) with `training` as
/// its `[training]` section.
fn config(dir: &Path, learner: &str, iterations: u64, training: &str) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let extra = match learner {
        "glem" => "[glem]\nmin_support = 5\nepochs = 5\n",
        _ => "[td]\nalpha = 0.2\n",
    };
    let text = format!(
        "learner = \"{learner}\"\ngame = \"kalah:6:4\"\nseed = {SEED}\nmodel = \"{}\"\n\n\
         [budget]\niterations = {iterations}\n\n\
         [selfplay]\ndepth = 2\ngames_per_iteration = 16\ntemperature = 0.3\nthreads = 2\n\n\
         [evaluation]\nevery = 0\ngames = 2\ndepth = 1\n\n{extra}\n[training]\n{training}",
        dir.join("model.bin").display()
    );
    let path = dir.join(format!("run-{iterations}.toml"));
    std::fs::write(&path, text).unwrap();
    path
}

fn arg(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn metrics(dir: &Path) -> Vec<MetricsLine> {
    std::fs::read_to_string(dir.join("model.metrics.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn checkpoint(dir: &Path) -> Checkpoint<Kalah> {
    load_model(&dir.join("model.ckpt"), None, Some(CHECKPOINT_KIND))
        .unwrap()
        .1
}

/// The learner state, validation pool and best validation loss of a run's checkpoint.
fn state(dir: &Path) -> String {
    let c = checkpoint(dir);
    format!("{:?} {:?} {:?}", c.state, c.validation, c.best_val_loss)
}

/// Every metrics line, elapsed time and evaluation aside (a shorter first session
/// evaluates after its own last iteration).
fn lines(dir: &Path) -> Vec<String> {
    metrics(dir)
        .iter()
        .map(|l| {
            format!(
                "{} {} {} {:?} {:?} {}",
                l.iteration, l.games, l.positions, l.loss, l.val_loss, l.detail
            )
        })
        .collect()
}

/// A model's values on fixed Kalah(6,4) positions.
fn values(model: &Path) -> Vec<i32> {
    let (evaluator, _) = EvalSpec::Model(model.to_path_buf())
        .load::<Kalah>()
        .unwrap();
    let start = Kalah::start_of(Kalah::parse_variant("6:4").unwrap());
    let mut moves = KalahMoves::new();
    let mut rng = evalearn::rng::stream(3, 0);
    (0..60)
        .filter_map(|_| random_plies(start, 6, &mut rng, &mut moves))
        .map(|p| evaluator.evaluate(&p))
        .collect()
}

#[test]
fn held_out_games_are_not_learned_from() {
    let root = temp_dir("controls-held-out");
    let training = "validation = 0.3\n";
    let plain = root.join("plain");
    let run = config(&plain, "td", 1, training);
    let games = root.join("games.ds");
    evalearn_ok(&["selfplay", "--config", arg(&run), "--out", arg(&games)]);
    // The same games with every held-out game's result turned around.
    let mut dataset = Dataset::<Kalah>::read(&games, None).unwrap();
    let mut held = 0;
    for game in dataset.games.iter_mut() {
        if held_out(SEED, game.index, 0.3) {
            held += 1;
            game.outcome = match game.outcome {
                Outcome::Win(Side::First) => Outcome::Win(Side::Second),
                _ => Outcome::Win(Side::First),
            };
        }
    }
    assert!((1..16).contains(&held), "{held} of 16 held out");
    let altered_games = root.join("altered.ds");
    Dataset::write_sorted(&altered_games, &dataset.game, &dataset.games).unwrap();
    let altered = root.join("altered");
    let altered_run = config(&altered, "td", 1, training);

    let from = |run: &Path, games: &Path| {
        evalearn_ok(&["train", "--config", arg(run), "--from-dataset", arg(games)]);
    };
    from(&run, &games);
    from(&altered_run, &altered_games);
    let (a, b) = (checkpoint(&plain), checkpoint(&altered));
    assert_eq!(
        format!("{:?}", a.state),
        format!("{:?}", b.state),
        "the held-out games changed the model"
    );
    assert_eq!(a.games, 16 - held);
    assert_eq!(a.validation.len() as u64, held);
    let (la, lb) = (&metrics(&plain)[0], &metrics(&altered)[0]);
    assert_eq!(la.loss, lb.loss);
    assert!(
        la.val_loss.is_some() && la.val_loss != lb.val_loss,
        "{la:?} {lb:?}"
    );
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn threads_and_shards_hold_out_the_same_games() {
    let root = temp_dir("controls-shards");
    let training = "validation = 0.25\nvalidation_games = 6\n";
    let straight = root.join("straight");
    evalearn_ok(&[
        "train",
        "--config",
        arg(&config(&straight, "td", 2, training)),
    ]);
    let one_thread = root.join("one-thread");
    let run = config(&one_thread, "td", 2, training);
    evalearn_ok(&["train", "--config", arg(&run), "--threads", "1"]);

    let sharded = root.join("sharded");
    let run = config(&sharded, "td", 2, training);
    for round in 1..=2 {
        crate::shard::sharded_iteration(&run, &sharded, round, 2);
    }
    let expected = (state(&straight), lines(&straight));
    assert_eq!(
        checkpoint(&straight).validation.len(),
        6,
        "the pool is capped"
    );
    assert!(metrics(&straight).iter().all(|l| l.val_loss.is_some()));
    assert_eq!(expected, (state(&one_thread), lines(&one_thread)));
    assert_eq!(expected, (state(&sharded), lines(&sharded)));
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn patience_stops_the_run_and_the_best_model_is_kept() {
    let root = temp_dir("controls-patience");
    let training = "validation = 0.3\npatience = 2\nkeep_best = true\n";
    let dir = root.join("run");
    let out = evalearn_ok(&[
        "train",
        "--config",
        arg(&config(&dir, "glem", 12, training)),
    ]);
    let log = String::from_utf8_lossy(&out.stdout) + String::from_utf8_lossy(&out.stderr);
    let lines = metrics(&dir);
    let val: Vec<f64> = lines.iter().map(|l| l.val_loss.unwrap()).collect();
    // The best is the first strict minimum; the run stops `patience` iterations after it.
    let best = val
        .iter()
        .enumerate()
        .fold(0, |b, (i, &v)| if v < val[b] { i } else { b })
        + 1;
    assert!(lines.len() < 12, "no early stop in {val:?}");
    assert_eq!(lines.len(), best + 2, "{val:?}");
    assert!(log.contains("early stop"), "{log}");
    let (best_loss, at) = checkpoint(&dir).best_val_loss.unwrap();
    assert_eq!((best_loss, at), (val[best - 1], best as u64));

    // NAME.best.bin is the model the run had after its best iteration.
    let shorter = root.join("shorter");
    evalearn_ok(&[
        "train",
        "--config",
        arg(&config(&shorter, "glem", best as u64, training)),
    ]);
    assert_eq!(
        values(&dir.join("model.best.bin")),
        values(&shorter.join("model.bin"))
    );
    let header = |p: &Path| evalearn::io::model::read_header(p).unwrap();
    let (kept, then) = (
        header(&dir.join("model.best.bin")),
        header(&shorter.join("model.bin")),
    );
    assert_eq!(
        (kept.revision, kept.meta.games),
        (then.revision, then.meta.games)
    );

    // A new start refuses to replace it, and --restart keeps it as a backup.
    let run = config(&dir, "glem", 12, training);
    let out = evalearn(&["train", "--config", arg(&run)]);
    assert_eq!(out.status.code(), Some(2));
    std::fs::remove_file(dir.join("model.ckpt")).unwrap();
    std::fs::remove_file(dir.join("model.metrics.jsonl")).unwrap();
    std::fs::remove_file(dir.join("model.bin")).unwrap();
    let out = evalearn(&["train", "--config", arg(&run)]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "model.best.bin alone is a result"
    );
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn a_resumed_run_with_the_controls_equals_an_uninterrupted_one() {
    let root = temp_dir("controls-resume");
    let training = "validation = 0.25\nkeep_best = true\nsearch_weight = 0.3\n\
                    max_positions_per_game = 12\nlr_schedule = \"step\"\nlr_step_every = 2\n\
                    lr_gamma = 0.5\nlr_warmup = 1\n";
    let straight = root.join("straight");
    evalearn_ok(&[
        "train",
        "--config",
        arg(&config(&straight, "td", 4, training)),
    ]);
    let resumed = root.join("resumed");
    evalearn_ok(&[
        "train",
        "--config",
        arg(&config(&resumed, "td", 2, training)),
    ]);
    let run = config(&resumed, "td", 4, training);
    evalearn_ok(&["train", "--config", arg(&run), "--resume"]);
    assert_eq!(state(&straight), state(&resumed));
    assert_eq!(lines(&straight), lines(&resumed));
    let best = |dir: &Path| values(&dir.join("model.best.bin"));
    assert_eq!(best(&straight), best(&resumed));
    std::fs::remove_dir_all(&root).unwrap();
}

/// The positions of the one-iteration run of `learner` with `training`.
fn positions(root: &Path, name: &str, learner: &str, training: &str) -> (u64, u64) {
    let dir = root.join(name);
    evalearn_ok(&[
        "train",
        "--config",
        arg(&config(&dir, learner, 1, training)),
    ]);
    let line = &metrics(&dir)[0];
    (line.positions, line.games)
}

#[test]
fn the_position_filters_lower_the_positions_learned_from() {
    let root = temp_dir("controls-filters");
    for learner in ["td", "glem"] {
        let (all, games) = positions(&root, &format!("{learner}-all"), learner, "");
        let (sampled, _) = positions(
            &root,
            &format!("{learner}-sampled"),
            learner,
            "max_positions_per_game = 5\n",
        );
        assert!(
            all > 5 * games,
            "{learner}: {all} positions in {games} games"
        );
        assert_eq!(sampled, 5 * games, "{learner}");
    }
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn capture_pending_positions_can_be_skipped() {
    let root = temp_dir("controls-captures");
    let run = |name: &str, training: &str| {
        let dir = root.join(name);
        let text = format!(
            "learner = \"td\"\nseed = 3\nmodel = \"{}\"\n[budget]\niterations = 1\n\
             [selfplay]\ndepth = 2\ngames_per_iteration = 6\nthreads = 2\n\
             [evaluation]\nevery = 0\ngames = 2\ndepth = 1\n[training]\n{training}",
            dir.join("model.bin").display()
        );
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("run.toml"), text).unwrap();
        evalearn_ok(&["train", "--config", arg(&dir.join("run.toml"))]);
        metrics(&dir)[0].positions
    };
    let all = run("all", "");
    let quiet = run("quiet", "skip_capture_pending = true\n");
    assert!(0 < quiet && quiet < all, "{quiet} of {all}");
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn bad_training_values_exit_2_naming_the_key() {
    let root = temp_dir("controls-bad");
    for (training, key) in [
        ("validation = 0.9\n", "training.validation"),
        ("patience = 3\n", "training.patience"),
        ("lr_schedule = \"step\"\n", "training.lr_step_every"),
        ("search_weight = 2\n", "training.search_weight"),
        ("margin_scale = 0\n", "training.margin_scale"),
        ("target = \"stones\"\n", "target"),
    ] {
        let run = config(&root, "td", 1, training);
        let out = evalearn(&["train", "--config", arg(&run)]);
        assert_eq!(out.status.code(), Some(2), "{training}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(key), "{training}: {err}");
    }
    // Draughts' results have no margin to learn.
    let run = root.join("brazilian.toml");
    std::fs::write(
        &run,
        format!(
            "learner = \"td\"\nmodel = \"{}\"\n[training]\ntarget = \"margin\"\n",
            root.join("b.bin").display()
        ),
    )
    .unwrap();
    // Refused as a bad config is, before anything starts, by --plan too.
    for (plan, out) in common::train_and_plan(&run) {
        assert_eq!(out.status.code(), Some(2), "{plan:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!("config {}: training.target", run.display()))
                && err.contains("margins"),
            "{err}"
        );
        assert_eq!(String::from_utf8_lossy(&out.stdout), "", "{plan:?}");
    }
    assert!(!root.join("b.bin").exists() && !root.join("b.metrics.jsonl").exists());
    std::fs::remove_dir_all(&root).unwrap();
}
