"""Create or update the one scorecard comment on a pull request (the sticky comment of the GitHub Action).

    python -m reply_audit.github_comment --repo OWNER/REPO --pr N --body-file FILE [--marker TEXT]

It lists the pull request's comments, finds the first one whose body holds
the marker (`<!-- reply-audit-scorecard -->` by default) and replaces its
body; with none, it adds a comment. The token comes from GITHUB_TOKEN (or
GH_TOKEN), the API from GITHUB_API_URL (default https://api.github.com).
Standard library only. Exit codes: 0 done, 2 bad arguments or an API error
(one line on stderr).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import urllib.error
import urllib.request
from pathlib import Path

from .report.pr_comment import MARKER


class ApiError(Exception):
    pass


class GitHub:
    def __init__(self, api: str, token: str) -> None:
        self.api = api.rstrip("/")
        self.token = token

    def request(self, method: str, path: str, body: dict | None = None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(f"{self.api}{path}", data=data, method=method, headers={
            "Accept": "application/vnd.github+json", "Authorization": f"Bearer {self.token}",
            "X-GitHub-Api-Version": "2022-11-28", "Content-Type": "application/json",
            "User-Agent": "reply-audit"})
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                return json.loads(resp.read() or b"null")
        except urllib.error.HTTPError as exc:
            raise ApiError(f"{method} {path}: HTTP {exc.code} {exc.reason}") from None
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            raise ApiError(f"{method} {path}: {exc}") from None


def upsert(gh: GitHub, repo: str, pr: int, body: str, marker: str = MARKER) -> tuple[str, int]:
    """('updated' | 'created', comment id)."""
    page = 1
    while True:
        comments = gh.request("GET", f"/repos/{repo}/issues/{pr}/comments?per_page=100&page={page}") or []
        for comment in comments:
            if marker in (comment.get("body") or ""):
                gh.request("PATCH", f"/repos/{repo}/issues/comments/{comment['id']}", {"body": body})
                return "updated", int(comment["id"])
        if len(comments) < 100:
            break
        page += 1
    created = gh.request("POST", f"/repos/{repo}/issues/{pr}/comments", {"body": body})
    return "created", int(created["id"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", required=True, help="OWNER/REPO")
    parser.add_argument("--pr", required=True, type=int, help="pull request number")
    parser.add_argument("--body-file", required=True, type=Path)
    parser.add_argument("--marker", default=MARKER)
    args = parser.parse_args(argv)
    token = os.environ.get("GITHUB_TOKEN") or os.environ.get("GH_TOKEN")
    if not token:
        print("reply-audit: error: set GITHUB_TOKEN (the workflow's github.token) to post the comment",
              file=sys.stderr)
        return 2
    try:
        body = args.body_file.read_text(encoding="utf-8")
    except OSError as exc:
        print(f"reply-audit: error: cannot read {args.body_file}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    if args.marker not in body:
        body = f"{args.marker}\n{body}"
    try:
        action, number = upsert(GitHub(os.environ.get("GITHUB_API_URL", "https://api.github.com"), token),
                                args.repo, args.pr, body, args.marker)
    except ApiError as exc:
        print(f"reply-audit: error: GitHub API: {exc}", file=sys.stderr)
        return 2
    print(f"reply-audit: {action} comment {number} on {args.repo}#{args.pr}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
