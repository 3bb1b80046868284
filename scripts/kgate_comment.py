#!/usr/bin/env python3
"""The pull-request comment of kgate's GitHub Action (action.yml).

  kgate_comment.py render RESULTS.json --exit-code N [--marker ID] [--url URL] > body.md
  kgate_comment.py post body.md [--marker ID] [--author LOGIN]

render: a short Markdown comment from a kgate results file: the verdict, the
paired cells that changed (SLOWER, FASTER, NEW, MISSING, UNKNOWN), the failed
cases, or one "nothing changed" line. UNCHANGED cells (the same machine code
and launches in base and head, so not timed) are counted, never listed. A results file comes from a run of the
pull request's own code, so every string in it is data: escaped for Markdown,
never a mention, a link (an autolinked URL, e-mail address or #123 reference
included), an image or HTML.

post: keeps ONE comment per marker up to date on the pull request of the event
($GITHUB_EVENT_PATH): edits the comment that carries the hidden marker and was
written by --author (default github-actions[bot]: a marker planted by someone
else is never edited), or posts a new one. Nothing is posted for an event
without a pull request or for a pull request from a fork (its token is
read-only). A token that may not write is a warning, not a failure: the gate's
verdict is the job's exit code, not the comment.

Python 3 standard library only. Exit codes: 0 done (or skipped, with a
notice), 2 bad input (one line naming the file and field).
"""

import argparse
import json
import math
import os
import re
import sys
import urllib.error
import urllib.request

MAX_PAIRED_ROWS = 100
MAX_FAILED_ROWS = 50
# GitHub refuses a comment over 65536 characters.
MAX_BODY = 60000
MAX_RESULTS_BYTES = 64 << 20  # as kgate's own reader

CHANGED = ("SLOWER", "FASTER", "NEW", "MISSING", "UNKNOWN")
VERDICTS = ("SLOWER", "FASTER", "SAME", "UNDECIDED", "NEW", "MISSING", "UNKNOWN", "UNCHANGED")
DTYPES = ("i32", "i64", "f32", "f64", "f16", "bf16")
HEADLINE = {
    0: "passed",
    1: "FAILED: a correctness failure",
    2: "ERROR: kgate refused its input (exit 2)",
    3: "ERROR: the environment (no GPU, a worker that cannot start; exit 3)",
    4: "FAILED: a performance regression (a decided SLOWER)",
}


class InputError(Exception):
    """Bad input: one line naming the file and field."""


# What GitHub turns into a link in plain comment text, after entities are
# decoded (so "&#64;" alone does not stop a mention or an e-mail address): URLs
# (scheme://), www. addresses, e-mail addresses and @mentions (an '@' followed
# by a letter or digit), #123 and GH-123 references (owner/repo#123 too).
# A WORD JOINER (U+2060, invisible) after the trigger breaks each pattern.
NO_LINK = "\u2060"
_LINK_BREAKS = re.compile(r"(?<=:)(?=//)|(?<=www)(?=\.)|(?<=@)|(?<=#)|(?<=gh-)(?=\d)", re.IGNORECASE)


def unlink(text):
    """text with every autolink trigger broken by NO_LINK."""
    return _LINK_BREAKS.sub(NO_LINK, text)


def md(text):
    """Markdown text or a table cell, as kgate's kg_esc_md, plus '@' (no mentions)
    and unlink() (no autolinks, mentions or references).

    Control characters (C0, DEL, C1) become '?', line breaks and tabs spaces."""
    out = []
    for ch in unlink(str(text)):
        o = ord(ch)
        if ch in "\n\r\t":
            out.append(" ")
        elif o < 0x20 or o == 0x7F or 0x80 <= o <= 0x9F or 0xD800 <= o <= 0xDFFF:
            out.append("?")
        elif ch == "<":
            out.append("&lt;")
        elif ch == ">":
            out.append("&gt;")
        elif ch == "&":
            out.append("&amp;")
        elif ch == "@":
            out.append("&#64;")
        elif ch in "\\`*_[]|~":
            out.append("\\" + ch)
        else:
            out.append(ch)
    return "".join(out)


