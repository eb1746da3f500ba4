"""Settings: the nearest configuration above each file, overridden by the CLI.

A folder's configuration is its ``.jaxlint.toml`` or ``jaxlint.toml`` (top-level keys), else
its ``pyproject.toml`` if that has a ``[tool.jaxlint]`` table, as ruff resolves
``ruff.toml``/``pyproject.toml``; each file gets the one nearest above it (``Resolver``).
Validation is strict: a file that is not TOML, an unknown key, a wrong type or an unknown
rule code is an error that names the file, the line and the key (exit 2), never a warning
and never a silent fallback to the defaults.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tomllib
from dataclasses import asdict, dataclass, field
from typing import Any

OUTPUT_FORMATS = ("full", "concise", "json", "github", "sarif", "gitlab")
DEFAULT_TARGET = "0.10.2"


class ConfigError(Exception):
    pass


@dataclass
class Settings:
    select: list[str] | None = None
    extend_select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    exclude: list[str] = field(default_factory=list)
    extend_exclude: list[str] = field(default_factory=list)
    preview: bool = False
    unfixable: list[str] = field(default_factory=list)
    force_exclude: bool = False
    target_jax_version: str = DEFAULT_TARGET
    output_format: str | None = None
    rules: dict[str, dict[str, Any]] = field(default_factory=dict)
    root: str = "."
    config_path: str | None = None
    config_table: dict[str, Any] | None = None  # as read, for validation after a cache miss
    # the lowest jax the project declares (jaxlint.lint.requirements) when no target is set:
    # a fix is safe only if its replacement exists there; None: the target itself
    minimum_jax_version: str | None = None
    jax_requirement: str | None = None  # "`jax>=0.4.20` in /p/pyproject.toml [project] dependencies"
    selections: list[tuple[str, list[str]]] = field(default_factory=list)  # (where, selectors): for warnings
    target_set_in: str | None = None  # the file or option that set target-jax-version

    def fingerprint(self) -> str:
        """Hash of everything that changes results (for the cache key)."""
        d = asdict(self)
        d.pop("output_format", None)
        d.pop("config_path", None)
        d.pop("config_table", None)
        d.pop("target_set_in", None)
        return hashlib.sha256(json.dumps(d, sort_keys=True, default=str).encode()).hexdigest()[:16]

    @property
    def target_version(self) -> tuple[int, ...]:
        return parse_version(self.target_jax_version)

    @property
    def minimum_version(self) -> tuple[int, ...]:
        """The lowest jax the code must run on: what a fix's replacement must exist in."""
        return parse_version(self.minimum_jax_version or self.target_jax_version)

    def set_target(self, version: str, where: str) -> None:
        """An explicit target (CLI or config) wins over the inferred requirement."""
        self.target_jax_version = version
        self.target_set_in = where
        self.minimum_jax_version = self.jax_requirement = None


def parse_version(text: str) -> tuple[int, ...]:
    if not re.fullmatch(r"\d+(\.\d+){0,2}", text):
        raise ConfigError(f"invalid JAX version {text!r} (expected e.g. '0.4.30')")
    parts = tuple(int(p) for p in text.split("."))
    return parts + (0,) * (3 - len(parts))


_KEYS: dict[str, type] = {
    "select": list,
    "extend-select": list,
    "ignore": list,
    "per-file-ignores": dict,
    "exclude": list,
    "extend-exclude": list,
    "preview": bool,
    "unfixable": list,
    "force-exclude": bool,
    "target-jax-version": str,
    "output-format": str,
    "rules": dict,
}


CONFIG_NAMES = (".jaxlint.toml", "jaxlint.toml", "pyproject.toml")
MAX_CONFIG_BYTES = 1 << 20


