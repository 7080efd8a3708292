#!/usr/bin/env bash
# The `grep-oracle` repository: text that exact search must treat exactly as `git grep`.
# Usage: grep-oracle.sh DIR
#
# The story:
#  1. main holds code in several languages, a CRLF file, a file of very long lines,
#     multibyte UTF-8, a Latin-1 file, a 1.5 MB text file (over the parse limit, so it has no
#     trigram document and is scanned), a binary, and lines full of regex metacharacters.
#     Text files that git treats as binary by their attributes (`git grep -I` skips them):
#     `-diff` in `.gitattributes`, the `binary` macro, a diff driver configured `binary`,
#     `info/attributes`; and files a later or deeper rule gives back to text.
#  2. `other` (never checked out by the tests) edits and deletes some of them.
#  3. The worktree then gets an uncommitted edit, an untracked file and an ignored file.

. "$(dirname "$0")/lib.sh"
new_repo "$1"

write src/server.rs <<'RS'
use std::net::TcpListener;

/// Serves requests until stopped.
pub struct Server {
    listener: TcpListener,
    max_connections: usize,
}

impl Server {
    pub fn bind(addr: &str) -> std::io::Result<Server> {
        let listener = TcpListener::bind(addr)?;
        Ok(Server { listener, max_connections: 64 })
    }

    pub fn serve(&self) -> Result<(), String> {
        for stream in self.listener.incoming() {
            let _stream = stream.map_err(|e| format!("accept failed: {e}"))?;
        }
        Err("listener closed".to_string())
    }
}
RS
write app/handlers.py <<'PY'
import json
import re

PATTERN = re.compile(r"^(GET|POST) /api/v[0-9]+/(\w+)$")


def handle_request(request):
    """Handles one request: (a+b)*c and [brackets] and {braces}."""
    if request.method == "GET":
        return json.dumps({"status": "ok", "path": request.path})
    raise ValueError("unsupported method: %s" % request.method)


class RequestHandler:
    def __init__(self, routes):
        self.routes = routes  # $HOME ^caret |pipe| ?question

    def dispatch(self, request):
        return self.routes.get(request.path, handle_request)(request)
PY
write web/app.ts <<'TS'
export interface User {
  id: number;
  name: string;
}

export async function fetchUser(id: number): Promise<User> {
  const response = await fetch(`/api/v1/users/${id}`);
  if (!response.ok) {
    throw new Error(`fetchUser failed: ${response.status}`);
  }
  return (await response.json()) as User;
}
TS
mkdir -p docs native data
printf 'Line one\r\nsecond line with trailing CR\r\nfetchUser in CRLF\r\nlast\r\n' >docs/crlf.txt
write docs/unicode.md <<'MD'
# Größe und Maße

Straße, naïve café, 日本語のテキスト, emoji 🚀 rocket.
Ünïcödé identifiers: größe_berechnen and Maße.
Été comme ÉTÉ et été; 中文字符 dans 注释; ÄÖÜ äöü ÿ.
MD
printf '/* caf\xe9 */\nint latin1_total = 0; /* na\xefve */\n' >native/latin1.c
awk 'BEGIN { for (i = 0; i < 3; i++) { line = ""; for (j = 0; j < 2000; j++) line = line "tok" j " "; print line "needle_in_long_line_" i } }' >data/long-lines.txt
awk 'BEGIN { for (i = 0; i < 40000; i++) printf "row %06d value=%d %s\n", i, i * 7, (i % 997 == 0 ? "fetchUser? big_file_marker" : "plain") }' >data/big.txt
printf 'GIF89a\x00\x01\x00fetchUser binary\x00\n' >data/image.gif
write .gitattributes <<'ATTR'
*.lock -diff
generated/** binary
*.dat diff=opaque
docs/keep.lock diff
ATTR
mkdir -p sub
write sub/.gitattributes <<'ATTR'
*.lock !diff
ATTR
git config diff.opaque.binary true
mkdir -p .git/info
printf 'notes/** -diff\n' >.git/info/attributes
for f in yarn.lock generated/api.ts data/blob.dat sub/deps.lock docs/keep.lock notes/private.txt; do
  mkdir -p "$(dirname "$f")"
  printf 'fetchUser from %s\nattributes_decide_binary here\n' "$f" >"$f"
done
write metachars.txt <<'TXT'
price: $5.00 (was $7.50) [sale] {today}
path\to\file and a|b|c
a+b=c? yes* no^ maybe.
^starts with caret
ends with dollar$
TXT
commit "main content"

git checkout -q -b other
sed -i 's/max_connections: 64/max_connections: 128/' src/server.rs
git rm -q web/app.ts
write app/extra.py <<'PY'
def fetchUser(user_id):
    return {"id": user_id, "name": "other branch"}
PY
commit "other branch changes"
git checkout -q main

# The worktree: an uncommitted edit, an untracked file, an ignored file.
write .gitignore <<'IGN'
*.log
IGN
git add .gitignore
commit "ignore logs"
sed -i 's/listener closed/listener closed for good/' src/server.rs
write src/untracked.rs <<'RS'
pub fn untracked_function() -> &'static str { "fetchUser lives here too" }
RS
write debug.log <<'LOG'
fetchUser appears in an ignored log
LOG
