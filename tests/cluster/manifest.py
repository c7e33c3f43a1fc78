#!/usr/bin/env python3
"""Reads examples/cluster/k8s/gpuimg-indexed-job.yaml for tests/cluster/check.sh.

The test runs the manifest's own container command, so it must read the
YAML; PyYAML is not in the standard library (and CI's python3 need not have
it), so this parses the block-style subset that a hand-written manifest
uses: mappings, sequences (including "- key: value" items), literal block
scalars ("|", "|-"), flow sequences written as JSON, quoted and plain
scalars, comments. Anything outside it is an error rather than a guess.

    manifest.py check FILE   exit 1 naming each inconsistency (N != completions...)
    manifest.py argv FILE    the container's command + args, NUL-terminated
    manifest.py env FILE     its env as NAME=VALUE, NUL-terminated
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any


class ParseError(Exception):
    """The manifest uses YAML this small parser does not read."""


def _strip_comment(text: str) -> str:
    """Drops a " #" comment that lies outside quotes."""
    quote = ""
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "#" and (i == 0 or text[i - 1] in " \t"):
            return text[:i].rstrip()
    return text.rstrip()


def _scalar(text: str) -> Any:
    """A flow scalar: quoted string, JSON-style flow sequence, int, bool or plain string."""
    text = _strip_comment(text).strip()
    if text.startswith('"'):
        return json.loads(text)
    if text.startswith("'"):
        if not text.endswith("'") or len(text) < 2:
            raise ParseError(f"unterminated quote: {text}")
        return text[1:-1].replace("''", "'")
    if text.startswith("[") or text.startswith("{"):
        try:
            return json.loads(text)
        except json.JSONDecodeError as e:
            raise ParseError(f"flow collection not written as JSON: {text}") from e
    if re.fullmatch(r"-?(0|[1-9][0-9]*)", text):
        return int(text)
    if text in ("true", "false"):
        return text == "true"
    if text in ("", "~", "null"):
        return None
    return text


class _Parser:
    """Recursive descent over indentation; lines are (indent, text) pairs."""

    def __init__(self, source: str) -> None:
        self.raw = source.split("\n")
        self.pos = 0

    def _next(self) -> tuple[int, int, str] | None:
        """The next structural line (index, indent, text), skipping blanks and comments."""
        i = self.pos
        while i < len(self.raw):
            line = self.raw[i]
            if "\t" in line[: len(line) - len(line.lstrip())]:
                raise ParseError(f"line {i + 1}: tab in indentation")
            text = line.strip()
            if text and not text.startswith("#"):
                if text in ("---", "..."):
                    raise ParseError(f"line {i + 1}: one document expected")
                return i, len(line) - len(line.lstrip()), text
            i += 1
        return None

    def block(self, indent: int) -> Any:
        """The mapping or sequence whose lines start at column indent."""
        nxt = self._next()
        if nxt is None or nxt[1] != indent:
            raise ParseError(f"expected a block at column {indent}")
        if nxt[2] == "-" or nxt[2].startswith("- "):
            return self._sequence(indent)
        return self._mapping(indent)

    def _value_after(self, indent: int, rest: str, seq_ok: bool) -> Any:
        """The value of a key or item whose text after the indicator is rest."""
        rest = _strip_comment(rest).strip()
        if rest in ("|", "|-"):
            return self._literal(indent, keep_newline=rest == "|")
        if rest:
            return _scalar(rest)
        nxt = self._next()
        if nxt is None:
            return None
        if nxt[1] > indent:
            return self.block(nxt[1])
        # "key:" followed by "- item" at the key's own column (a common style).
        if seq_ok and nxt[1] == indent and (nxt[2] == "-" or nxt[2].startswith("- ")):
            return self._sequence(indent)
        return None

    def _literal(self, indent: int, keep_newline: bool) -> str:
        """A literal block scalar: the following lines indented past indent."""
        lines: list[str] = []
        block_indent = -1
        while self.pos < len(self.raw):
            line = self.raw[self.pos]
            if line.strip():
                col = len(line) - len(line.lstrip())
                if col <= indent:
                    break
                if block_indent < 0:
                    block_indent = col
                if col < block_indent:
                    raise ParseError(f"line {self.pos + 1}: literal block dedented")
                lines.append(line[block_indent:])
            else:
                lines.append("")
            self.pos += 1
        while lines and not lines[-1]:
            lines.pop()
        return "\n".join(lines) + ("\n" if keep_newline and lines else "")

    def _mapping(self, indent: int) -> dict[str, Any]:
        """The "key: value" lines at column indent."""
        result: dict[str, Any] = {}
        while (nxt := self._next()) is not None and nxt[1] == indent:
            i, _, text = nxt
            if text.startswith("- ") or text == "-":
                break
            m = re.fullmatch(r"([A-Za-z0-9_.\-/]+|\"[^\"]*\"):(?:\s+(.*))?", text)
            if not m:
                raise ParseError(f"line {i + 1}: not 'key: value': {text}")
            key = m.group(1).strip('"')
            if key in result:
                raise ParseError(f"line {i + 1}: key {key} given twice")
            self.pos = i + 1
            result[key] = self._value_after(indent, m.group(2) or "", seq_ok=True)
        if nxt is not None and nxt[1] > indent:
            raise ParseError(f"line {nxt[0] + 1}: unexpected indentation")
        return result

    def _sequence(self, indent: int) -> list[Any]:
        """The "- item" lines at column indent."""
        result: list[Any] = []
        while (nxt := self._next()) is not None and nxt[1] == indent:
            i, _, text = nxt
            if not (text == "-" or text.startswith("- ")):
                break
            rest = text[1:].lstrip()
            if re.match(r"[A-Za-z0-9_.\-/\"]+:(\s|$)", rest):
                # "- key: value": a mapping whose keys sit at the column of "key".
                col = indent + (len(text) - len(rest))
                self.raw[i] = " " * col + rest
                self.pos = i
                result.append(self._mapping(col))
            else:
                self.pos = i + 1
                result.append(self._value_after(indent, rest, seq_ok=False))
        return result


def parse(source: str) -> Any:
    """The one document of a block-style YAML file."""
    parser = _Parser(source)
    nxt = parser._next()
    if nxt is None:
        raise ParseError("empty document")
    value = parser.block(nxt[1])
    if parser._next() is not None:
        raise ParseError(f"line {parser.pos + 1}: text after the document")
    return value


def container(job: dict[str, Any]) -> dict[str, Any]:
    """The Job's container named gpuimg."""
    for c in job["spec"]["template"]["spec"]["containers"]:
        if c.get("name") == "gpuimg":
            return c
    raise KeyError("no container named gpuimg")


