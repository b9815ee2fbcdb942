#!/usr/bin/env bash
# Benchmark (not a test): a long ledger with SSH-signed commits and RFC 3161 timestamps.
#
# Builds a ledger of N entries (default 10,000) in a scratch repository with the release binary:
# every commit signed with the Ed25519 test key of tests/data/sshsig, and every 10th entry a
# `timestamp` entry whose token comes from a TSA on 127.0.0.1 (`openssl ts -reply` behind a
# Python standard-library HTTP server; a throwaway P-256 CA and TSA certificate made here).
# Then times, each over RUNS whole-process runs (median wall time, and peak RSS from
# /usr/bin/time):
#   - one more signed append (`pledge note`) on the N-entry ledger,
#   - `pledge verify --allowed-signers --tsa-trust` (every signature and token checked),
#   - `pledge log`, `pledge export`, `pledge verify --ledger EXPORT`,
#   - git's own walks of the same commits: `git log` and `git log -p`,
# on the loose objects pledge writes and again after `git gc` (packed, as a clone has them).
#
# Usage: bash benches/ledger_witnessed.sh [N] [RUNS]     (needs openssl, python3, git)
# Building the ledger takes a few minutes (one pledge process per entry).
set -euo pipefail
N=${1:-10000}
RUNS=${2:-5}
root=$(cd "$(dirname "$0")/.." && pwd)
for tool in openssl python3 git bc /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "ledger_witnessed: $tool is not installed; skipped"; exit 0; }
done
(cd "$root" && cargo build --profile profiling --locked -q)
P=$root/target/profiling/pledge
work=$(mktemp -d)
trap 'kill "${server:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
cd "$work"

# A throwaway CA and TSA (P-256), as tests/cli/witness.rs makes them.
openssl req -x509 -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -out ca.pem \
  -days 30 -subj "/O=pledge bench/CN=loopback CA" -addext basicConstraints=critical,CA:TRUE \
  -addext keyUsage=critical,keyCertSign 2>/dev/null
openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout tsa.key -out tsa.csr \
  -subj "/O=pledge bench/CN=loopback TSA" 2>/dev/null
echo "extendedKeyUsage=critical,timeStamping" >ext.cnf
openssl x509 -req -in tsa.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 30 -extfile ext.cnf \
  -out tsa.pem 2>/dev/null
echo 01 >tsa.serial
cat >tsa.cnf <<EOF
[ tsa ]
default_tsa = c
[ c ]
serial = $work/tsa.serial
crypto_device = builtin
signer_cert = $work/tsa.pem
certs = $work/tsa.pem
signer_key = $work/tsa.key
signer_digest = sha256
default_policy = 1.2.3.4.1
digests = sha256
accuracy = secs:1
tsa_name = yes
ess_cert_id_alg = sha256
EOF
cat >tsa_server.py <<'EOF'
import http.server, subprocess, sys, tempfile, os
cnf = sys.argv[1]
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        with tempfile.TemporaryDirectory() as d:
            q, r = os.path.join(d, "q.tsq"), os.path.join(d, "r.tsr")
            open(q, "wb").write(body)
            ok = subprocess.run(["openssl", "ts", "-reply", "-queryfile", q, "-config", cnf, "-out", r],
                                capture_output=True).returncode == 0
            reply = open(r, "rb").read() if ok else b""
        self.send_response(200)
        self.send_header("Content-Type", "application/timestamp-reply")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
EOF
python3 tsa_server.py "$work/tsa.cnf" >port.txt &
server=$!
for _ in $(seq 50); do [ -s port.txt ] && break; sleep 0.1; done
url="http://127.0.0.1:$(head -1 port.txt)/tsr"

cp "$root/tests/data/sshsig/id_ed25519" key && chmod 600 key
signers=$root/tests/data/sshsig/allowed_signers
mkdir repo && cd repo
git init -q
"$P" init >/dev/null 2>&1
echo "building a ledger of $N signed entries, every 10th a timestamp from $url ..." >&2
start=$(date +%s)
for i in $(seq 1 "$N"); do
  if [ $((i % 10)) -eq 0 ]; then
    "$P" timestamp --tsa "$url" --sign-key ../key >/dev/null 2>&1
  else
    "$P" note --reason "entry $i" --sign-key ../key >/dev/null 2>&1
  fi
done
echo "built in $(($(date +%s) - start)) s" >&2

# Median wall seconds and peak RSS (MiB) of RUNS runs of a command (output discarded).
measure() {
  local label=$1
  shift
  local walls=() rss=()
  for _ in $(seq "$RUNS"); do
    local t0 t1
    t0=$(date +%s.%N)
    /usr/bin/time -f "%M" -o ../t.txt "$@" >/dev/null 2>&1 || true
    t1=$(date +%s.%N)
    walls+=("$(echo "$t1 - $t0" | bc -l)")
    rss+=("$(tail -1 ../t.txt)")
  done
  printf '%-44s %8.3f s  %6.1f MiB\n' "$label" \
    "$(printf '%s\n' "${walls[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')" \
    "$(printf '%s\n' "${rss[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]/1024}')"
}

report() {
  echo "== $1 ($(git rev-list --count refs/pledge/ledger) entries)"
  "$P" verify --allowed-signers "$signers" --tsa-trust ../ca.pem >../verify.txt 2>&1 && echo "verify: ok" ||
    { echo "verify failed:"; tail -5 ../verify.txt; }
  measure "pledge note (signed append)" "$P" note --reason more --sign-key ../key
  measure "pledge verify --allowed-signers --tsa-trust" "$P" verify --allowed-signers "$signers" --tsa-trust ../ca.pem
  measure "pledge log" "$P" log
  measure "pledge export" "$P" export ../ledger.jsonl
  measure "pledge verify --ledger EXPORT" "$P" verify --ledger ../ledger.jsonl --tsa-trust ../ca.pem
  measure "git log refs/pledge/ledger" git log refs/pledge/ledger
  measure "git log -p refs/pledge/ledger" git log -p refs/pledge/ledger
}
report "loose objects, as pledge writes them"
git gc -q
report "packed (git gc), as a clone has them"