def term(text):
    """A string from a file inside a one-line error: control characters as '?'."""
    return "".join("?" if ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F else ch for ch in str(text))[:80]


def marker_line(marker):
    if not re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", marker):
        raise InputError("--marker: 1-64 of A-Z a-z 0-9 _ . - (got %r)" % marker)
    return "<!-- kgate-action:%s -->" % marker


def size_text(n):
    if n >= 1024 and n & (n - 1) == 0:
        return "2^%d" % (n.bit_length() - 1)
    return str(n)


def pct(x):
    return "%+.1f %%" % (100.0 * x)


def _field(obj, key, kind, where, path):
    if not isinstance(obj, dict) or key not in obj:
        raise InputError("%s: %s: missing field %s" % (path, where, key))
    v = obj[key]
    ok = {
        "str": isinstance(v, str),
        "int": isinstance(v, int) and not isinstance(v, bool),
        "num": isinstance(v, (int, float)) and not isinstance(v, bool),
        "list": isinstance(v, list),
        "dict": isinstance(v, dict),
    }[kind]
    if not ok:
        raise InputError("%s: %s: %s is not a %s" % (path, where, key, kind))
    return v


def load(path):
    """The fields the comment shows, checked: a value that cannot be true is refused."""
    try:
        st = os.stat(path)
    except OSError as e:
        raise InputError("%s: cannot read: %s" % (path, e.strerror))
    if not os.path.isfile(path):
        raise InputError("%s: not a regular file" % path)
    if st.st_size > MAX_RESULTS_BYTES:
        raise InputError("%s: larger than 64 MiB" % path)
    try:
        with open(path, "rb") as f:
            doc = json.loads(f.read().decode("utf-8", "replace"))
    except ValueError as e:
        raise InputError("%s: not JSON: %s" % (path, e))
    if not isinstance(doc, dict) or doc.get("kind") != "kgate-results":
        raise InputError("%s: kind: not a kgate results file" % path)
    if doc.get("schema_version") not in (1, 2):
        raise InputError("%s: schema_version: %r is not 1 or 2" % (path, doc.get("schema_version")))
    run = _field(doc, "run", "dict", "the file", path)
    device = _field(run, "device", "dict", "run", path)
    res = {
        "gpu": _field(device, "name", "str", "run.device", path),
        "commit": _field(run, "kgate_commit", "str", "run", path),
        "incomplete": run.get("incomplete") is True,
        "cases": [],
        "paired": None,
    }
    for i, c in enumerate(_field(doc, "cases", "list", "the file", path)):
        where = "cases[%d]" % i
        case = {
            "variant": _field(c, "variant", "str", where, path),
            "dtype": _field(c, "dtype", "str", where, path),
            "n": _field(c, "n", "int", where, path),
            "pattern": _field(c, "pattern", "str", where, path),
            "status": _field(c, "status", "str", where, path),
        }
        if case["n"] < 0:
            raise InputError("%s: %s: n is negative" % (path, where))
        for k in ("got", "expected", "message"):
            v = c.get(k, "")
            case[k] = v if isinstance(v, str) else ""
        case["nondeterministic"] = c.get("nondeterministic") is True
        case["input_modified"] = c.get("input_modified") is True
        res["cases"].append(case)
    p = doc.get("paired")
    if p is not None:
        if not isinstance(p, dict):
            raise InputError("%s: paired: not an object" % path)
        conf = _field(p, "confidence", "num", "paired", path)
        if not 0 < conf < 1:
            raise InputError("%s: paired: confidence %r is not in (0, 1)" % (path, conf))
        cells = []
        for i, c in enumerate(_field(p, "cells", "list", "paired", path)):
            where = "paired.cells[%d]" % i
            cell = {
                "variant": _field(c, "variant", "str", where, path),
                "dtype": _field(c, "dtype", "str", where, path),
                "n": _field(c, "n", "int", where, path),
                "verdict": _field(c, "verdict", "str", where, path),
                "blocks": _field(c, "blocks", "int", where, path),
                "message": c.get("message", "") if isinstance(c.get("message", ""), str) else "",
            }
            where = "%s (%s %s %d)" % (where, term(cell["variant"]), term(cell["dtype"]), cell["n"])
            if cell["verdict"] not in VERDICTS:
                raise InputError("%s: %s: verdict %r is not a verdict" % (path, where, cell["verdict"]))
            if cell["blocks"] < 0 or cell["n"] < 0:
                raise InputError("%s: %s: a negative count" % (path, where))
            for k in ("ratio", "lo", "hi", "head_us", "base_us", "min_effect"):
                cell[k] = _field(c, k, "num", where, path)
            if cell["blocks"] > 0:
                nums = [cell[k] for k in ("ratio", "lo", "hi", "head_us", "base_us")]
                if not all(math.isfinite(x) for x in nums) or not (
                    0 < cell["lo"] <= cell["ratio"] <= cell["hi"]
                    and cell["head_us"] > 0
                    and cell["base_us"] > 0
                ):
                    raise InputError(
                        "%s: %s: ratio, lo, hi, head_us, base_us: need 0 < lo <= ratio <= hi and times > 0"
                        % (path, where)
                    )
            cells.append(cell)
        res["paired"] = {
            "base_name": p.get("base_name", "") if isinstance(p.get("base_name"), str) else "",
            "base_version": p.get("base_version", "") if isinstance(p.get("base_version"), str) else "",
            "confidence": conf,
            "cells": cells,
        }
    return res


