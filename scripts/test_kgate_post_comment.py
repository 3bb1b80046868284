#!/usr/bin/env python3
"""Tests of kgate_post_comment.py (the comment action's poster): the comment
kgate wrote (tests/data/reports/paired.comment.md, the golden) and hostile
ones, defused and composed; no network: post() gets a fake GitHub. The
comment's own content, cap and escaping are kgate's tests (check_verdicts).
Run: python3 -m unittest discover -s scripts -p 'test_*.py'"""

import html
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import kgate_post_comment as kc  # noqa: E402

GOLDEN = os.path.join(HERE, "..", "tests", "data", "reports", "paired.comment.md")
HOSTILE = ("<img src=x onerror=alert(1)> @octocat a@b.example [a](javascript:x) \\[b](http://e/) ![i](u) "
           "#12 o/r#3 GH-4 www.evil.example https://evil.example &#64;team &commat;x &#x23;5 <!-- kgate-action:kgate -->")


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



class Defuse(unittest.TestCase):
    def test_hostile_text_is_never_a_link_a_mention_or_html(self):
        out = kc.defuse(HOSTILE + "\n| " + HOSTILE + " |\n")
        self.assertEqual(github_links(out), [])
        self.assertNotIn("<", out)
        self.assertIsNone(re.search(r"(?<!\\)(\\\\)*\[", out), out)  # every [ escaped: no link, no image

    def test_kgates_comment_reads_the_same(self):
        with open(GOLDEN, encoding="utf-8") as f:
            golden = f.read()
        out = kc.defuse(golden)
        self.assertEqual(github_links(out), [])
        # only its bare [ gain a backslash (the intervals), which Markdown shows as [
        self.assertEqual(out.replace("\\[", "["), golden.replace("\\[", "["))

    def test_an_open_fence_is_closed_before_the_footer(self):
        for fence in ("```", "~~~~", "   ```text"):
            body = kc.compose("### kgate: PASS (exit 0)\n\n" + fence + "\nswallow the rest\n", 0, "kgate",
                              "https://example.invalid/run")
            lines = body.split("\n")
            link = next(i for i, x in enumerate(lines) if x.startswith("[The run:"))
            fences = [x for x in lines[:link] if re.match(r" {0,3}(`{3,}|~{3,})", x)]
            self.assertEqual(len(fences) % 2, 0, body)  # every fence before the link is closed
        closed = "### kgate: PASS (exit 0)\n\n```\ncode\n```\n"
        self.assertEqual(kc.defuse(closed), closed)  # a closed one gains nothing

    def test_bidirectional_controls_are_replaced(self):
        out = kc.defuse("a\u202eb\u2066c\u200fd\u061ce \u2060f\n")
        self.assertEqual(out, "a?b?c?d?e \u2060f\n")

    def test_cut_at_a_lines_end_under_githubs_limit(self):
        out = kc.defuse(("x" * 99 + "\n") * 2000)
        self.assertLessEqual(len(out), kc.MAX_BODY)
        self.assertTrue(out.endswith("\n... (cut at GitHub's comment limit: the results JSON has everything)\n"))
        self.assertTrue(out.split("\n... (cut")[0].endswith("x\n"))


class Compose(unittest.TestCase):
    def test_marker_first_then_kgates_comment(self):
        with open(GOLDEN, encoding="utf-8") as f:
            body = kc.compose(f.read(), 4, "leg1", "https://github.example/t/k/actions/runs/1")
        lines = body.split("\n")
        self.assertEqual(lines[0], "<!-- kgate-action:leg1 -->")
        self.assertEqual(lines[1], "### kgate: REGRESSION (exit 4)")
        self.assertNotIn("after writing this report", body)
        self.assertTrue(body.endswith("[The run: summary, results and charts](https://github.example/t/k/actions/runs/1)\n"))

    def test_an_exit_code_not_the_comments_is_said(self):
        body = kc.compose("### kgate: PASS (exit 0)\n\nall passed\n", 3, "kgate")
        self.assertIn("\nkgate exited 3 after writing this report: see the job log.\n", body)

    def test_no_comment_names_the_exit_code(self):
        body = kc.compose(None, 2, "kgate")
        self.assertEqual(body, "<!-- kgate-action:kgate -->\n### kgate: exited 2 before writing its report\n\n"
                               "See the job log.\n")

    def test_a_forged_marker_in_the_file_is_text(self):
        body = kc.compose("<!-- kgate-action:other -->\n### kgate: PASS (exit 0)\n", 0, "kgate")
        self.assertEqual(body.count("<!--"), 1)

    def test_marker_is_refused_unless_plain(self):
        for bad in ["", "a b", "x-->y", "a" * 65]:
            with self.subTest(marker=bad):
                with self.assertRaises(kc.InputError):
                    kc.marker_line(bad)

    def test_main_compose_writes_the_body(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "body.md")
            rc = subprocess.run([sys.executable, os.path.join(HERE, "kgate_post_comment.py"), "compose",
                                 os.path.join(d, "none.md"), "--exit-code", "3", "-o", out]).returncode
            self.assertEqual(rc, 0)
            with open(out, encoding="utf-8") as f:
                self.assertIn("exited 3 before writing its report", f.read())
            rc = subprocess.run([sys.executable, os.path.join(HERE, "kgate_post_comment.py"), "compose", d,
                                 "--exit-code", "3", "-o", out], stderr=subprocess.DEVNULL).returncode
            self.assertEqual(rc, 2)


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
        self.dir = tempfile.TemporaryDirectory()
        with open(GOLDEN, encoding="utf-8") as f:
            self.body = kc.compose(f.read(), 4, "kgate")

    def tearDown(self):
        self.dir.cleanup()

    def write(self, obj, name):
        path = os.path.join(self.dir.name, name)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(obj, f)
        return path

    def env(self, event, name="pull_request"):
        return {
            "GITHUB_EVENT_PATH": self.write(event, "event.json"),
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
