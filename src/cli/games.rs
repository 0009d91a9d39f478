//! The games the command line offers. The registry ([`crate::games::registry`]) makes one
//! [`Games`] value — a [`Handle`] per game and the games' own subcommands — and hands it
//! to [`super::run`]; every command chooses its game through it, so no command names a
//! game. A command generic over the game is one [`Job`]: the handle of the chosen game
//! runs it with the game's type.

use std::marker::PhantomData;
use std::path::PathBuf;

use super::{CliError, CliGame};
use crate::eval::spec::EvalSpec;
use crate::game::{GameEntry, GameSpec, handle_of, parse_game};
use crate::io::model::ModelHeader;
use crate::learn::config::TrainConfig;

/// The games of the command line, in the order `--game` lists them; the first is the
/// default game.
pub struct Games {
    list: &'static [&'static dyn GameHandle],
    own: &'static dyn OwnCommands,
}

impl Games {
    /// The games of `list` (at least one) and their own subcommands.
    pub(crate) const fn new(
        list: &'static [&'static dyn GameHandle],
        own: &'static dyn OwnCommands,
    ) -> Games {
        Games { list, own }
    }

    /// Reads `NAME` or `NAME:options`.
    pub(crate) fn parse(&self, text: &str) -> Result<GameSpec, String> {
        parse_game(self.list, text)
    }

    /// The default game: the first one's standard variant.
    pub(crate) fn default_game(&self) -> GameSpec {
        self.list[0]
            .parse_options("")
            .expect("the standard variant parses")
    }

    /// Reads an evaluator argument: a built-in evaluator of one of the games, or a model
    /// file path.
    pub(crate) fn eval_spec(&self, text: &str) -> Result<EvalSpec, String> {
        EvalSpec::parse(text, self.list)
    }

    /// The game of an evaluator spec, when it tells (see [`EvalSpec::game`]).
    pub(crate) fn game_of(&self, spec: &EvalSpec) -> Result<Option<GameSpec>, String> {
        spec.game(self.list)
    }

    /// Runs `job` for the game of `game`.
    pub(crate) fn run(&self, game: &GameSpec, job: Job) -> Result<(), CliError> {
        handle_of(self.list, game).run(game, job)
    }

    /// The games' own subcommands.
    pub(crate) fn own(&self) -> &'static dyn OwnCommands {
        self.own
    }

    /// The endgame databases `--egdb`/`--no-egdb` give the games that have them.
    pub(crate) fn tablebases(
        &self,
        egdb: &super::egdb::EgdbOption,
    ) -> Result<crate::web::Tablebases, CliError> {
        let mut tablebases = crate::web::Tablebases::default();
        for game in self.list {
            game.add_tablebase(egdb, &mut tablebases)?;
        }
        Ok(tablebases)
    }

    /// The games as the web page offers them.
    pub(crate) fn web(&self) -> crate::web::Games {
        crate::web::Games::new(self.list.iter().map(|g| g.web()).collect())
    }
}

/// A game as the command line drives it: its entry in the list and the jobs it runs
/// with its type. Implemented by [`Handle`] for every [`CliGame`].
pub(crate) trait GameHandle: GameEntry {
    /// Runs `job` for `game`, a variant of this handle's game.
    fn run(&self, game: &GameSpec, job: Job) -> Result<(), CliError>;
    /// The same game as the web page drives it.
    fn web(&self) -> &'static dyn crate::web::GameHandle;
    /// Adds the game's endgame database, as `egdb` names it, to `tablebases` (nothing
    /// for a game without databases).
    fn add_tablebase(
        &self,
        egdb: &super::egdb::EgdbOption,
        tablebases: &mut crate::web::Tablebases,
    ) -> Result<(), CliError>;
}

/// The handle of game `G`.
pub(crate) struct Handle<G>(PhantomData<fn() -> G>);

impl<G> Handle<G> {
    pub(crate) const NEW: Handle<G> = Handle(PhantomData);
}

impl<G: CliGame> GameEntry for Handle<G> {
    fn name(&self) -> &'static str {
        G::NAME
    }

    fn parse_options(&self, options: &str) -> Result<GameSpec, String> {
        GameSpec::parse_options::<G>(options)
    }

    fn builtins(&self) -> &'static [&'static str] {
        G::BUILTINS
    }
}

impl<G: CliGame> GameHandle for Handle<G> {
    fn run(&self, game: &GameSpec, job: Job) -> Result<(), CliError> {
        job.run::<G>(game.variant::<G>())
    }