def _paired_row(c):
    head = base = change = interval = ""
    if c["verdict"] == "NEW" and c["head_us"] > 0:
        head = "%.3g" % c["head_us"]
    if c["blocks"] > 0:
        head = "%.3g" % c["head_us"]
        base = "%.3g" % c["base_us"]
        change = pct(c["ratio"] - 1)
        interval = "%s … %s" % (pct(c["lo"] - 1), pct(c["hi"] - 1))
    verdict = "**%s**" % c["verdict"] if c["verdict"] == "SLOWER" else c["verdict"]
    note = md(c["message"])
    if c["verdict"] == "MISSING":
        note = note or "only in the base"
    elif c["verdict"] == "NEW":
        note = note or "only in this pull request"
    effect = "±%.1f %%" % (100.0 * c["min_effect"]) if c["blocks"] > 0 else ""
    return "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
        md(c["variant"]),
        md(c["dtype"]),
        size_text(c["n"]),
        verdict,
        head,
        base,
        change,
        interval,
        effect,
        note,
    )


def _order(c):
    return (CHANGED.index(c["verdict"]), -abs(c["ratio"] - 1) if c["blocks"] else 0)


def render(res, exit_code, marker, url="", reference=()):
    """The comment's Markdown; res from load() or None when kgate wrote no results.

    reference: variants run only as a yardstick (cub_sum): the base module
    never has them, so their NEW cells are counted, not listed."""
    lines = [marker_line(marker)]
    head = HEADLINE.get(exit_code, "ERROR: kgate exited %d" % exit_code)
    lines.append("### kgate: %s" % head)
    lines.append("")
    if res is None:
        lines.append("kgate exited %d before writing its results: see the job log." % exit_code)
    else:
        lines.append("%s, kgate %s." % (md(res["gpu"]), md(res["commit"])))
        if res["incomplete"]:
            lines.append("")
            lines.append("The run was stopped before its end: cases not reached are *pending*.")
        p = res["paired"]
        if p is None:
            lines.append("")
            lines.append("Not paired: no base module to time against (see the job log), so no timing verdicts.")
        else:
            counts = {v: 0 for v in VERDICTS}
            for c in p["cells"]:
                counts[c["verdict"]] += 1
            base = md(p["base_name"]) + (" " + md(p["base_version"]) if p["base_version"] else "")
            lines.append("")
            lines.append(
                "Paired against the base (%s): %d cells, %s."
                % (base or "unnamed module", len(p["cells"]),
                   ", ".join("%d %s" % (counts[v], v) for v in VERDICTS if counts[v]) or "none")
            )
            changed = sorted((c for c in p["cells"] if c["verdict"] in CHANGED
                              and not (c["verdict"] == "NEW" and c["variant"] in reference)), key=_order)
            if not changed:
                undecided = counts["UNDECIDED"]
                lines.append("")
                lines.append(
                    "Nothing changed: no cell is SLOWER, FASTER, NEW, MISSING or UNKNOWN%s."
                    % (" (%d UNDECIDED: no verdict within the rounds allowed; they pass)" % undecided
                       if undecided else "")
                )
            else:
                lines.append("")
                lines.append(
                    "| variant | dtype | n | verdict | head µs | base µs | change | %g %% interval | "
                    "min effect | note |" % (100 * p["confidence"])
                )
                lines.append("|---|---|---|---|---|---|---|---|---|---|")
                for c in changed[:MAX_PAIRED_ROWS]:
                    lines.append(_paired_row(c))
                if len(changed) > MAX_PAIRED_ROWS:
                    lines.append("")
                    lines.append("… and %d more changed cells (the results file has them all)."
                                 % (len(changed) - MAX_PAIRED_ROWS))
        cases = res["cases"]
        failed = [c for c in cases if c["status"] in ("fail", "error")]
        passed = sum(1 for c in cases if c["status"] == "pass")
        ran = sum(1 for c in cases if c["status"] != "unsupported")
        lines.append("")
        if failed:
            lines.append("Correctness: %d of %d cases passed, **%d failed**:" % (passed, ran, len(failed)))
            lines.append("")
            lines.append("| variant | dtype | n | pattern | status | got | expected | why |")
            lines.append("|---|---|---|---|---|---|---|---|")
            for c in failed[:MAX_FAILED_ROWS]:
                why = c["message"]
                if not why and c["input_modified"]:
                    why = "input modified"
                if not why and c["nondeterministic"]:
                    why = "nondeterministic"
                lines.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
                    md(c["variant"]), md(c["dtype"]), size_text(c["n"]), md(c["pattern"]),
                    md(c["status"]), md(c["got"]), md(c["expected"]), md(why)))
            if len(failed) > MAX_FAILED_ROWS:
                lines.append("")
                lines.append("… and %d more failed cases." % (len(failed) - MAX_FAILED_ROWS))
        else:
            lines.append("Correctness: all %d cases that ran passed." % passed)
    if url:
        lines.append("")
        lines.append("[The run: summary, results and charts](%s)" % url.replace(")", "%29").replace(" ", "%20"))
    body = "\n".join(lines) + "\n"
    if len(body) > MAX_BODY:
        cut = body.rfind("\n", 0, MAX_BODY - 200)
        body = body[:cut] + "\n\n… (cut: GitHub's comment limit; the results file has everything)\n"
    return body


