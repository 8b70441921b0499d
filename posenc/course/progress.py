"""The learner's progress, kept on their own machine in one JSON file: every declared exercise and
drill (:mod:`posenc.course.catalogue`) its result, every quiz question its first choice, every
worksheet case its boxes.

The file is ``$POSENC_PROGRESS`` (default ``~/.posenc/progress.json``). Layout (version 2)::

    {"version": 2,
     "exercises": {exercise_id: {"solved": bool, "first": "正确" | "再想想", "attempts": int}},
     "quiz": {question_id: {"first": option_index, "right": bool}},
     "worksheet": {worksheet_id: {case_key: {"size": n_boxes,
                                             "boxes": {box_id: {"right": bool, "attempts": int}}}}},
     "legacy": {"exercises": {...}, "quiz": {...}}}

Every key is a declared id, never a question's wording or a call's arguments. A version-1 file
(the layout until this change: exercise keys derived from a check's arguments, quiz answers keyed
by quiz name and question text) is migrated when it is read, with the frozen table
``progress_v1.json`` beside this module; entries the table does not know are kept under
``legacy``, and the first write after a migration keeps a copy of the version-1 file beside it.
The static page keeps the same layout in the reader's browser and migrates the same way
(``tools/site/record.js``; a test feeds both the same file).

Nothing here ever breaks a check or loses a record: each write is a read-modify-write under a
lock (two kernels may record at once), written atomically (a temporary file in the same folder,
then ``os.replace``); a corrupt file is set aside (renamed, not deleted) before a fresh one is
written; a file from a newer version of the course or one that cannot be read is never
overwritten; an unwritable place or a full disk leaves the file as it was. Each of these gives
one line on stderr, once per file and session.
"""
from __future__ import annotations

import contextlib
import datetime
import functools
import json
import os
import pathlib
import sys
import tempfile

#: The environment variable naming the progress file.
PROGRESS_ENV = "POSENC_PROGRESS"
VERSION = 2
#: The frozen table that maps a version-1 record's keys to declared ids.
V1_TABLE = pathlib.Path(__file__).with_name("progress_v1.json")

_WARNED: set = set()


def progress_path() -> pathlib.Path:
    """Where the progress file is: ``$POSENC_PROGRESS`` or ``~/.posenc/progress.json``.
   """
    env = os.environ.get(PROGRESS_ENV)
    return pathlib.Path(env).expanduser() if env else pathlib.Path.home() / ".posenc" / "progress.json"


def _warn(kind: str, message: str) -> None:
    """One line on stderr, once per progress file, kind of trouble and session."""
    key = (str(progress_path()), kind)
    if key not in _WARNED:
        _WARNED.add(key)
        print(message, file=sys.stderr)


def empty() -> dict:
    """A record with nothing in it (the current layout)."""
    return {"version": VERSION, "exercises": {}, "quiz": {}, "worksheet": {}, "legacy": {}}


@functools.cache
def v1_table() -> dict:
    """The frozen migration table: ``{"exercises": {v1 key: id}, "quiz": {quiz name: {text: id}}}``."""
    return json.loads(V1_TABLE.read_text(encoding="utf-8"))


def _merge_exercise(into: dict, entry: dict) -> dict:
    """Two records of one exercise as one: solved if either was, attempts added, the first kept."""
    if not into:
        return dict(entry)
    return {"solved": bool(into.get("solved")) or bool(entry.get("solved")), "first": into.get("first", entry.get("first")),
            "attempts": int(into.get("attempts", 0)) + int(entry.get("attempts", 0))}


def migrate(data: dict, table: dict | None = None) -> dict:
    """A version-1 record in the current layout (a current record is returned as it is). Keys the
    frozen ``table`` (:func:`v1_table`) maps become declared ids; the others are kept, unchanged,
    under ``legacy``. Pure: the same function, written once more in the page's script, is held
    equal to this one by a test."""
    if data.get("version") == VERSION:
        return data
    table = v1_table() if table is None else table
    out = empty()
    for key, entry in data.get("exercises", {}).items():
        new = table["exercises"].get(key)
        if new is None:
            out["legacy"].setdefault("exercises", {})[key] = entry
        else:
            out["exercises"][new] = _merge_exercise(out["exercises"].get(new), entry)
    for quiz, asked in data.get("quiz", {}).items():
        known = table["quiz"].get(quiz, {})
        for text, entry in (asked or {}).items():
            new = known.get(text)
            if new is None:
                out["legacy"].setdefault("quiz", {}).setdefault(quiz, {})[text] = entry
            elif new not in out["quiz"]:
                out["quiz"][new] = entry
    return out


class _Unusable(Exception):
    """The file must not be written this session (newer version, unreadable)."""


