"""A pydraughts RoundRobin tournament between two `evalearn hub` engines.

Usage: round_robin.py EVALEARN MODEL PDN GAMES START_TIME INCREMENT [OVERHEAD_MS]
                      [--strict-clock]

Engine 1 plays with MODEL, engine 2 with the material evaluator, GAMES games (colours
alternate) at START_TIME seconds + INCREMENT a move, Brazilian draughts, at most 300
plies. Checked here:
- every move an engine returns is in pydraughts' own legal-move list;
- the PDN pydraughts writes holds GAMES games that replay legally, each ending where the
  rules end it (or at the move cap), with the result the rules give.
The time each move took is measured and reported (the most spent, the least left over);
with --strict-clock a move that took longer than the time it had left fails the run
(pydraughts itself does not check: its clock just goes negative). That check measures
the machine as much as the engine, so the test suite leaves it out: it is a benchmark
for a quiet machine, not a test.
Prints one summary line; exits non-zero with the reason on the first failure.
"""

import sys
import time

import draughts
import draughts.tournament
from draughts import Board
from draughts.PDN import PDNReader

args = [a for a in sys.argv[1:] if a != "--strict-clock"]
strict_clock = len(args) < len(sys.argv) - 1
evalearn, model, pdn_path, games, start_time, increment = args[0:6]
games = int(games)
start_time = float(start_time)
increment = float(increment)
MAX_PLIES = 300
OVERHEAD_MS = int(args[6]) if len(args) > 6 else 100
forfeits = 0

failures = []
moves_played = 0
least_slack = float("inf")
most_spent = 0.0
original_play = draughts.tournament.HubEngine.play


def checked_play(engine, board, limit, ponder):
    """The tournament's engine call, watched: legality and the clock."""
    global moves_played, least_slack, most_spent, forfeits
    legal = [move.board_move for move in board.legal_moves()]
    time_left = limit.time
    started = time.perf_counter()
    result = original_play(engine, board, limit, ponder)
    spent = time.perf_counter() - started
    moves_played += 1
    most_spent = max(most_spent, spent)
    least_slack = min(least_slack, time_left - spent)
    if result.move is None or result.move.board_move not in legal:
        failures.append(f"illegal move {result.move and result.move.hub_move} at ply "
                        f"{len(board.move_stack)} of {board.fen}")
    if spent >= time_left:
        forfeits += 1
        if strict_clock:
            failures.append(f"time forfeit: {spent:.3f} s spent with {time_left:.3f} s "
                            f"left at ply {len(board.move_stack)}")
    return result


draughts.tournament.HubEngine.play = checked_play

players = [
    ([evalearn, "hub", "--model", model], "hub", {"move-overhead": OVERHEAD_MS}, None),
    ([evalearn, "hub", "--eval", "material"], "hub", {"move-overhead": OVERHEAD_MS}, None),
]
tournament = draughts.tournament.RoundRobin(
    pdn_path, players, start_time, increment, variant="brazilian",
    games_per_pair=games, max_moves=MAX_PLIES)
scores = tournament.play()
if failures:
    sys.exit("FAIL: " + "; ".join(failures[:5]))

# The PDN file, read back by pydraughts' reader and replayed by its rules.
read = PDNReader(filename=pdn_path).games
if len(read) != games:
    sys.exit(f"FAIL: the PDN holds {len(read)} games, not {games}")
wins = {"2-0": 0, "1-1": 0, "0-2": 0}
for number, game in enumerate(read, 1):
    board = Board("brazilian")  # pydraughts writes GameType "20" even for Brazilian
    for ply, text in enumerate(game.moves):
        legal = [move.board_move for move in board.legal_moves()]
        try:
            move = draughts.Move(board, pdn_move=text)  # algebraic, as written
        except Exception as error:
            sys.exit(f"FAIL: PDN game {number} ply {ply + 1}: {text} unreadable: {error!r}")
        if move.board_move not in legal:
            sys.exit(f"FAIL: PDN game {number} ply {ply + 1}: {text} is not legal")
        board.push(move)
    plies = len(board.move_stack)
    if not board.is_over() and plies < MAX_PLIES:
        sys.exit(f"FAIL: PDN game {number} stops after {plies} plies in a game not over")
    winner = board.winner()
    expected = "2-0" if winner == draughts.WHITE else "0-2" if winner == draughts.BLACK else "1-1"
    result = game.tags.get("Result")
    if result != expected or game.game_ending != expected:
        sys.exit(f"FAIL: PDN game {number}: result {result}/{game.game_ending}, "
                 f"the rules give {expected}")
    if game.tags.get("PlyCount") != str(plies):
        sys.exit(f"FAIL: PDN game {number}: PlyCount {game.tags.get('PlyCount')}, "
                 f"{plies} plies played")
    wins[expected] += 1

print(f"OK games={games} moves={moves_played} scores={scores} results={wins} "
      f"most_spent={most_spent:.3f}s least_slack={least_slack:.3f}s "
      f"over_time={forfeits}")