# --- posting -----------------------------------------------------------------


def github_request(method, url, token, body=None):
    """(status, parsed JSON or None). Raises OSError for a network failure."""
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method)
    req.add_header("Accept", "application/vnd.github+json")
    req.add_header("Authorization", "Bearer " + token)
    req.add_header("X-GitHub-Api-Version", "2022-11-28")
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            raw = r.read()
            return r.status, json.loads(raw) if raw else None
    except urllib.error.HTTPError as e:
        return e.code, None


def post(body, marker, author, env, request):
    """Creates or edits the comment. Returns a one-line message (also for skips)."""
    line = marker_line(marker)
    if not body.startswith(line):
        return "::error::kgate comment: the body does not start with its marker %s" % line
    event_path = env.get("GITHUB_EVENT_PATH", "")
    try:
        with open(event_path, encoding="utf-8") as f:
            event = json.load(f)
    except (OSError, ValueError):
        return "::notice::kgate comment: no event payload to read; no comment"
    pr = event.get("pull_request") if isinstance(event, dict) else None
    if not isinstance(pr, dict) or not isinstance(pr.get("number"), int):
        return "::notice::kgate comment: not a pull request; the job summary has the report"
    repo = env.get("GITHUB_REPOSITORY", "")
    head_repo = ((pr.get("head") or {}).get("repo") or {}).get("full_name")
    if env.get("GITHUB_EVENT_NAME") == "pull_request" and head_repo != repo:
        return ("::notice::kgate comment: a pull request from a fork gets a read-only token;"
                " the job summary has the report")
    token = env.get("GITHUB_TOKEN", "")
    if not token:
        return "::notice::kgate comment: no token; no comment"
    api = env.get("GITHUB_API_URL", "https://api.github.com").rstrip("/")
    issue = "%s/repos/%s/issues/%d/comments" % (api, repo, pr["number"])
    found = None
    for page in range(1, 31):  # 3000 comments
        status, items = request("GET", "%s?per_page=100&page=%d" % (issue, page), token, None)
        if status != 200 or not isinstance(items, list):
            return "::warning::kgate comment: cannot list the pull request's comments (HTTP %d)" % status
        for it in items:
            if (isinstance(it, dict) and isinstance(it.get("body"), str)
                    and it["body"].startswith(line)
                    and (it.get("user") or {}).get("login") == author):
                found = it
                break
        if found or len(items) < 100:
            break
    if found:
        if found["body"] == body:
            return "kgate comment: unchanged (%s)" % found.get("html_url", "")
        status, it = request("PATCH", "%s/repos/%s/issues/comments/%d" % (api, repo, found["id"]),
                             token, {"body": body})
        verb = "edited"
    else:
        status, it = request("POST", issue, token, {"body": body})
        verb = "posted"
    if status in (401, 403, 404):
        return ("::warning::kgate comment: the token may not write the comment (HTTP %d):"
                " grant the job `pull-requests: write`" % status)
    if status not in (200, 201):
        return "::warning::kgate comment: GitHub answered HTTP %d" % status
    return "kgate comment: %s %s" % (verb, (it or {}).get("html_url", ""))