def env_of(c: dict[str, Any]) -> dict[str, str]:
    """The container's literal env (valueFrom entries are not literal: refused)."""
    env: dict[str, str] = {}
    for e in c.get("env") or []:
        if "value" not in e:
            raise ParseError(f"env {e.get('name')} has no literal value")
        env[e["name"]] = str(e["value"])
    return env


def problems(job: dict[str, Any]) -> list[str]:
    """What would make the Indexed Job shard wrongly (or not run on a GPU)."""
    out: list[str] = []
    spec = job.get("spec", {})
    if job.get("kind") != "Job" or job.get("apiVersion") != "batch/v1":
        out.append("not a batch/v1 Job")
    if spec.get("completionMode") != "Indexed":
        out.append("completionMode is not Indexed (no JOB_COMPLETION_INDEX)")
    completions = spec.get("completions")
    if not isinstance(completions, int) or completions < 1:
        out.append(f"completions {completions!r} is not a positive integer")
    parallelism = spec.get("parallelism")
    if not isinstance(parallelism, int) or parallelism < 1:
        out.append(f"parallelism {parallelism!r} is not a positive integer")
    if not isinstance(spec.get("backoffLimitPerIndex"), int):
        out.append("no backoffLimitPerIndex (one failing shard would fail them all)")
    pod = spec.get("template", {}).get("spec", {})
    if spec.get("backoffLimitPerIndex") is not None and pod.get("restartPolicy") != "Never":
        out.append("backoffLimitPerIndex needs restartPolicy: Never")
    c = container(job)
    env = env_of(c)
    if env.get("GPUIMG_SHARD_COUNT") != str(completions):
        out.append(
            f"env GPUIMG_SHARD_COUNT={env.get('GPUIMG_SHARD_COUNT')!r} differs from "
            f"completions {completions!r}: shards would be skipped or repeated"
        )
    limits = (c.get("resources") or {}).get("limits") or {}
    if limits.get("nvidia.com/gpu") != 1:
        out.append("resources.limits nvidia.com/gpu is not 1")
    mounts = {m["mountPath"]: m["name"] for m in c.get("volumeMounts") or []}
    volumes = {v["name"]: v for v in pod.get("volumes") or []}
    for var in ("IN", "OUT"):
        if env.get(var) not in mounts:
            out.append(f"env {var}={env.get(var)!r} is not a volume's mountPath")
    script = env.get("GPUIMG_SHARD_SH", "")
    folder = script.rsplit("/", 1)[0]
    if "configMap" not in volumes.get(mounts.get(folder, ""), {}):
        out.append(f"env GPUIMG_SHARD_SH={script!r} is not in a mounted ConfigMap")
    return out


def main(argv: list[str]) -> int:
    """Runs one of the modes of the module docstring; returns the exit status."""
    if len(argv) != 3 or argv[1] not in ("check", "argv", "env"):
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[2], encoding="utf-8") as f:
        job = parse(f.read())
    if argv[1] == "check":
        found = problems(job)
        for p in found:
            print(f"{argv[2]}: {p}", file=sys.stderr)
        return 1 if found else 0
    c = container(job)
    if argv[1] == "argv":
        items = [str(x) for x in (c.get("command") or []) + (c.get("args") or [])]
    else:
        items = [f"{k}={v}" for k, v in env_of(c).items()]
    sys.stdout.write("".join(x + "\0" for x in items))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
