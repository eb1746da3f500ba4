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


_KEYS: dict[str, type] = {
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


def find_config(start: str) -> str | None:
    """The nearest pyproject.toml (upwards from ``start``) that has a [tool.jaxlint] table."""
    d = os.path.abspath(start)
    if os.path.isfile(d):
        d = os.path.dirname(d)
    while True:
        p = os.path.join(d, "pyproject.toml")
        if os.path.isfile(p):
            try:
                with open(p, "rb") as f:
                    data = tomllib.load(f)
            except (OSError, tomllib.TOMLDecodeError):
                data = {}
            if "jaxlint" in data.get("tool", {}):
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
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except FileNotFoundError:
        raise ConfigError(f"{path}: configuration file not found") from None
    except OSError as e:
        raise ConfigError(f"{path}: cannot read configuration: {e.strerror}") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: invalid TOML: {e}") from None
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


def apply_table(s: Settings, table: dict[str, Any], path: str, validate: bool = True) -> None:
    for key, value in table.items():
        if key not in _KEYS:
            raise ConfigError(f"{path}: unknown key `{key}` in [tool.jaxlint]")
        if not isinstance(value, _KEYS[key]):
            raise ConfigError(f"{path}: `{key}` must be a {_KEYS[key].__name__}")
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
            setattr(s, key.replace("-", "_"), list(v))
    if "per-file-ignores" in table:
        pfi = {}
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
