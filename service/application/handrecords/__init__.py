"""Hand records: a game as a readable, parseable text (docs/record-format.md) and as JSON.

A record is built from a game's events for one viewer and holds only what that viewer
may see (docs/api.md "Hand records": before the end a seat sees its own hands and
passes, the public none; after it, and for operators, everything).

- ``model.py``: the record as data; ``build.py``: built from events for a viewer;
- ``text.py`` and ``as_json.py``: its two forms; ``parse.py``: the text read back;
- ``replay.py``: a complete record as the rules' commands that play it again, and the
  check that the game they make gives the same record; ``importing.py``: the import
  command's handler; ``queries.py``: a game's record and the operators' export.

Our own format because there is none for this game; it follows PGN's shape (tags, then
the moves) so that it reads like a card-game record. Every line names a line kind, so a
parser (ours or anyone's) needs no lookahead.
"""
