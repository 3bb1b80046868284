#!/usr/bin/env python3
"""Posts kgate's pull-request comment (comment/action.yml).

  kgate_post_comment.py compose COMMENT.md --exit-code N [--marker ID] [--url URL] -o body.md
  kgate_post_comment.py post body.md [--marker ID] [--author LOGIN]

compose: the comment's body from the comment kgate wrote in the gate job
(`kgate run --comment`, a printer of kgate's report model: its verdict,
what changed, what failed). That file comes from the job that ran the pull
request's code, so it is data here: it is defused (no HTML, no link, image,
mention or autolink can be in what is posted, whatever the file holds; a
file kgate wrote reads the same after it), cut to GitHub's limit, and only
then given the hidden marker and the run's link. When the gate's exit code
is not the one the comment says (a chart or a report that could not be
written after it), a line says so; without a file, one line names the exit
code.

post: keeps ONE comment per marker up to date on the pull request of the event
($GITHUB_EVENT_PATH): edits the comment that carries the hidden marker and was
written by --author (default github-actions[bot]: a marker planted by someone
else is never edited), or posts a new one. Nothing is posted for an event
without a pull request or for a pull request from a fork (its token is
read-only). A token that may not write is a warning, not a failure: the gate's
verdict is the job's exit code, not the comment.

Python 3 standard library only; kgate itself never runs in the job that posts.
Exit codes: 0 done (or skipped, with a notice), 2 bad input (one line).
"""

import argparse
import json
import os
import re
import sys
import urllib.error
import urllib.request

# GitHub refuses a comment over 65536 characters; the marker and the link come on top.
MAX_BODY = 60000
WJ = "\u2060"  # WORD JOINER: invisible, and it breaks an autolink where it stands


class InputError(Exception):
    """Bad input: one line naming the file and field."""


def marker_line(marker):
    if not re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", marker):
        raise InputError("--marker: 1-64 of A-Z a-z 0-9 _ . - (got %r)" % marker)
    return "<!-- kgate-action:%s -->" % marker


# kgate's Markdown escaper writes none of these bare: each is made inert here.
_DEFUSE = [
    (re.compile(r"&(?!(?:lt|gt|amp);|#64;" + WJ + ")"), "&amp;"),  # an entity that decodes to '@', '#' or '<'
    (re.compile(r"<"), "&lt;"),  # HTML, <autolinks>, a second marker
    (re.compile(r"(?<!\\)((?:\\\\)*)\["), "\\1\\\\["),  # a [ not escaped: links, images
    (re.compile(r"@"), "&#64;" + WJ),  # mentions, e-mail addresses
    (re.compile(r"(?<!&)#(?=[0-9])"), "#" + WJ),  # #123, owner/repo#123 (a heading's # stays)
    (re.compile(r":(?=//)"), ":" + WJ),  # scheme://
    (re.compile(r"(?i)www(?=\.)"), lambda m: m.group(0) + WJ),  # www.
    (re.compile(r"(?i)gh-(?=[0-9])"), lambda m: m.group(0) + WJ),  # GH-123
]


# The bidirectional controls: a line that shows one thing and says another (Trojan Source).
BIDI = set("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
# A fenced code block's fence: up to three spaces, then ``` or ~~~ or longer (CommonMark).
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def close_fences(text):
    """text with a fence it leaves open closed at its end, so that nothing after it (the
    marker's run link, the exit line) is swallowed into a code block."""
    opened = None
    for line in text.split("\n"):
        m = FENCE.match(line)
        if not m:
            continue
        f = m.group(1)
        if opened is None:
            opened = f
        elif f[0] == opened[0] and len(f) >= len(opened) and not line.strip()[len(f):].strip():
            opened = None
    return text if opened is None else text.rstrip("\n") + "\n" + opened + "\n"


def defuse(text):
    """text with nothing GitHub would make a link, mention, image or HTML of,
    no control or bidirectional character, cut at a line's end to MAX_BODY
    characters, and every code fence it opens closed."""
    text = "".join("?" if (ord(c) < 0x20 and c not in "\n") or 0x7F <= ord(c) <= 0x9F or c in BIDI else c
                   for c in text)
    for pattern, repl in _DEFUSE:
        text = pattern.sub(repl, text)
    if len(text) > MAX_BODY:
        cut = text.rfind("\n", 0, MAX_BODY - 200)
        text = text[:cut + 1] + "\n... (cut at GitHub's comment limit: the results JSON has everything)\n"
    return close_fences(text)


def compose(comment, exit_code, marker, url=""):
    """The body to post: the marker, the defused comment (None: kgate wrote
    none), a line when the exit code is not the comment's, the run's link."""
    lines = [marker_line(marker)]
    if comment is None:
        lines += ["### kgate: exited %d before writing its report" % exit_code, "", "See the job log."]
    else:
        body = defuse(comment).rstrip("\n")
        lines.append(body)
        said = re.match(r"### kgate: [A-Z ]+ \(exit (\d+)\)\n", body)
        if not said or int(said.group(1)) != exit_code:
            lines += ["", "kgate exited %d after writing this report: see the job log." % exit_code]
    if url:
        lines += ["", "[The run: summary, results and charts](%s)" % url.replace(")", "%29").replace(" ", "%20")]
    return "\n".join(lines) + "\n"


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
    ap = argparse.ArgumentParser(prog="kgate_post_comment.py")
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("compose")
    c.add_argument("comment", help="the comment kgate wrote; a missing file means kgate wrote none")
    c.add_argument("--exit-code", type=int, required=True)
    c.add_argument("--marker", default="kgate")
    c.add_argument("--url", default="")
    c.add_argument("-o", "--output", required=True)
    p = sub.add_parser("post")
    p.add_argument("body")
    p.add_argument("--marker", default="kgate")
    p.add_argument("--author", default="github-actions[bot]")
    a = ap.parse_args(argv)
    try:
        if a.cmd == "compose":
            comment = None
            if os.path.lexists(a.comment):
                if not os.path.isfile(a.comment) or os.path.getsize(a.comment) > 1 << 20:
                    raise InputError("%s: not a regular file of at most 1 MiB" % a.comment)
                with open(a.comment, "rb") as f:
                    comment = f.read().decode("utf-8", "replace")
            body = compose(comment, a.exit_code, a.marker, a.url)
            tmp = a.output + ".tmp"
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(body)
            os.replace(tmp, a.output)
            return 0
        with open(a.body, encoding="utf-8") as f:
            body = f.read()
        marker_line(a.marker)
    except InputError as e:
        print("kgate_post_comment: %s" % e, file=sys.stderr)
        return 2
    except OSError as e:
        print("kgate_post_comment: %s: %s" % (e.filename or "", e.strerror), file=sys.stderr)
        return 2
    try:
        print(post(body, a.marker, a.author, os.environ, github_request))
    except OSError as e:
        print("::warning::kgate comment: cannot reach GitHub: %s" % e)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
