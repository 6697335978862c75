"""Create or update the one scorecard comment on a pull request (the sticky comment of the GitHub Action).

    python -m reply_audit.github_comment --repo OWNER/REPO --pr N --body-file FILE [--marker TEXT]

It lists the pull request's comments, finds the first one that the token's
own user wrote and whose body holds the marker (`<!-- reply-audit-scorecard -->`
by default) and replaces its body; with none, it adds a comment. Another
user's comment is never edited, whatever it holds. The token's user is
`--author`, else what `GET /user` says, else `github-actions[bot]` (the
workflow token cannot read /user). The token comes from GITHUB_TOKEN (or
GH_TOKEN), the API from GITHUB_API_URL (default https://api.github.com).

A token that may not write (HTTP 403, as on a pull request from a fork) is a
warning, not a failure: the scorecard is in the job summary already.
Standard library only. Exit codes: 0 done (or not allowed to comment), 2 bad
arguments or another API error (one line on stderr).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from .report.pr_comment import MARKER

WORKFLOW_BOT = "github-actions[bot]"


class ApiError(Exception):
    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class GitHub:
    def __init__(self, api: str, token: str) -> None:
        self.api = api.rstrip("/")
        self.token = token

    def request(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:   # the JSON GitHub answers
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(f"{self.api}{path}", data=data, method=method, headers={
            "Accept": "application/vnd.github+json", "Authorization": f"Bearer {self.token}",
            "X-GitHub-Api-Version": "2022-11-28", "Content-Type": "application/json",
            "User-Agent": "reply-audit"})
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                return json.loads(resp.read() or b"null")
        except urllib.error.HTTPError as exc:
            raise ApiError(f"{method} {path}: HTTP {exc.code} {exc.reason}", exc.code) from None
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            raise ApiError(f"{method} {path}: {exc}") from None


def own_login(gh: GitHub) -> str:
    """The token's user: GET /user, or the workflow bot when the token may not ask (GITHUB_TOKEN)."""
    try:
        user = gh.request("GET", "/user")
    except ApiError:
        return WORKFLOW_BOT
    return str((user or {}).get("login") or WORKFLOW_BOT)


def upsert(gh: GitHub, repo: str, pr: int, body: str, marker: str = MARKER,
           author: str = WORKFLOW_BOT) -> tuple[str, int]:
    """('updated' | 'created', comment id). Only AUTHOR's comments holding MARKER are candidates."""
    page = 1
    while True:
        comments = gh.request("GET", f"/repos/{repo}/issues/{pr}/comments?per_page=100&page={page}") or []
        for comment in comments:
            login = str((comment.get("user") or {}).get("login") or "")
            if login.lower() == author.lower() and marker in (comment.get("body") or ""):
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
    parser.add_argument("--author", help="the token's login, whose comment is updated [default: GET /user, else "
                                         f"{WORKFLOW_BOT}]")
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
    gh = GitHub(os.environ.get("GITHUB_API_URL", "https://api.github.com"), token)
    try:
        action, number = upsert(gh, args.repo, args.pr, body, args.marker, args.author or own_login(gh))
    except ApiError as exc:
        if exc.status == 403:   # a read-only token (a fork's pull request): the job summary has the scorecard
            warning = (f"cannot comment on {args.repo}#{args.pr} ({exc}): the token may not write, as on a pull "
                       "request from a fork; the scorecard is in the job summary")
            print(f"::warning::reply-audit: {warning}" if os.environ.get("GITHUB_ACTIONS") == "true"
                  else f"reply-audit: warning: {warning}", file=sys.stderr)
            return 0
        print(f"reply-audit: error: GitHub API: {exc}", file=sys.stderr)
        return 2
    print(f"reply-audit: {action} comment {number} on {args.repo}#{args.pr}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