def read_toml(path: str) -> dict[str, Any]:
    """A configuration file's TOML; ConfigError (one line naming the file, and the line when
    the TOML is invalid) for anything else: not a regular file (a FIFO would block the run,
    ``/dev/zero`` fill its memory), too large, unreadable, not UTF-8 (TOML is), not TOML."""
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise ConfigError(f"{path}: configuration file not found") from None
    except OSError as e:
        raise ConfigError(f"{path}: cannot read configuration: {e.strerror}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kinds = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"))
            kind = next((k for test, k in kinds if test(st.st_mode)), "not a regular file")
            raise ConfigError(f"{path}: not a regular file ({kind})")
        if st.st_size > MAX_CONFIG_BYTES:
            raise ConfigError(f"{path}: cannot read configuration: larger than {MAX_CONFIG_BYTES >> 20} MiB")
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(MAX_CONFIG_BYTES + 1)
    except OSError as e:
        raise ConfigError(f"{path}: cannot read configuration: {e.strerror}") from None
    finally:
        os.close(fd)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        column = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise ConfigError(
            f"{path}: cannot read configuration: it is not UTF-8 text (byte {data[e.start]:02x} at {line}:{column})"
        ) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        m = re.search(r" \(at line (\d+), column \d+\)$", str(e))
        if m is None:
            raise ConfigError(f"{path}: invalid TOML: {e}") from None
        raise ConfigError(f"{path}:{m.group(1)}: invalid TOML: {str(e)[: m.start()]}") from None


def config_in(directory: str) -> str | None:
    """The folder's own configuration file, if it has one (a broken pyproject.toml is an error)."""
    for name in CONFIG_NAMES:
        p = os.path.join(directory, name)
        if not os.path.isfile(p):
            continue
        if name != "pyproject.toml":
            return p
        tool = read_toml(p).get("tool")
        if isinstance(tool, dict) and "jaxlint" in tool:
            return p
    return None


def find_config(start: str) -> str | None:
    """The nearest configuration upwards from ``start`` (see the module docstring)."""
    d = os.path.abspath(start)
    if os.path.isfile(d):
        d = os.path.dirname(d)
    while True:
        p = config_in(d)
        if p is not None:
            return p
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def load_settings(config_path: str | None, start: str = ".", validate: bool = True) -> Settings:
    """Settings from the nearest configuration. With ``validate=False`` rule codes are not
    checked yet (that needs every rule imported): call ``validate_settings`` before linting."""
    path = config_path or find_config(start)
    if path is None:
        s = Settings(root=os.path.abspath(start if os.path.isdir(start) else os.path.dirname(start) or "."))
        infer_jax(s, start)
        return s
    data = read_toml(path)
    # a pyproject.toml (or any file with a [tool.jaxlint] table), or a dedicated jaxlint.toml
    tool = data.get("tool")
    if isinstance(tool, dict) and "jaxlint" in tool:
        table = tool["jaxlint"]
    elif os.path.basename(path) == "pyproject.toml":
        table = {}
    else:
        table = data
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.jaxlint] must be a table")
    s = Settings(root=os.path.dirname(os.path.abspath(path)), config_path=path, config_table=table)
    apply_table(s, table, path, validate)
    if "target-jax-version" not in table:
        infer_jax(s, start)
    return s


def infer_jax(s: Settings, start: str) -> None:
    """The project's lowest allowed jax, from the nearest project above ``start``."""
    from jaxlint.lint.requirements import project_requirement

    folder = start if os.path.isdir(start) else os.path.dirname(start) or "."
    found = project_requirement(os.path.abspath(folder))
    if found is not None:
        where = found.where
        rel = os.path.relpath(where.split(" ")[0])
        if not rel.startswith(".."):
            where = rel + where[len(where.split(" ")[0]) :]
        s.minimum_jax_version = found.lower
        s.jax_requirement = f"`{found.spec}` in {where}"


def validate_settings(s: Settings) -> None:
    """Check the configured rule codes and rule options (raises ConfigError)."""
    if s.config_table is not None and s.config_path is not None:
        apply_table(Settings(), s.config_table, s.config_path, validate=True)


