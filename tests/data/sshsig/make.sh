#!/usr/bin/env bash
# Regenerates the SSH signature test vectors of this directory (see PROVENANCE.txt). The keys
# are test keys made for this purpose only; never use them for anything else.
set -euo pipefail
cd "$(dirname "$0")"
rm -f id_* *.sig allowed_signers signed-commit.txt
ssh-keygen -q -t ed25519 -N '' -C 'alice@example.org' -f id_ed25519
ssh-keygen -q -t ecdsa -b 256 -N '' -C 'bob@example.org' -f id_ecdsa
ssh-keygen -q -t rsa -b 2048 -N '' -C 'carol@example.org' -f id_rsa
ssh-keygen -q -t ed25519 -N '' -C 'mallory@example.org' -f id_ed25519_other
printf 'pledge test message\n' > message.txt
ssh-keygen -Y sign -n git -f id_ed25519 message.txt 2>/dev/null && mv message.txt.sig ed25519-git.sig
ssh-keygen -Y sign -n git -f id_ecdsa message.txt 2>/dev/null && mv message.txt.sig ecdsa-git.sig
ssh-keygen -Y sign -n git -f id_rsa message.txt 2>/dev/null && mv message.txt.sig rsa-git.sig
ssh-keygen -Y sign -n file -f id_ed25519 message.txt 2>/dev/null && mv message.txt.sig ed25519-file.sig
ssh-keygen -Y sign -n git -f id_ed25519_other message.txt 2>/dev/null && mv message.txt.sig other-git.sig
{
  echo '# principals [options] keytype key [comment]'
  echo "alice@example.org namespaces=\"git\" $(cut -d' ' -f1,2 id_ed25519.pub)"
  echo "bob@example.org,*@ops.example.org $(cut -d' ' -f1,2 id_ecdsa.pub) bob's key"
  echo "carol@example.org valid-after=\"20200101\",valid-before=\"20991231Z\" $(cut -d' ' -f1,2 id_rsa.pub)"
} > allowed_signers
# A commit signed by git itself (gpg.format = ssh), as git stores it.
tmp=$(mktemp -d)
git init -q "$tmp/repo"
(
  cd "$tmp/repo"
  export GIT_CONFIG_NOSYSTEM=1 HOME="$tmp" GIT_AUTHOR_DATE='1796040000 +0000' GIT_COMMITTER_DATE='1796040000 +0000'
  git config user.name 'Alice' && git config user.email 'alice@example.org'
  git config gpg.format ssh && git config user.signingkey "$OLDPWD/id_ed25519"
  git config gpg.ssh.allowedSignersFile "$OLDPWD/allowed_signers"
  echo x > f && git add f && git commit -q -S -m 'A signed commit' -m 'Body line.'
  git cat-file commit HEAD > "$OLDPWD/signed-commit.txt"
  git rev-parse HEAD > "$OLDPWD/signed-commit.id"
  git verify-commit -v HEAD > "$OLDPWD/signed-commit.verify-commit.txt" 2>&1
)
rm -rf "$tmp"
# What ssh-keygen itself says about each signature (kept as the oracle's record).
{
  for pair in ed25519-git:alice@example.org ecdsa-git:bob@example.org rsa-git:carol@example.org \
              ed25519-file:alice@example.org other-git:alice@example.org; do
    sig=${pair%%:*} who=${pair#*:}
    ns=git; [ "$sig" = ed25519-file ] && ns=file
    printf '$ ssh-keygen -Y verify -f allowed_signers -I %s -n %s -s %s.sig < message.txt\n' "$who" "$ns" "$sig"
    ssh-keygen -Y verify -f allowed_signers -I "$who" -n "$ns" -s "$sig.sig" < message.txt 2>&1 && echo "(exit 0)" || echo "(exit $?)"
  done
} > ssh-keygen-verify.txt