    fn web(&self) -> &'static dyn crate::web::GameHandle {
        &crate::web::Handle::<G>::NEW
    }

    fn add_tablebase(
        &self,
        egdb: &super::egdb::EgdbOption,
        tablebases: &mut crate::web::Tablebases,
    ) -> Result<(), CliError> {
        if G::DEFAULT_DIR.is_some()
            && let Some(tablebase) = egdb.load::<G>()?
        {
            tablebases.insert::<G>(tablebase);
        }
        Ok(())
    }
}

/// The games' own subcommands (the endgame database, the Hub engine, the Kalah
/// solver, …), added to evalearn's.
pub(crate) trait OwnCommands: Sync {
    /// `cli` with the games' subcommands added.
    fn augment(&self, cli: clap::Command) -> clap::Command;
    /// Runs the subcommand of `matches` if it is one of the games'.
    fn run(&self, matches: &clap::ArgMatches) -> Option<Result<(), CliError>>;
}

/// A command generic over the game, with its arguments: what a [`GameHandle`] runs.
pub(crate) enum Job {
    Accuracy(Box<super::accuracy::AccuracyArgs>, EvalSpec),
    Analyse(super::analyse::AnalyseArgs, Option<EvalSpec>),
    Bench(super::bench::BenchArgs, Option<EvalSpec>),
    BenchTrain(super::bench_train::TrainBench, Box<TrainConfig>, String),
    BookBuild(super::book::BuildArgs, EvalSpec),
    BookInfo(PathBuf),
    BookProbe(PathBuf, Option<String>),
    Dataset(super::selfplay::DatasetArgs, String),
    Match(
        Box<super::matches::MatchArgs>,
        super::matches::SideSpec,
        super::matches::SideSpec,
    ),
    ModelInfo(PathBuf, Box<ModelHeader>),
    Moves(super::perft::MovesArgs),
    Perft(super::perft::PerftArgs),
    Play(Box<super::play::PlayArgs>, Option<EvalSpec>),
    SelfPlay(Box<super::selfplay::SelfPlayArgs>, EvalSpec),
    SelfPlayRun(
        Box<super::selfplay::SelfPlayArgs>,
        PathBuf,
        Box<TrainConfig>,
        String,
    ),
    Tournament(
        Box<super::tournament::TournamentArgs>,
        Vec<EvalSpec>,
        Vec<String>,
    ),
    Train(Box<super::train::TrainArgs>, Box<TrainConfig>, String),
    TrainPlan(Box<super::train::TrainArgs>, Box<TrainConfig>, String),
}

impl Job {
    fn run<G: CliGame>(self, variant: G::Variant) -> Result<(), CliError> {
        use super::{
            accuracy, analyse, bench, book, matches, model, perft, play, selfplay, tournament,
            train,
        };
        match self {
            Job::Accuracy(args, spec) => accuracy::accuracy_of::<G>(variant, *args, spec),
            Job::Analyse(args, spec) => analyse::analyse_of::<G>(variant, args, spec),
            Job::Bench(args, spec) => bench::bench_of::<G>(variant, args, spec),
            Job::BenchTrain(bench, config, text) => {
                super::bench_train::bench_train::<G>(variant, bench, *config, text)
            }
            Job::BookBuild(args, spec) => book::build_of::<G>(variant, args, spec),
            Job::BookInfo(path) => book::info_of::<G>(variant, &path),
            Job::BookProbe(path, position) => {
                book::probe_of::<G>(variant, &path, position.as_deref())
            }
            Job::Dataset(args, name) => selfplay::dataset_of::<G>(variant, args, name),
            Job::Match(args, a, b) => matches::run_match_of::<G>(variant, *args, a, b),
            Job::ModelInfo(path, header) => model::describe::<G>(variant, &path, &header),
            Job::Moves(args) => perft::moves_of::<G>(variant, args),
            Job::Perft(args) => perft::perft_of::<G>(variant, args),
            Job::Play(args, spec) => play::play_game::<G>(variant, *args, spec),
            Job::SelfPlay(args, spec) => selfplay::selfplay_of::<G>(variant, *args, spec),
            Job::SelfPlayRun(args, path, config, text) => {
                selfplay::selfplay_of_run::<G>(variant, *args, &path, *config, text)
            }
            Job::Tournament(args, specs, names) => {
                tournament::tournament_of::<G>(variant, *args, specs, names)
            }
            Job::Train(args, config, text) => train::train_game::<G>(variant, *args, *config, text),
            Job::TrainPlan(args, config, text) => train::plan::<G>(variant, &args, &config, &text),
        }
    }
}