def main(argv):
    ap = argparse.ArgumentParser(prog="kgate_comment.py")
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("render")
    r.add_argument("results", help="results JSON; a missing file means kgate wrote none")
    r.add_argument("--exit-code", type=int, required=True)
    r.add_argument("--marker", default="kgate")
    r.add_argument("--url", default="")
    r.add_argument("--reference", action="append", default=[],
                   help="a variant run as a yardstick: its NEW cells are not listed (repeatable)")
    r.add_argument("-o", "--output", default="-")
    p = sub.add_parser("post")
    p.add_argument("body")
    p.add_argument("--marker", default="kgate")
    p.add_argument("--author", default="github-actions[bot]")
    a = ap.parse_args(argv)
    try:
        if a.cmd == "render":
            res = load(a.results) if os.path.lexists(a.results) else None
            body = render(res, a.exit_code, a.marker, a.url, tuple(a.reference))
            if a.output == "-":
                sys.stdout.write(body)
            else:
                tmp = a.output + ".tmp"
                with open(tmp, "w", encoding="utf-8") as f:
                    f.write(body)
                os.replace(tmp, a.output)
            return 0
        with open(a.body, encoding="utf-8") as f:
            body = f.read()
        marker_line(a.marker)
    except InputError as e:
        print("kgate_comment: %s" % e, file=sys.stderr)
        return 2
    except OSError as e:
        print("kgate_comment: %s: %s" % (e.filename or "", e.strerror), file=sys.stderr)
        return 2
    try:
        print(post(body, a.marker, a.author, os.environ, github_request))
    except OSError as e:
        print("::warning::kgate comment: cannot reach GitHub: %s" % e)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
