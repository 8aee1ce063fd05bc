#!/bin/sh
# gen.sh GITDIR: writes one txtar per non-merge commit of GITDIR's HEAD
# history (oldest first): the commit's `git format-patch`, its parent's
# blobs of every file it changes (before/NAME; " noeol" when the blob has no
# final newline) and the commit's blob id of each file it leaves (want:
# "NAME BLOBID", "NAME deleted").
set -eu
git_dir=$1
out=$(dirname "$0")/google-uuid
mkdir -p "$out"
n=0
for c in $(git --git-dir="$git_dir" rev-list --no-merges --reverse HEAD); do
	p=$(git --git-dir="$git_dir" rev-parse "$c^" 2>/dev/null) || continue
	n=$((n + 1))
	f=$(printf '%s/%03d-%s.txtar' "$out" "$n" "$(echo "$c" | cut -c1-12)")
	{
		git --git-dir="$git_dir" log -1 --format='commit %H%nparent %P%n%s' "$c"
		echo "-- patch --"
		git --git-dir="$git_dir" format-patch -1 --stdout --no-signature --full-index "$c"
		git --git-dir="$git_dir" diff-tree -r --no-commit-id -M --name-status "$p" "$c" | while IFS="$(printf '\t')" read -r st a b; do
			case $st in
			A) ;;
			*)
				tmp=$(mktemp)
				git --git-dir="$git_dir" cat-file blob "$p:$a" >"$tmp"
				if [ -s "$tmp" ] && [ "$(tail -c1 "$tmp" | od -An -c | tr -d ' ')" != '\n' ]; then
					echo "-- before/$a noeol --"
					cat "$tmp"
					echo
				else
					echo "-- before/$a --"
					cat "$tmp"
				fi
				rm -f "$tmp"
				;;
			esac
		done
		echo "-- want --"
		git --git-dir="$git_dir" diff-tree -r --no-commit-id -M --name-status "$p" "$c" | while IFS="$(printf '\t')" read -r st a b; do
			case $st in
			D) echo "$a deleted" ;;
			R*)
				echo "$a deleted"
				echo "$b $(git --git-dir="$git_dir" rev-parse "$c:$b")"
				;;
			*) echo "$a $(git --git-dir="$git_dir" rev-parse "$c:$a")" ;;
			esac
		done
	} >"$f"
done
echo "$n commits"
