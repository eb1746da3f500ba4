"""Settings: ``[tool.jaxlint]`` in the nearest pyproject.toml, overridden by the CLI.

Validation is strict: an unknown key, a wrong type or an unknown rule code is an error
that names the file and the key (exit 2), never a warning.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tomllib
from dataclasses import asdict, dataclass, field
from typing import Any

OUTPUT_FORMATS = ("full", "concise", "json", "github", "sarif")
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
    target_jax_version: str = DEFAULT_TARGET
    output_format: str | None = None
    rules: dict[str, dict[str, Any]] = field(default_factory=dict)
    root: str = "."
    config_path: str | None = None
    config_table: dict[str, Any] | None = None  # as read, for validation after a cache miss

    def fingerprint(self) -> str:
        """Hash of everything that changes results (for the cache key)."""
        d = asdict(self)
        d.pop("output_format", None)
        d.pop("config_path", None)
        d.pop("config_table", None)
        return hashlib.sha256(json.dumps(d, sort_keys=True, default=str).encode()).hexdigest()[:16]

    @property
    def target_version(self) -> tuple[int, ...]:
        return parse_version(self.target_jax_version)


def parse_version(text: str) -> tuple[int, ...]:
    if not re.fullmatch(r"\d+(\.\d+){0,2}", text):
        raise ConfigError(f"invalid JAX version {text!r} (expected e.g. '0.4.30')")
    parts = tuple(int(p) for p in text.split("."))
    return parts + (0,) * (3 - len(parts))


_KEYS: dict[str, type | tuple[type, ...]] = {
    "select": list,
    "extend-select": list,
    "ignore": list,
    "per-file-ignores": dict,
    "exclude": list,
    "extend-exclude": list,
    "preview": bool,
    "target-jax-version": str,
    "output-format": str,
    "rules": dict,
}


class _InvalidToml(ConfigError):
    pass


MAX_CONFIG_BYTES = 1 << 20


def read_toml(path: str) -> dict[str, Any]:
    """A configuration file's TOML; ConfigError (one line naming the file) for anything else:
    not a regular file (a FIFO would block the run, ``/dev/zero`` fill its memory), too
    large, unreadable, not UTF-8 (TOML is), not TOML."""
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
        raise _InvalidToml(f"{path}: invalid TOML: {e}") from None


def find_config(start: str) -> str | None:
    """The nearest pyproject.toml (upwards from ``start``) that has a [tool.jaxlint] table."""
    d = os.path.abspath(start)
    if os.path.isfile(d):
        d = os.path.dirname(d)
    while True:
        p = os.path.join(d, "pyproject.toml")
        if os.path.isfile(p):
            try:
                data = read_toml(p)
            except _InvalidToml:
                data = {}
            tool = data.get("tool")
            if isinstance(tool, dict) and "jaxlint" in tool:
                return p
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def load_settings(config_path: str | None, start: str = ".", validate: bool = True) -> Settings:
    """Settings from the nearest [tool.jaxlint]. With ``validate=False`` rule codes are not
    checked yet (that needs every rule imported): call ``validate_settings`` before linting."""
    path = config_path or find_config(start)
    if path is None:
        return Settings(root=os.path.abspath(start if os.path.isdir(start) else os.path.dirname(start) or "."))
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
    return s


def validate_settings(s: Settings) -> None:
    """Check the configured rule codes and rule options (raises ConfigError)."""
    if s.config_table is not None and s.config_path is not None:
        apply_table(Settings(), s.config_table, s.config_path, validate=True)


def _codes(value: Any, key: str, path: str, validate: bool = True) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{path}: `{key}` must be a list of rule codes")
    out = [v.strip().upper() for v in value]
    if validate:
        from jaxlint.lint.registry import SelectionError, check_selectors

        try:
            check_selectors(out, f"{path}: `{key}`")
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
            raise ConfigError(f"{path}: `{key}`: invalid pattern {pattern!r} ({e.msg})") from None
        except ValueError:
            raise ConfigError(
                f"{path}: `{key}`: invalid pattern {pattern!r} (not a gitignore-style pattern: a trailing backslash?)"
            ) from None


def apply_table(s: Settings, table: dict[str, Any], path: str, validate: bool = True) -> None:
    for key, value in table.items():
        if key not in _KEYS:
            raise ConfigError(f"{path}: unknown key `{key}` in [tool.jaxlint]")
        if not isinstance(value, _KEYS[key]):
            raise ConfigError(f"{path}: `{key}` must be a {_KEYS[key].__name__}")  # type: ignore[union-attr]
    if "select" in table:
        s.select = _codes(table["select"], "select", path, validate)
    if "extend-select" in table:
        s.extend_select = _codes(table["extend-select"], "extend-select", path, validate)
    if "ignore" in table:
        s.ignore = _codes(table["ignore"], "ignore", path, validate)
    for key in ("exclude", "extend-exclude"):
        if key in table:
            v = table[key]
            if not all(isinstance(x, str) for x in v):
                raise ConfigError(f"{path}: `{key}` must be a list of glob patterns")
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
            raise ConfigError(f"{path}: `target-jax-version`: {e}") from None
        s.target_jax_version = table["target-jax-version"]
    if "output-format" in table:
        if table["output-format"] not in OUTPUT_FORMATS:
            raise ConfigError(f"{path}: `output-format` must be one of {', '.join(OUTPUT_FORMATS)}")
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
                    raise ConfigError(f"{path}: unknown option `{k}` for rule {rule.code}")
                if not isinstance(v, type(rule.default_options[k])):
                    raise ConfigError(
                        f"{path}: option `{k}` of rule {rule.code} must be a {type(rule.default_options[k]).__name__}"
                    )
            s.rules[rule.code] = dict(opts)
