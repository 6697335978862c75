"""Render a pull-request scorecard comment as GitHub shows it, and screenshot it (docs/scorecard-comment.png).

    python scripts/render_scorecard.py [--out docs/scorecard-comment.png] [--html FILE]

It builds a small pull request on the bundled example in a temporary git
repository (the PR fixes some findings with `reply-audit migrate` and adds a
handler that introduces new ones), writes its scorecard comment, converts it
with cmark-gfm (GitHub's Markdown, raw HTML allowed as GitHub allows
`<details>`), wraps it in a stylesheet written to look like a GitHub comment,
and screenshots it with headless Chromium (`chromium`, Debian's package).
"""

from __future__ import annotations

import argparse
import html
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import cmarkgfm
from cmarkgfm.cmark import Options

REPO = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "GIT_AUTHOR_NAME": "dev", "GIT_AUTHOR_EMAIL": "dev@example.org",
       "GIT_COMMITTER_NAME": "dev", "GIT_COMMITTER_EMAIL": "dev@example.org"}

NEW_HANDLER = '''

@mcp.tool()
def notes_rename(src: str, dst: str) -> dict[str, Any]:
    rb = ReplyBuilder(tool="notes_rename")
    if src not in NOTES:
        rb.invalid("WA-RES-I-001", {"path": src})
    NOTES[dst] = NOTES.pop(src)
    return {"success": True, "path": dst}
'''

CSS = """
body { margin: 0; padding: 24px; background: #f6f8fa; font-family: -apple-system, BlinkMacSystemFont,
       "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif; font-size: 14px; line-height: 1.5; color: #1f2328; }
.comment { max-width: 900px; background: #fff; border: 1px solid #d1d9e0; border-radius: 6px; }
.header { background: #f6f8fa; border-bottom: 1px solid #d1d9e0; padding: 8px 16px; border-radius: 6px 6px 0 0;
          color: #59636e; }
.header b { color: #1f2328; }
.body { padding: 16px; }
h3 { font-size: 1.25em; margin: 0 0 8px; } h4 { font-size: 1em; margin: 16px 0 8px; }
table { border-collapse: collapse; margin: 8px 0; display: block; overflow: auto; }
th, td { border: 1px solid #d1d9e0; padding: 6px 13px; } th { font-weight: 600; }
tr:nth-child(2n) { background: #f6f8fa; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 85%; background: #eff1f3;
       padding: .2em .4em; border-radius: 6px; }
a { color: #0969da; text-decoration: none; } ul { padding-left: 2em; margin: 4px 0; }
details { margin: 8px 0; } summary { cursor: pointer; font-weight: 600; }
sub { color: #59636e; }
"""


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True,
                          env=ENV).stdout.strip()


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "reply_audit", *args], capture_output=True, text=True, cwd=cwd)


def build_pull_request(work: Path) -> tuple[Path, str]:
    repo = work / "notesvc"
    shutil.copytree(REPO / "examples" / "legacy_mcp", repo,
                    ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    base = git(repo, "rev-parse", "HEAD")
    cli("migrate", str(repo), "--apply", "--select", "legacy-codes,except-to-error,forbidden-methods")
    server = repo / "src" / "notesvc" / "server.py"
    text = server.read_text(encoding="utf-8")
    marker = "\n\ndef _snapshot()"
    server.write_text(text.replace(marker, NEW_HANDLER + marker), encoding="utf-8")
    git(repo, "commit", "-qam", "notes_rename; migrate legacy codes, excepts and forbidden methods")
    return repo, base


def page(comment_html: str) -> str:
    return (f"<!doctype html><html><head><meta charset='utf-8'><style>{CSS}</style></head><body>"
            f"<div class='comment'><div class='header'><b>github-actions</b> bot commented</div>"
            f"<div class='body'>{comment_html}</div></div></body></html>")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "scorecard-comment.png")
    parser.add_argument("--html", type=Path, default=None, help="also keep the rendered page here")
    parser.add_argument("--height", type=int, default=1110)
    args = parser.parse_args()
    browser = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if browser is None:
        print("render_scorecard: no chromium on PATH (apt-get install chromium)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        repo, base = build_pull_request(work)
        done = cli("scorecard", str(repo), "--base", base, "--repo-url", "https://github.com/OWNER/notesvc")
        if done.returncode not in (0, 1):
            print(done.stderr, file=sys.stderr)
            return 2
        body = cmarkgfm.github_flavored_markdown_to_html(done.stdout, options=Options.CMARK_OPT_UNSAFE)
        target = args.html or work / "comment.html"
        target.write_text(page(body), encoding="utf-8")
        args.out.parent.mkdir(parents=True, exist_ok=True)
        shot = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                               f"--window-size=960,{args.height}", f"--screenshot={args.out.resolve()}",
                               target.resolve().as_uri()], capture_output=True, text=True, timeout=120)
        if shot.returncode != 0 or not args.out.exists():
            print(f"render_scorecard: chromium failed: {html.escape(shot.stderr[-400:])}", file=sys.stderr)
            return 2
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
