#!/usr/bin/env python3
"""Tests of kgate_comment.py (the action's pull-request comment), on the
committed results files in tests/data and on made-up ones. No network: post()
gets a fake GitHub. Run: python3 -m unittest discover -s scripts -p 'test_*.py'"""

import copy
import html
import json
import os
import re
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import kgate_comment as kc  # noqa: E402

DATA = os.path.join(HERE, "..", "tests", "data")
PAIRED = os.path.join(DATA, "h200-paired.json")
RUN1 = os.path.join(DATA, "h200-run1.json")
HOSTILE = "<img src=x onerror=alert(1)> @octocat | [a](javascript:x) `c` *b* ~s~ \\ \n# head &amp;"


def github_links(text):
    """What GitHub would link in comment text (extended autolinks, mentions,
    issue references), after entities are decoded as GitHub's renderer does."""
    text = html.unescape(text)
    patterns = [
        r"(?i)\b(https?|ftp)://",  # URLs
        r"(?i)(^|[\s*_~(])www\.",  # www. addresses
        r"[A-Za-z0-9.+_-]@[A-Za-z0-9]",  # e-mail addresses (mailto: too)
        r"(?<![A-Za-z0-9`])@[A-Za-z0-9]",  # @mentions, @team/name
        r"#[0-9]",  # #123, owner/repo#123
        r"(?i)\bgh-[0-9]",  # GH-123
    ]
    return [m.group(0) for p in patterns for m in re.finditer(p, text)]


def base_doc():
    with open(PAIRED, encoding="utf-8") as f:
        return json.load(f)


