#!/usr/bin/env bash
# Regenerates the RFC 3161 test tokens of this directory with `openssl ts` (see PROVENANCE.txt).
# The CA and TSA keys are made for this purpose only and are not kept.
set -euo pipefail
cd "$(dirname "$0")"
out=$PWD
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
# The time-stamped hash: SHA-256 of these 18 bytes.
printf 'pledge test entry\n' > data.txt
sha256sum data.txt | cut -d' ' -f1 > "$out/hash.hex"

make_tsa() { # NAME KEYALG... : a CA and a TSA certificate issued by it
  local name=$1; shift
  openssl req -x509 -new -newkey "$@" -nodes -keyout "$name-ca.key" -out "$name-ca.pem" -days 3650 \
    -subj "/O=pledge tests/CN=pledge test CA $name" \
    -addext 'basicConstraints=critical,CA:TRUE' -addext 'keyUsage=critical,keyCertSign,cRLSign' 2>/dev/null
  openssl req -new -newkey "$@" -nodes -keyout "$name-tsa.key" -out "$name-tsa.csr" \
    -subj "/O=pledge tests/CN=pledge test TSA $name" 2>/dev/null
  printf 'extendedKeyUsage=critical,timeStamping\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\n' > ext.cnf
  openssl x509 -req -in "$name-tsa.csr" -CA "$name-ca.pem" -CAkey "$name-ca.key" -CAcreateserial \
    -days 3650 -extfile ext.cnf -out "$name-tsa.pem" 2>/dev/null
  cat > "$name.cnf" <<CNF
[ tsa ]
default_tsa = tsa_config
[ tsa_config ]
dir = $work
serial = \$dir/$name.serial
crypto_device = builtin
signer_cert = \$dir/$name-tsa.pem
certs = \$dir/$name-tsa.pem
signer_key = \$dir/$name-tsa.key
signer_digest = sha256
default_policy = 1.2.3.4.1
digests = sha256, sha384, sha512
accuracy = secs:1, millisecs:500, microsecs:100
clock_precision_digits = 0
ordering = no
tsa_name = yes
ess_cert_id_chain = no
ess_cert_id_alg = sha256
CNF
  echo 01 > "$name.serial"
}

make_tsa rsa rsa:2048
make_tsa ec ec -pkeyopt ec_paramgen_curve:P-384
make_tsa other ec -pkeyopt ec_paramgen_curve:P-256

openssl ts -query -data data.txt -sha256 -cert -out req.tsq 2>/dev/null
for name in rsa ec; do
  openssl ts -reply -queryfile req.tsq -config "$name.cnf" -out "$name.tsr" 2>/dev/null
  openssl ts -reply -in "$name.tsr" -token_out -out "$out/token-$name.der" 2>/dev/null
  cp "$name.tsr" "$out/response-$name.tsr"
  cp "$name-ca.pem" "$out/ca-$name.pem"
  # openssl's own verdict, kept as the oracle's record.
  openssl ts -verify -data data.txt -in "$out/token-$name.der" -token_in -CAfile "$name-ca.pem" \
    -untrusted "$name-tsa.pem" > "$out/openssl-verify-$name.txt" 2>&1
  openssl ts -reply -in "$out/token-$name.der" -token_in -text -token_out > "$out/token-$name.txt" 2>/dev/null
done
cp req.tsq "$out/request.tsq"
cp other-ca.pem "$out/ca-other.pem"
# A token whose TSA certificate lacks the time-stamping usage is made by the Rust tests
# (openssl ts refuses to sign with such a certificate).
