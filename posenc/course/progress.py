"""The learner's progress, kept on their own machine: every ``check_*`` records its result and
every quiz the first choice per question, in one JSON file.

The file is ``$POSENC_PROGRESS`` (default ``~/.posenc/progress.json``), written atomically
(a temporary file in the same folder, then ``os.replace``). A corrupt or unwritable file gives a
one-line warning and never breaks a check: the course works without it. Layout::

    {"version": 1,
     "exercises": {exercise_id: {"solved": bool, "first": "正确" | "再想想", "attempts": int}},
     "quiz": {quiz_name: {question_text: {"first": option_index, "right": bool}}}}

Which exercises each notebook asks is read from the notebooks
(:data:`posenc.course.notebooks.EXERCISES`); :func:`posenc.ui.progress.progress_summary`
reads the file against it and :func:`posenc.ui.progress.show_progress` shows it.
"""
from __future__ import annotations

import json
import os
import pathlib
import sys
import tempfile


#: The environment variable naming the progress file.
PROGRESS_ENV = "POSENC_PROGRESS"
_VERSION = 1

_WARNED: set = set()


def progress_path() -> pathlib.Path:
    """Where the progress file is: ``$POSENC_PROGRESS`` or ``~/.posenc/progress.json``.
   """
    env = os.environ.get(PROGRESS_ENV)
    return pathlib.Path(env).expanduser() if env else pathlib.Path.home() / ".posenc" / "progress.json"


def _warn(message: str) -> None:
    """One line on stderr, once per progress file and session."""
    key = str(progress_path())
    if key not in _WARNED:
        _WARNED.add(key)
        print(message, file=sys.stderr)


def _empty() -> dict:
    return {"version": _VERSION, "exercises": {}, "quiz": {}}


def load_progress() -> dict:
    """The progress record (an empty one when there is no file yet; a corrupt file is
    warned about in one line and read as empty)."""
    path = progress_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return _empty()
    except OSError as err:
        _warn(f"进度文件 {path} 读不了（{err.__class__.__name__}），这次不记录进度；练习照常检查。")
        return _empty()
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if not (isinstance(data, dict) and isinstance(data.get("exercises"), dict)
            and isinstance(data.get("quiz"), dict)):
        _warn(f"进度文件 {path} 已损坏，按空记录处理（下次记录时覆盖它）；练习照常检查。")
        return _empty()
    return data


def _save(data: dict) -> None:
    """Write ``data`` atomically; an unwritable place is warned about in one line."""
    path = progress_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".progress-", suffix=".json", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(data, f, ensure_ascii=False, indent=1, sort_keys=True)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError as err:
        _warn(f"进度文件 {path} 写不进去（{err.__class__.__name__}），这次不记录进度；练习照常检查。")


def record_check(exercise: str, verdict) -> None:
    """Record one answer to the exercise ``exercise`` (an :func:`exercise_id`): the first
    answer's verdict stays, attempts count up, solved stays True once reached. Never raises.
   """
    try:
        data = load_progress()
        entry = data["exercises"].setdefault(
            exercise, {"solved": False, "first": "正确" if verdict else "再想想", "attempts": 0})
        entry["attempts"] = int(entry.get("attempts", 0)) + 1
        entry["solved"] = bool(entry.get("solved")) or bool(verdict)
        _save(data)
    except Exception as err:          # progress must never break a check
        _warn(f"进度没记下来（{err.__class__.__name__}: {err}）；练习照常检查。")


def record_quiz(quiz: str, question: str, choice: int, right: bool) -> None:
    """Record the first choice for a quiz question (later picks change nothing). Never raises.
   """
    try:
        data = load_progress()
        asked = data["quiz"].setdefault(quiz, {})
        if question not in asked:
            asked[question] = {"first": int(choice), "right": bool(right)}
            _save(data)
    except Exception as err:
        _warn(f"进度没记下来（{err.__class__.__name__}: {err}）；测验照常判分。")


def quiz_first_tries(quiz: str, questions) -> tuple[int, int]:
    """(questions whose first recorded choice was right, questions answered at least once)
    for the quiz ``quiz`` among ``questions`` (their texts)."""
    asked = load_progress()["quiz"].get(quiz, {})
    seen = [asked[q] for q in questions if q in asked]
    return sum(bool(s.get("right")) for s in seen), len(seen)


def reset_progress(confirm: bool = False) -> bool:
    """Clear the learner's progress, only with ``confirm=True`` (otherwise say how, and keep
    it). Returns True when it was cleared."""
    if confirm is not True:
        print("进度没有清空：要清空，请运行 pl.reset_progress(confirm=True)。")
        return False
    _save(_empty())
    print(f"进度已清空（{progress_path()}）。")
    return True
