"""kdsl-transpile, files: reading and writing only inside the folders it is given.

A :class:`Root` is a folder named on the command line (``-o OUTDIR``,
``--diff``/``--update GOLDEN_DIR``); the root itself may be a symbolic link,
the user's choice.  Below it:

- paths are ``<module>/<instance>.cu`` (or OUTDIR's ``manifest.json``), each
  part a plain name; resolved, a path must stay inside the root (E623);
- nothing is reached through a symbolic link: a link where kdsl-transpile
  would read, write or delete is an error (E620) and is left as it is;
- a file is written whole: into a temporary file in the same folder, then
  renamed over the old one (``os.replace``), so a reader never sees half a
  file, and the bytes of a hard link to the old file stay as they were;
- unchanged files are not rewritten (their mtimes stay).

What may be deleted is decided by the callers (``output.py``); they delete
through :meth:`Root.remove`, which checks the same way.  The checks come
before each operation; they do not guard against another process changing
the folder during the run.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from pathlib import Path

from kdsl.transpile.errors import error

MANIFEST = "manifest.json"


def shown(path) -> str:
    """A path for a message: as it is, or quoted with escapes if it holds a
    character that is not printable (a newline would forge output)."""
    text = str(path)
    return text if text.isprintable() else repr(text)


def module_name_rule(name: str) -> str | None:
    """Why ``name`` cannot be a folder of OUTDIR or GOLDEN_DIR, or None."""
    if not name.strip("."):
        return "is made of dots only"
    if "/" in name or "\\" in name:
        return "holds a path separator ('/' or '\\')"
    if not name.isprintable():
        return "holds a character that is not printable"
    if name.casefold() == MANIFEST:
        return f"is the name of OUTDIR's {MANIFEST}"
    return None


def _plain(rel: str) -> bool:
    """``rel`` is one or two plain names: no '', '.', '..', root or separator
    other than the one '/' between them."""
    parts = rel.split("/")
    return 0 < len(parts) <= 2 and all(
        p not in ("", ".", "..") and "\\" not in p and "\0" not in p for p in parts
    )


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISREG(mode):
        return "a file"
    return "a special file"


def _file_mode(path: Path) -> int:
    """What ``open(path, "w")`` would leave: an existing file's permissions,
    or for a new file 0o666 less the umask."""
    try:
        return stat.S_IMODE(os.lstat(path).st_mode)
    except FileNotFoundError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


def _through_existing(path: Path) -> Path:
    """``path`` with each ``..`` after a folder that does not exist dropped
    with that folder (``nonexist/../real`` is ``real``): the system cannot
    resolve such a path, and creating it would leave the empty folder behind.
    A ``..`` after something that exists (a link, say) is left to the system."""
    out = Path(path.anchor) if path.anchor else Path()
    kept: list[str] = []  # the parts of ``out`` that may still be dropped
    for part in path.parts[1:] if path.anchor else path.parts:
        if part == ".":
            continue
        if part == ".." and kept and not os.path.lexists(out):
            kept.pop()
            out = out.parent
            continue
        out = out / part
        if part == "..":
            kept.clear()  # (left to the system: nothing before it is dropped)
        else:
            kept.append(part)
    return out


class Root:
    """A folder given on the command line, under ``flag`` (for messages)."""

    def __init__(self, path: Path, flag: str):
        self.path = _through_existing(Path(path))
        self.flag = flag

    def check(self) -> None:
        """The root is a folder (through a link, if it is one) or absent."""
        if os.path.lexists(self.path) and not self.path.is_dir():
            raise error("cli-not-a-folder", flag=self.flag, path=shown(self.path))

    def locate(self, rel: str, folder: bool = False) -> Path:
        """``root/rel``, refused if it leaves the root, goes through a link or
        finds something else than a folder on the way and a file (or with
        ``folder``, a folder) at its end.  It need not exist."""
        if not _plain(rel) or os.path.isabs(rel):
            raise self._outside(rel)
        parts = rel.split("/")
        path = self.path
        for i, part in enumerate(parts):
            path = path / part
            try:
                mode = os.lstat(path).st_mode
            except FileNotFoundError:
                break
            except OSError as exc:
                if exc.errno == errno.ENAMETOOLONG:
                    break  # no such file: writing it will say why it cannot be
                raise error("cli-read-failed", path=shown(path), reason=exc.strerror)
            if stat.S_ISLNK(mode):
                raise error(
                    "cli-symlink",
                    path=shown(path),
                    flag=self.flag,
                    root=shown(self.path),
                )
            want_file = i == len(parts) - 1 and not folder
            if not (stat.S_ISREG(mode) if want_file else stat.S_ISDIR(mode)):
                raise error(
                    "cli-not-a-file",
                    path=shown(path),
                    found=_kind(mode),
                    expected="a file" if want_file else "a folder",
                )
        real_root = os.path.realpath(self.path)
        real = os.path.realpath(self.path / rel)
        if os.path.commonpath([real_root, real]) != real_root:
            raise self._outside(rel)
        return self.path / rel

    def _outside(self, rel: str):
        return error(
            "cli-path-outside",
            path=shown(rel),
            flag=self.flag,
            root=shown(self.path),
        )

    def read(self, rel: str) -> bytes | None:
        """The bytes of ``root/rel``, or None if there is no such file."""
        path = self.locate(rel)
        try:
            return path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise error("cli-read-failed", path=shown(path), reason=exc.strerror)

    def cu_files(self, module: str) -> list[str]:
        """The ``<module>/*.cu`` names in the root (whatever they are: reading
        them checks them)."""
        folder = self.locate(module, folder=True)
        if not os.path.lexists(folder):
            return []
        try:
            names = sorted(e.name for e in os.scandir(folder))
        except OSError as exc:
            raise error("cli-read-failed", path=shown(folder), reason=exc.strerror)
        return [f"{module}/{n}" for n in names if n.endswith(".cu")]

    def write(self, rel: str, text: str) -> None:
        """``root/rel`` holds ``text`` (UTF-8), written whole; untouched if it
        already did."""
        data = text.encode("utf-8")
        path = self.locate(rel)
        try:
            if path.read_bytes() == data:
                return  # leave mtimes alone, so that make-style builds see no change
        except OSError:
            pass  # absent, or unreadable: writing says why, if it fails
        made = [p for p in (self.path, path.parent) if not os.path.lexists(p)]
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            path.parent.mkdir(exist_ok=True)
            self.locate(rel)  # nothing became a link meanwhile
            _replace(path, data)
        except OSError as exc:
            for folder in reversed(made):  # leave no empty folder behind
                with contextlib.suppress(OSError):
                    folder.rmdir()
            raise error(
                "cli-write-failed",
                action="write",
                path=shown(path),
                reason=exc.strerror,
            )

    def remove(self, rel: str) -> None:
        """Delete the file ``root/rel``, and its folder once empty."""
        path = self.locate(rel)
        try:
            path.unlink()
            if path.parent != self.path and not any(path.parent.iterdir()):
                path.parent.rmdir()
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise error(
                "cli-write-failed",
                action="delete",
                path=shown(path),
                reason=exc.strerror,
            )


def _replace(path: Path, data: bytes) -> None:
    """Write ``data`` to a new file next to ``path``, then rename it over
    ``path``: readers see the old file or the new one, never a part."""
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".kdsl-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(temp, _file_mode(path))
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
