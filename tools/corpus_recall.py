"""Print legacydoc's recall on the field corpus (fixtures/tickets/), by era, theme and OS.

    python tools/corpus_recall.py            # the table, then every missed case
    python tools/corpus_recall.py --summary  # the table only
    python tools/corpus_recall.py --tickets DIR  # another batch in the same shape (a
                                                 # held-out set, before it joins the corpus)

The same scoring as tests/test_tickets.py (tests/corpus.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import corpus  # noqa: E402

from legacydoc.engine import load_rules  # noqa: E402


def main(argv: list[str]) -> int:
    root = corpus.TICKETS
    if "--tickets" in argv:
        at = argv.index("--tickets")
        if at + 1 >= len(argv) or not Path(argv[at + 1]).is_dir():
            print("corpus_recall: --tickets needs a folder of cases", file=sys.stderr)
            return 2
        root = Path(argv[at + 1])
    rules = load_rules()
    text = corpus.report(corpus.run(False, rules, root), corpus.run(True, rules, root))
    if "--summary" in argv:
        text = text.split("\nmissed with the log")[0]
    try:
        print(text)
    except BrokenPipeError:  # piped into head
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