def at(path: str, key: str) -> str:
    """``path:line`` of the line that sets ``key`` (dotted within the jaxlint table), else ``path``."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return path
    tool = any(re.match(r"\s*\[\s*tool\s*\.\s*[\"']?jaxlint\b", line) for line in lines)
    base = "tool.jaxlint" if tool else ""
    *tables, name = key.split(".") if not key.startswith("per-file-ignores.") else ["per-file-ignores", key[17:]]
    want = ".".join([base, *tables]).strip(".")
    current = ""
    for i, line in enumerate(lines, start=1):
        text = line.strip()
        header = re.fullmatch(r"\[\s*([^\[\]]+?)\s*\]\s*(#.*)?", text)
        if header:
            current = re.sub(r"\s*\.\s*", ".", header.group(1)).replace('"', "").replace("'", "")
            continue
        if current == want and re.match(rf"""["']?{re.escape(name)}["']?\s*=""", text):
            return f"{path}:{i}"
    return path


def _codes(value: Any, key: str, path: str, validate: bool = True) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{at(path, key)}: `{key}` must be a list of rule codes")
    out = [v.strip().upper() for v in value]
    if validate:
        from jaxlint.lint.registry import SelectionError, check_selectors

        try:
            check_selectors(out, f"{at(path, key)}: `{key}`")
        except SelectionError as e:
            raise ConfigError(str(e)) from None
    return out


def _check_patterns(patterns: list[str], key: str, path: str) -> None:
    """Each gitignore-style pattern must compile: an error names the file, the key and the pattern."""
    if not patterns:
        return
    import pathspec

    for pattern in patterns:
        try:
            pathspec.GitIgnoreSpec.from_lines([pattern])
        except re.error as e:
            where = at(path, f"{key}.{pattern}" if key == "per-file-ignores" else key)
            raise ConfigError(f"{where}: `{key}`: invalid pattern {pattern!r} ({e.msg})") from None
        except ValueError:
            where = at(path, f"{key}.{pattern}" if key == "per-file-ignores" else key)
            raise ConfigError(
                f"{where}: `{key}`: invalid pattern {pattern!r} (not a gitignore-style pattern: a trailing backslash?)"
            ) from None


def apply_table(s: Settings, table: dict[str, Any], path: str, validate: bool = True) -> None:
    for key, value in table.items():
        if key not in _KEYS:
            raise ConfigError(f"{at(path, key)}: unknown key `{key}` in [tool.jaxlint]")
        if not isinstance(value, _KEYS[key]):
            raise ConfigError(f"{at(path, key)}: `{key}` must be a {_KEYS[key].__name__}")
    if "select" in table:
        s.select = _codes(table["select"], "select", path, validate)
        s.selections.append((path, s.select))
    if "extend-select" in table:
        s.extend_select = _codes(table["extend-select"], "extend-select", path, validate)
        s.selections.append((path, s.extend_select))
    if "ignore" in table:
        s.ignore = _codes(table["ignore"], "ignore", path, validate)
    if "unfixable" in table:
        s.unfixable = _codes(table["unfixable"], "unfixable", path, validate)
    if "force-exclude" in table:
        s.force_exclude = table["force-exclude"]
    for key in ("exclude", "extend-exclude"):
        if key in table:
            v = table[key]
            if not all(isinstance(x, str) for x in v):
                raise ConfigError(f"{at(path, key)}: `{key}` must be a list of glob patterns")
            _check_patterns(v, key, path)
            setattr(s, key.replace("-", "_"), list(v))
    if "per-file-ignores" in table:
        pfi = {}
        _check_patterns(list(table["per-file-ignores"]), "per-file-ignores", path)
        for pattern, codes in table["per-file-ignores"].items():
            pfi[pattern] = _codes(codes, f"per-file-ignores.{pattern}", path, validate)
        s.per_file_ignores = pfi
    if "preview" in table:
        s.preview = table["preview"]
    if "target-jax-version" in table:
        try:
            parse_version(table["target-jax-version"])
        except ConfigError as e:
            raise ConfigError(f"{at(path, 'target-jax-version')}: `target-jax-version`: {e}") from None
        s.set_target(table["target-jax-version"], path)
    if "output-format" in table:
        if table["output-format"] not in OUTPUT_FORMATS:
            raise ConfigError(
                f"{at(path, 'output-format')}: `output-format` must be one of {', '.join(OUTPUT_FORMATS)}"
            )
        s.output_format = table["output-format"]
    if "rules" in table:
        if not validate:
            s.rules = {
                str(code).upper(): dict(opts) if isinstance(opts, dict) else opts
                for code, opts in table["rules"].items()
            }
            return
        from jaxlint.lint.registry import rule_by_code

        for code, opts in table["rules"].items():
            rule = rule_by_code(code)
            if rule is None or rule.code != code.upper():
                raise ConfigError(f"{path}: unknown rule `{code}` in [tool.jaxlint.rules]")
            if not isinstance(opts, dict):
                raise ConfigError(f"{path}: [tool.jaxlint.rules.{code}] must be a table")
            for k, v in opts.items():
                if k not in rule.default_options:
                    raise ConfigError(f"{at(path, f'rules.{code}.{k}')}: unknown option `{k}` for rule {rule.code}")
                if not isinstance(v, type(rule.default_options[k])):
                    raise ConfigError(
                        f"{at(path, f'rules.{code}.{k}')}: option `{k}` of rule {rule.code} must be a {type(rule.default_options[k]).__name__}"
                    )
            s.rules[rule.code] = dict(opts)


def rebase_pattern(pattern: str, frm: str, to: str) -> str | None:
    """A gitignore-style pattern written relative to folder ``frm``, for matching relative to
    ``to``; None when it can match nothing under ``to``."""
    negate = pattern.startswith("!")
    body = pattern[1:] if negate else pattern
    anchored = "/" in body.rstrip("/")
    if not anchored or body.startswith("**/") or os.path.abspath(frm) == os.path.abspath(to):
        return pattern
    target = os.path.normpath(os.path.join(os.path.abspath(frm), body.lstrip("/")))
    rel = os.path.relpath(target, os.path.abspath(to)).replace(os.sep, "/")
    if rel == ".." or rel.startswith("../"):
        return None
    return ("!" if negate else "") + "/" + rel + ("/" if body.endswith("/") else "")


class Resolver:
    """The settings of each file: the configuration nearest above it (or the one ``--config``
    names, for every file), with the command line's ``override`` applied, and the lowest jax
    its project declares. Files with equal settings share one ``Settings`` object."""

    def __init__(self, config_path: str | None, fallback_start: str, override=None) -> None:
        self.config_path = config_path
        self.fallback_start = fallback_start
        self.override = override
        self._dir_config: dict[str, str | None] = {}
        self._settings: dict[tuple[str | None, object], Settings] = {}
        self._specs: dict[int, Any] = {}

    def config_of(self, directory: str) -> str | None:
        if self.config_path is not None:
            return self.config_path
        d = os.path.abspath(directory)
        seen: list[str] = []
        found: str | None = None
        while True:
            if d in self._dir_config:
                found = self._dir_config[d]
                break
            seen.append(d)
            p = config_in(d)
            if p is not None:
                found = p
                break
            parent = os.path.dirname(d)
            if parent == d:
                break
            d = parent
        for s in seen:
            self._dir_config[s] = found
        return found

    def for_dir(self, directory: str) -> Settings:
        from jaxlint.lint.requirements import project_requirement

        config = self.config_of(directory)
        key = (config, project_requirement(os.path.abspath(directory)))
        s = self._settings.get(key)
        if s is None:
            if config is None:
                s = load_settings(None, self.fallback_start, validate=False)
                s.minimum_jax_version = s.jax_requirement = None
                infer_jax(s, directory)
            else:
                s = load_settings(config, directory, validate=False)
            if self.override is not None:
                self.override(s)
            self._settings[key] = s
        return s

    def for_path(self, path: str) -> Settings:
        ap = os.path.abspath(path)
        return self.for_dir(ap if os.path.isdir(ap) else os.path.dirname(ap))

    def excluded(self, path: str, is_dir: bool) -> bool:
        """Does the configuration governing ``path``'s folder exclude it?"""
        s = self.for_dir(os.path.dirname(os.path.abspath(path)))
        patterns = s.exclude + s.extend_exclude
        if not patterns:
            return False
        spec = self._specs.get(id(s))
        if spec is None:
            import pathspec

            spec = self._specs[id(s)] = pathspec.GitIgnoreSpec.from_lines(patterns)
        rel = os.path.relpath(os.path.abspath(path), s.root).replace(os.sep, "/")
        return not rel.startswith("..") and spec.match_file(rel + "/" if is_dir else rel)

    def groups(self, files: list[str]) -> list[tuple[Settings, list[str]]]:
        """The files of each distinct settings, in the order their first file comes."""
        out: dict[int, tuple[Settings, list[str]]] = {}
        for f in files:
            s = self.for_path(f)
            out.setdefault(id(s), (s, []))[1].append(f)
        return list(out.values())