def _read(path: pathlib.Path, warn_corrupt: bool = True) -> tuple[dict, str]:
    """(the record, its state): ``"ok"``, ``"missing"``, ``"migrated"``, ``"corrupt"``,
    ``"newer"``, ``"readonly"`` or ``"unreadable"``. Never raises; warns once for the troubled states."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return empty(), "missing"
    except (OSError, UnicodeDecodeError) as err:
        _warn("unreadable", f"进度文件 {path} 读不了（{err.__class__.__name__}），这次不记录进度，也不覆盖它；练习照常检查。")
        return empty(), "unreadable"
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if not (isinstance(data, dict) and isinstance(data.get("exercises"), dict) and isinstance(data.get("quiz"), dict)):
        if warn_corrupt:
            _warn("corrupt", f"进度文件 {path} 已损坏：按空记录处理，下次记录时把它改名留作备份（不删除）；练习照常检查。")
        return empty(), "corrupt"
    if not path.stat().st_mode & 0o222:
        _warn("readonly", f"进度文件 {path} 是只读的：这次只读不写，不会改动它；练习照常检查。")
        return migrate(data) if data.get("version", 1) == 1 else data, "readonly"
    version = data.get("version", 1)
    if not isinstance(version, int) or version > VERSION:
        _warn("newer", f"进度文件 {path} 来自更新版本的课程（version {version}）：这次只读不写，不会改动它；练习照常检查。")
        return {**empty(), **{k: data[k] for k in ("exercises", "quiz", "worksheet") if isinstance(data.get(k), dict)}}, "newer"
    if version < VERSION:
        return migrate(data), "migrated"
    for k, v in empty().items():
        data.setdefault(k, v)
    return data, "ok"


def load_progress() -> dict:
    """The progress record in the current layout (an empty one when there is no file yet; a
    version-1 file migrated; a corrupt one read as empty). Never raises.
   """
    return _read(progress_path())[0]


@contextlib.contextmanager
def _locked(path: pathlib.Path):
    """An exclusive lock beside the file for one read-modify-write (no lock where the platform
    has none: the write is still atomic)."""
    try:
        import fcntl
    except ImportError:            # pragma: no cover  (Windows)
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(path.name + ".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _stamp() -> str:
    return datetime.datetime.now().strftime("%Y%m%d-%H%M%S")


def _write(path: pathlib.Path, data: dict) -> None:
    fd, tmp = tempfile.mkstemp(prefix=".progress-", suffix=".json", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, ensure_ascii=False, indent=1, sort_keys=True)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def update(change, what: str = "练习照常检查") -> bool:
    """Apply ``change(record)`` to the record on disk and write it back; True when written.
    Never raises: troubles give one line (``what`` says what carries on regardless)."""
    path = progress_path()
    try:
        with _locked(path):
            data, state = _read(path, warn_corrupt=False)
            if state in ("newer", "unreadable", "readonly"):
                return False
            if state == "corrupt":
                aside = path.with_name(f"{path.name}.corrupt-{_stamp()}")
                os.replace(path, aside)
                _warn("corrupt", f"进度文件 {path} 已损坏：已改名为 {aside} 留作备份（没有删除），新的记录从空开始；练习照常检查。")
            if state == "migrated":
                copy = path.with_name(path.stem + ".v1.json")
                if not copy.exists():
                    copy.write_bytes(path.read_bytes())
            change(data)
            _write(path, data)
            return True
    except Exception as err:       # progress must never break a check
        _warn("unwritable", f"进度文件 {path} 写不进去（{err.__class__.__name__}），这次不记录进度，原来的记录不变；{what}。")
        return False


def record_check(exercise: str, verdict) -> None:
    """Record one answer to the declared exercise ``exercise`` (its id): the first answer's
    verdict stays, attempts count up, solved stays True once reached. Never raises.
   """
    def change(data):
        entry = data["exercises"].setdefault(
            exercise, {"solved": False, "first": "正确" if verdict else "再想想", "attempts": 0})
        entry["attempts"] = int(entry.get("attempts", 0)) + 1
        entry["solved"] = bool(entry.get("solved")) or bool(verdict)

    update(change)


def record_quiz(question: str, choice: int, right: bool) -> None:
    """Record the first choice for the quiz question ``question`` (its id); later picks change
    nothing. Never raises."""
    if question in load_progress()["quiz"]:
        return

    def change(data):
        data["quiz"].setdefault(question, {"first": int(choice), "right": bool(right)})

    update(change, "测验照常判分")


def record_worksheet(worksheet: str, case: str, size: int, box: str, right: bool) -> None:
    """Record one checked box of a worksheet case: ``worksheet`` (its declared id), ``case``
    (:attr:`posenc.exercises.worksheet.WorksheetCase.key`), ``size`` (the case's number of
    boxes), ``box`` (the box's id) and whether it was right (a box once right stays right).
    Never raises."""
    def change(data):
        cases = data["worksheet"].setdefault(worksheet, {})
        entry = cases.setdefault(case, {"size": int(size), "boxes": {}})
        b = entry["boxes"].setdefault(box, {"right": False, "attempts": 0})
        b["attempts"] = int(b.get("attempts", 0)) + 1
        b["right"] = bool(b.get("right")) or bool(right)

    update(change, "练习纸照常检查")


def worksheet_cases(data: dict, worksheet: str) -> tuple[int, int]:
    """(cases with every box right, cases with at least one box tried) of ``worksheet`` in ``data``."""
    cases = data.get("worksheet", {}).get(worksheet, {})
    done = sum(1 for c in cases.values() if len(c.get("boxes", {})) >= c.get("size", 1) > 0
               and all(b.get("right") for b in c["boxes"].values()))
    return done, len(cases)


def quiz_first_tries(questions) -> tuple[int, int]:
    """(questions whose first recorded choice was right, questions answered at least once)
    among ``questions`` (their ids)."""
    asked = load_progress()["quiz"]
    seen = [asked[q] for q in questions if q in asked]
    return sum(bool(s.get("right")) for s in seen), len(seen)


def reset_progress(confirm: bool = False) -> bool:
    """Clear the learner's progress, only with ``confirm=True`` (otherwise say how, and keep
    it). Returns True when it was cleared."""
    if confirm is not True:
        print("进度没有清空：要清空，请运行 pl.reset_progress(confirm=True)。")
        return False

    def change(data):
        data.clear()
        data.update(empty())

    if update(change, "进度没有清空"):
        print(f"进度已清空（{progress_path()}）。")
        return True
    return False
