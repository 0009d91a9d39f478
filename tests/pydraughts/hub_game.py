"""A game against `evalearn hub` driven move by move through pydraughts' HubEngine.

Usage: hub_game.py EVALEARN MODEL

evalearn plays both sides of one Brazilian game from the start, each move under another
kind of limit (depth, nodes, move time, clock, and a ponder search ended by ponder-hit).
Every move is checked against pydraughts' own legal-move list, every search's info
against what HubEngine parses. The engine searches on two threads (where the machine runs
two at once). Also: the handshake's id, variants and parameters, `threads` refused at 0,
ping, a capture with two paths answered at once as one forced move, an analysis stopped
by `stop`.
Prints one summary line; exits non-zero with the reason on failure.
"""

import sys
import threading
import time

import draughts
from draughts import Board
from draughts.engine import HubEngine, Limit

evalearn, model = sys.argv[1:3]


def fail(message):
    sys.exit("FAIL: " + message)


engine = HubEngine([evalearn, "hub", "--model", model])
if engine.id.get("name") != "evalearn":
    fail(f"id {engine.id}")
if "brazilian" not in engine.variants:
    fail(f"variants {engine.variants}")
if not {"variant", "eval", "hash", "threads", "move-overhead"} <= engine.options:
    fail(f"parameters {engine.options}")
engine.configure({"variant": "brazilian", "hash": 16})


def answers_before_pong():
    """The engine's lines between now and the answer to a ping."""
    engine.send("ping")
    lines = []
    while True:
        command, arg = engine.recv_hub()
        if command == "pong":
            return lines
        lines.append(f"{command} {arg}")


# No search without a thread: an error line. Two threads where the machine runs two at
# once (the whole game below then searches on both); refused, saying so, where it runs one.
engine.send("set-param name=threads value=0")
answer = answers_before_pong()
if len(answer) != 1 or not answer[0].startswith("error message=") or "threads=0" not in answer[0]:
    fail(f"threads=0 answered {answer}")
engine.setoption("threads", 2)
answer = answers_before_pong()
if answer and not (len(answer) == 1 and "this machine runs 1 at once" in answer[0]):
    fail(f"threads=2 answered {answer}")
engine.init()
engine.ping()

limits = [
    ("depth", lambda: Limit(depth=5)),
    ("nodes", lambda: Limit(nodes=20000)),
    ("move-time", lambda: Limit(movetime=0.05)),
    ("clock", lambda: Limit(time=3.0, inc=0.05)),
    ("ponder", lambda: Limit(movetime=0.05)),
]
board = Board("brazilian")
checked = 0
infos = 0
while not board.is_over() and len(board.move_stack) < 200:
    kind, make_limit = limits[len(board.move_stack) % len(limits)]
    moves = board.legal_moves()
    legal = [move.board_move for move in moves]
    # pydraughts lists each path of a capture; the rules (and the engine, which answers
    # a forced move at once) count one move per start, end and captured set: the Hub text.
    distinct = {move.hub_move for move in moves}
    fen = board.fen
    if kind == "ponder":
        # `go ponder` answers only after ponder-hit: send it from another thread, and
        # mark it sent first. An answer read while the mark is still clear came before
        # the hit (no clock is read: a busy machine can only make this check miss).
        sent = threading.Event()

        def send_hit():
            sent.set()
            engine.ponderhit()

        hit = threading.Timer(0.1, send_hit)
        hit.start()
        result = engine.play(board, make_limit(), True)
        answered_before_hit = not sent.is_set()
        hit.join()
        if answered_before_hit:
            fail(f"done before ponder-hit at ply {len(board.move_stack)}")
    else:
        result = engine.play(board, make_limit(), False)
    if result.move is None or result.move.board_move not in legal:
        fail(f"{kind}: move {result.move and result.move.hub_move} not legal in {fen} "
             f"(legal: {[m.hub_move for m in board.legal_moves()]})")
    if result.ponder is not None:
        after = board.copy()
        after.push(result.move)
        if result.ponder.board_move not in [m.board_move for m in after.legal_moves()]:
            fail(f"{kind}: ponder move {result.ponder.hub_move} not legal")
    info = result.info
    if info:
        infos += 1
        missing = {"depth", "score", "nodes", "nps", "time", "pv"} - set(info)
        if missing:
            fail(f"{kind}: info without {missing}: {info}")
        if kind == "depth" and info["depth"] != 5 and "win" not in info["score"]:
            fail(f"depth 5 asked, info says {info}")
    elif len(distinct) > 1:
        fail(f"{kind}: no info for a search with {len(distinct)} legal moves")
    board.push(result.move)
    checked += 1

# A capture with two paths over the same men is one move, so it is forced: on a move
# time the engine answers it at once, without a search.
two_paths = Board("brazilian", "W:Wa1,e3,h4,c1,e1,g1,b2,d2,h2:Bc5,e5,g5,h6,a7,c7,e7,g7,b8,f8,h8")
paths = two_paths.legal_moves()
if len(paths) != 2 or len({move.hub_move for move in paths}) != 1:
    fail(f"expected two paths of one capture, pydraughts lists {[m.board_move for m in paths]}")
result = engine.play(two_paths, Limit(movetime=0.05), False)
if result.move is None or result.move.hub_move != paths[0].hub_move or result.info:
    fail(f"forced capture: move {result.move and result.move.hub_move}, info {result.info}")

# An analysis without limits, ended by stop.
engine.send(f"pos pos={board._game.initial_hub_fen} moves=\"{' '.join(m.hub_move for m in board.move_stack[:20])}\"")
engine.send("level infinite")
engine.send("go analyze")
time.sleep(0.2)
engine.stop()
while True:
    command, arg = engine.recv_hub()
    if command == "done":
        break
    if command not in ("info",):
        fail(f"unexpected '{command} {arg}' during analysis")
engine.ping()
engine.quit()
engine.kill_process()
print(f"OK plies={checked} searches_with_info={infos} "
      f"over={board.is_over()} winner={board.winner()}")
