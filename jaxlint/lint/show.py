"""``--show-settings FILE``: the settings that apply to one file, as TOML one could paste."""

from __future__ import annotations

import json

from jaxlint.lint.config import Settings


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def show_settings(path: str, s: Settings) -> str:
    from jaxlint.lint.registry import enabled_rules

    if s.target_set_in is not None:
        target_note = f"set by {s.target_set_in}"
    elif s.minimum_jax_version is not None:
        target_note = "the default: what is reported (the newest jax jaxlint knows)"
    else:
        target_note = "the default: no jax requirement found"
    lines = [
        f"Resolved settings for: {path}",
        f"Settings path: {s.config_path or '(none: defaults)'}",
        "",
        "[tool.jaxlint]",
        f"select = {_toml(s.select)}" if s.select is not None else "# select: every stable rule (the default)",
        f"extend-select = {_toml(s.extend_select)}",
        f"ignore = {_toml(s.ignore)}",
        f"unfixable = {_toml(s.unfixable)}",
        f"preview = {_toml(s.preview)}",
        f"target-jax-version = {_toml(s.target_jax_version)}  # {target_note}",
    ]
    if s.minimum_jax_version is not None:
        lines.append(
            f"minimum-jax-version = {_toml(s.minimum_jax_version)}  # inferred from {s.jax_requirement}:"
            " a fix is safe only if its replacement exists there"
        )
    lines += [
        f"exclude = {_toml(s.exclude)}",
        f"extend-exclude = {_toml(s.extend_exclude)}",
        f"force-exclude = {_toml(s.force_exclude)}",
    ]
    if s.output_format is not None:
        lines.append(f"output-format = {_toml(s.output_format)}")
    if s.per_file_ignores:
        lines += ["", "[tool.jaxlint.per-file-ignores]"]
        lines += [f"{_toml(p)} = {_toml(c)}" for p, c in s.per_file_ignores.items()]
    for code, options in sorted(s.rules.items()):
        lines += ["", f"[tool.jaxlint.rules.{code}]"] + [f"{k} = {_toml(v)}" for k, v in options.items()]
    rules = enabled_rules(s.select, s.extend_select, s.ignore, s.preview)
    lines += [
        "",
        f"# project root: {s.root}",
        f"# enabled rules: {', '.join(r.code for r in rules) or '(none)'}",
        "",
    ]
    return "\n".join(lines)