class Files:
    """Writes made-up results files into a temp folder."""

    def __init__(self):
        self.dir = tempfile.TemporaryDirectory()

    def write(self, doc, name="r.json"):
        path = os.path.join(self.dir.name, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(doc if isinstance(doc, str) else json.dumps(doc))
        return path


class Core(unittest.TestCase):
    def setUp(self):
        self.files = Files()

    def tearDown(self):
        self.files.dir.cleanup()

    def test_render_paired_lists_only_changed_cells(self):
        body = kc.render(kc.load(PAIRED), 4, "kgate")
        self.assertTrue(body.startswith("<!-- kgate-action:kgate -->\n"))
        self.assertIn("### kgate: FAILED: a performance regression", body)
        self.assertIn("37 cells, 2 SLOWER, 1 FASTER, 28 SAME, 2 UNDECIDED, 2 NEW, 1 MISSING, 1 UNKNOWN", body)
        rows = [l for l in body.splitlines() if l.startswith("| ") and not l.startswith("| variant")]
        verdicts = [r.split(" | ")[3].strip("*") for r in rows]
        # SLOWER first (largest change first), then FASTER, NEW, MISSING, UNKNOWN; no SAME, no UNDECIDED
        self.assertEqual(verdicts, ["SLOWER", "SLOWER", "FASTER", "NEW", "NEW", "MISSING", "UNKNOWN"])
        self.assertTrue(rows[0].startswith("| reduce0\\_divergent | f32 | 2^25 | **SLOWER** | 158 | 154 | +3.1 %"))
        self.assertIn("+2.5 % … +3.7 %", rows[0])
        self.assertIn("every timing errored", rows[-1])
        self.assertNotIn("reduce7\\_shuffle", body)  # UNDECIDED: counted, not listed
        self.assertIn("Correctness: all 36 cases that ran passed.", body)

    def test_render_nothing_changed_is_one_line(self):
        doc = base_doc()
        for c in doc["paired"]["cells"]:
            if c["verdict"] != "UNDECIDED":
                c.update(verdict="SAME", ratio=1.0, lo=0.999, hi=1.001, blocks=8, head_us=1.0, base_us=1.0)
        body = kc.render(kc.load(self.files.write(doc)), 0, "kgate")
        self.assertIn("### kgate: passed", body)
        self.assertIn("Nothing changed: no cell is SLOWER, FASTER, NEW, MISSING or UNKNOWN (2 UNDECIDED", body)
        self.assertNotIn("| variant |", body)

    def test_render_unchanged_is_counted_not_listed(self):
        doc = base_doc()
        cells = doc["paired"]["cells"]
        for c in cells:
            if c["verdict"] == "SAME":
                c.update(verdict="UNCHANGED", ratio=1.0, lo=1.0, hi=1.0, blocks=0, pairs=0, rounds=0,
                         head_us=0.0, base_us=0.0,
                         message="same machine code (sm_90, SHA-256 3f2a9c01d4e5b6a7) and launches: 2 kernels")
        body = kc.render(kc.load(self.files.write(doc)), 4, "kgate")
        self.assertIn("37 cells, 2 SLOWER, 1 FASTER, 2 UNDECIDED, 2 NEW, 1 MISSING, 1 UNKNOWN, 28 UNCHANGED", body)
        self.assertNotIn("| UNCHANGED |", body)
        self.assertNotIn("SHA-256", body)
        for c in cells:
            if c["verdict"] not in ("UNDECIDED", "UNCHANGED"):
                c.update(verdict="SAME", ratio=1.0, lo=0.999, hi=1.001, blocks=8, head_us=1.0, base_us=1.0)
        body = kc.render(kc.load(self.files.write(doc)), 0, "kgate")
        self.assertIn("Nothing changed: no cell is SLOWER, FASTER, NEW, MISSING or UNKNOWN (2 UNDECIDED", body)
        self.assertIn("28 UNCHANGED", body)

    def test_render_unpaired_says_so(self):
        body = kc.render(kc.load(RUN1), 0, "kgate")
        self.assertIn("Not paired", body)
        self.assertIn("all 240 cases that ran passed", body)

    def test_render_no_results_names_the_exit_code(self):
        body = kc.render(None, 3, "gpu-h100")
        self.assertTrue(body.startswith("<!-- kgate-action:gpu-h100 -->"))
        self.assertIn("kgate exited 3 before writing its results", body)

    def test_render_failed_cases_are_listed(self):
        doc = base_doc()
        doc["cases"][0].update(status="fail", got="1", expected="2", message="")
        doc["cases"][1].update(status="error", got="", expected="", message="worker crashed (SIGSEGV)")
        doc["cases"][2].update(status="fail", message="", input_modified=True)
        body = kc.render(kc.load(self.files.write(doc)), 1, "kgate")
        self.assertIn("### kgate: FAILED: a correctness failure", body)
        self.assertIn("33 of 36 cases passed, **3 failed**", body)
        self.assertIn("| error |  |  | worker crashed (SIGSEGV) |", body)
        self.assertIn("| input modified |", body)

    def test_render_reference_new_cells_are_not_listed(self):
        doc = base_doc()
        for c in doc["paired"]["cells"]:
            if c["verdict"] == "NEW":
                c["variant"] = "cub_sum"
        body = kc.render(kc.load(self.files.write(doc)), 4, "kgate", reference=("cub_sum",))
        self.assertIn("2 NEW", body)  # counted
        self.assertNotIn("| NEW |", body)  # not listed
        self.assertIn("| UNKNOWN |", body)  # cub_sum's other verdicts still are

    def test_render_run_url_is_a_link(self):
        body = kc.render(kc.load(RUN1), 0, "kgate", "https://github.com/o/r/actions/runs/7")
        self.assertIn("[The run: summary, results and charts](https://github.com/o/r/actions/runs/7)", body)


class Limits(unittest.TestCase):
    def setUp(self):
        self.files = Files()

    def tearDown(self):
        self.files.dir.cleanup()

    def test_md_escapes_every_active_character(self):
        table = [
            ("<b>", "&lt;b&gt;"),
            ("a&b", "a&amp;b"),
            ("@octocat", "&#64;\u2060octocat"),
            ("x|y", "x\\|y"),
            ("[a](b)", "\\[a\\](b)"),
            ("`c`", "\\`c\\`"),
            ("*_~", "\\*\\_\\~"),
            ("\\", "\\\\"),
            ("a\nb\tc\rd", "a b c d"),
            ("\x1b[31m\x7f\x85", "?\\[31m??"),
            ("\udcff", "?"),
            ("µs ok", "µs ok"),
        ]
        for raw, want in table:
            with self.subTest(raw=raw):
                self.assertEqual(kc.md(raw), want)

    def test_md_breaks_every_autolink(self):
        # What GitHub links in comment text; entities are decoded first, so "&#64;" alone is no defence.
        table = [
            "https://evil.example/pay", "HTTP://evil.example", "ftp://evil.example/x", "see www.evil.example",
            "WWW.evil.example", "mallory@evil.example", "mailto:mallory@evil.example", "@octocat",
            "cc @kgate-dev/maintainers", "#123", "fixes #7", "owner/repo#42", "GH-9", "gh-10",
        ]
        for raw in table:
            with self.subTest(raw=raw):
                self.assertEqual(github_links(kc.md(raw)), [], kc.md(raw))
                # and reads the same: only invisible word joiners added
                self.assertEqual(html.unescape(kc.md(raw)).replace(kc.NO_LINK, ""), raw)

    def test_render_file_text_is_never_a_link(self):
        bait = "https://evil.example www.evil.example mallory@evil.example @octocat #1 GH-2 owner/repo#3"
        doc = base_doc()
        doc["run"]["device"]["name"] = bait
        doc["run"]["kgate_commit"] = bait
        doc["cases"][0].update(status="fail", got=bait, expected=bait, message=bait)
        doc["paired"]["cells"][0].update(variant=bait, message=bait)
        doc["paired"]["base_name"] = bait
        doc["paired"]["base_version"] = bait
        body = kc.render(kc.load(self.files.write(doc)), 1, "kgate", "https://github.com/o/r/actions/runs/7")
        lines = body.splitlines()
        run_link = "[The run: summary, results and charts](https://github.com/o/r/actions/runs/7)"
        self.assertEqual(lines[-1], run_link)  # kgate's own link stays a link
        text = "\n".join(lines[1:-1])  # past the marker, before the run's link
        self.assertGreaterEqual(text.count("evil.example"), 8)
        self.assertEqual(github_links(text), [])

    def test_render_hostile_strings_stay_text(self):
        doc = base_doc()
        doc["run"]["device"]["name"] = HOSTILE
        doc["cases"][0].update(status="fail", got=HOSTILE, expected=HOSTILE, message=HOSTILE)
        doc["paired"]["cells"][0]["variant"] = HOSTILE
        doc["paired"]["base_name"] = HOSTILE
        body = kc.render(kc.load(self.files.write(doc)), 1, "kgate")
        text = body.split("\n", 1)[1]  # past the marker (the only HTML comment)
        self.assertNotIn("<", text)
        self.assertNotIn("@", text)
        self.assertNotRegex(text, r"(?<!\\)\]\(javascript")
        self.assertNotIn("\n# head", text)
        for line in text.splitlines():
            if line.startswith("| "):
                # every unescaped | is a cell border: the row keeps its column count
                cells = line.replace("\\|", "").count("|")
                self.assertIn(cells, (9, 11), line)

    def test_render_many_failures_are_cut(self):
        doc = base_doc()
        for c in doc["cases"]:
            c.update(status="fail", message="wrong")
        extra = []
        for i in range(80):
            c = copy.deepcopy(doc["cases"][0])
            c["n"] = 1000 + i
            extra.append(c)
        doc["cases"] += extra
        body = kc.render(kc.load(self.files.write(doc)), 1, "kgate")
        rows = [l for l in body.splitlines() if l.startswith("| ") and "wrong" in l]
        self.assertEqual(len(rows), kc.MAX_FAILED_ROWS)
        self.assertIn("… and %d more failed cases." % (116 - kc.MAX_FAILED_ROWS), body)

    def test_render_stays_under_githubs_limit(self):
        doc = base_doc()
        for c in doc["cases"]:
            c.update(status="fail", got="9" * 31, expected="8" * 31, message="x" * 199)
        doc["paired"]["cells"] = [
            dict(doc["paired"]["cells"][5], variant="v%d_%s" % (i, "y" * 50), n=i) for i in range(400)
        ]
        body = kc.render(kc.load(self.files.write(doc)), 1, "kgate")
        self.assertLessEqual(len(body), kc.MAX_BODY)
        self.assertIn("… and 300 more changed cells", body)

    def test_size_text(self):
        for n, want in [(0, "0"), (1, "1"), (1024, "2^10"), (4194304, "2^22"), (4194305, "4194305"), (1000, "1000")]:
            with self.subTest(n=n):
                self.assertEqual(kc.size_text(n), want)


class Errors(unittest.TestCase):
    def setUp(self):
        self.files = Files()

    def tearDown(self):
        self.files.dir.cleanup()

    def test_load_refuses_values_that_cannot_be_true(self):
        def mut(f):
            doc = base_doc()
            f(doc)
            return doc

        table = [
            ("not json", "{", "not JSON"),
            ("another kind", mut(lambda d: d.update(kind="kgate-baseline")), "kind"),
            ("schema 3", mut(lambda d: d.update(schema_version=3)), "schema_version"),
            ("no run", mut(lambda d: d.pop("run")), "missing field run"),
            ("gpu not text", mut(lambda d: d["run"]["device"].update(name=5)), "run.device: name"),
            ("n negative", mut(lambda d: d["cases"][3].update(n=-1)), "cases[3]: n is negative"),
            ("verdict", mut(lambda d: d["paired"]["cells"][1].update(verdict="WORSE")), "paired.cells[1]"),
            ("lo > ratio", mut(lambda d: d["paired"]["cells"][0].update(lo=2.0)), "lo <= ratio"),
            ("null ratio", mut(lambda d: d["paired"]["cells"][0].update(ratio=None)), "ratio is not a num"),
            ("confidence", mut(lambda d: d["paired"].update(confidence=1.5)), "confidence"),
            ("blocks < 0", mut(lambda d: d["paired"]["cells"][4].update(blocks=-1)), "negative count"),
        ]
        for name, doc, field in table:
            with self.subTest(name=name):
                path = self.files.write(doc)
                with self.assertRaises(kc.InputError) as cm:
                    kc.load(path)
                self.assertIn(path, str(cm.exception))
                self.assertIn(field, str(cm.exception))
                self.assertEqual(len(str(cm.exception).splitlines()), 1)

    def test_load_refuses_a_directory(self):
        with self.assertRaises(kc.InputError) as cm:
            kc.load(self.files.dir.name)
        self.assertIn("not a regular file", str(cm.exception))

    def test_main_exits_2_and_writes_nothing_on_bad_input(self):
        path = self.files.write({"kind": "nope"})
        out = os.path.join(self.files.dir.name, "body.md")
        with open(out, "w") as f:
            f.write("old")
        self.assertEqual(kc.main(["render", path, "--exit-code", "0", "-o", out]), 2)
        with open(out) as f:
            self.assertEqual(f.read(), "old")

    def test_marker_is_refused_unless_plain(self):
        for bad in ["", "a b", "x-->y", "a" * 65]:
            with self.subTest(marker=bad):
                with self.assertRaises(kc.InputError):
                    kc.marker_line(bad)


class FakeGitHub:
    """Answers the comment API from a list of existing comments."""

    def __init__(self, comments, write_status=None):
        self.comments = comments
        self.write_status = write_status
        self.calls = []

    def __call__(self, method, url, token, body):
        self.calls.append((method, url, body))
        if method == "GET":
            page = int(url.rsplit("page=", 1)[1])
            return 200, self.comments[(page - 1) * 100:page * 100]
        if self.write_status:
            return self.write_status, None
        return (200 if method == "PATCH" else 201), {"html_url": "https://x/c"}


class Post(unittest.TestCase):
    def setUp(self):
        self.files = Files()
        self.body = kc.render(kc.load(PAIRED), 4, "kgate")

    def tearDown(self):
        self.files.dir.cleanup()

    def env(self, event, name="pull_request"):
        return {
            "GITHUB_EVENT_PATH": self.files.write(event, "event.json"),
            "GITHUB_EVENT_NAME": name,
            "GITHUB_REPOSITORY": "team/kernels",
            "GITHUB_TOKEN": "t",
            "GITHUB_API_URL": "https://api.example",
        }

    def pr(self, head_repo="team/kernels"):
        return {"pull_request": {"number": 7, "head": {"repo": {"full_name": head_repo}}}}

    def other(self, i, login="someone"):
        return {"id": i, "body": "hello", "user": {"login": login}}

    def test_post_edits_its_own_comment_found_on_a_later_page(self):
        comments = [self.other(i) for i in range(150)]
        comments.append({"id": 999, "body": "<!-- kgate-action:kgate -->\nold", "user": {"login": "github-actions[bot]"}})
        gh = FakeGitHub(comments)
        msg = kc.post(self.body, "kgate", "github-actions[bot]", self.env(self.pr()), gh)
        self.assertIn("edited", msg)
        self.assertEqual([c[0] for c in gh.calls], ["GET", "GET", "PATCH"])
        self.assertTrue(gh.calls[-1][1].endswith("/repos/team/kernels/issues/comments/999"))
        self.assertEqual(gh.calls[-1][2], {"body": self.body})

    def test_post_creates_when_none_carries_the_marker(self):
        gh = FakeGitHub([self.other(1)])
        msg = kc.post(self.body, "kgate", "github-actions[bot]", self.env(self.pr()), gh)
        self.assertIn("posted", msg)
        self.assertEqual(gh.calls[-1][0], "POST")
        self.assertTrue(gh.calls[-1][1].endswith("/repos/team/kernels/issues/7/comments"))

    def test_post_never_edits_a_marker_planted_by_someone_else(self):
        planted = {"id": 5, "body": "<!-- kgate-action:kgate -->\nmine", "user": {"login": "mallory"}}
        gh = FakeGitHub([planted])
        kc.post(self.body, "kgate", "github-actions[bot]", self.env(self.pr()), gh)
        self.assertEqual(gh.calls[-1][0], "POST")

    def test_post_other_marker_is_another_comment(self):
        mine = {"id": 5, "body": "<!-- kgate-action:h100 -->\nx", "user": {"login": "github-actions[bot]"}}
        gh = FakeGitHub([mine])
        kc.post(self.body, "kgate", "github-actions[bot]", self.env(self.pr()), gh)
        self.assertEqual(gh.calls[-1][0], "POST")

    def test_post_unchanged_body_writes_nothing(self):
        mine = {"id": 5, "body": self.body, "user": {"login": "github-actions[bot]"}}
        gh = FakeGitHub([mine])
        msg = kc.post(self.body, "kgate", "github-actions[bot]", self.env(self.pr()), gh)
        self.assertIn("unchanged", msg)
        self.assertEqual([c[0] for c in gh.calls], ["GET"])

    def test_post_skips_without_calls(self):
        table = [
            ("push", {"ref": "refs/heads/main"}, "push", "not a pull request"),
            ("merge queue", {"merge_group": {}}, "merge_group", "not a pull request"),
            ("fork", self.pr("mallory/kernels"), "pull_request", "fork"),
        ]
        for name, event, ev_name, said in table:
            with self.subTest(name=name):
                gh = FakeGitHub([])
                msg = kc.post(self.body, "kgate", "github-actions[bot]", self.env(event, ev_name), gh)
                self.assertIn(said, msg)
                self.assertTrue(msg.startswith("::notice::"))
                self.assertEqual(gh.calls, [])

    def test_post_read_only_token_is_a_warning(self):
        for status in (403, 404):
            with self.subTest(status=status):
                gh = FakeGitHub([], write_status=status)
                msg = kc.post(self.body, "kgate", "github-actions[bot]", self.env(self.pr()), gh)
                self.assertTrue(msg.startswith("::warning::"))
                self.assertIn("pull-requests: write", msg)

    def test_post_refuses_a_body_without_its_marker(self):
        gh = FakeGitHub([])
        msg = kc.post("no marker", "kgate", "github-actions[bot]", self.env(self.pr()), gh)
        self.assertTrue(msg.startswith("::error::"))
        self.assertEqual(gh.calls, [])


if __name__ == "__main__":
    unittest.main()
