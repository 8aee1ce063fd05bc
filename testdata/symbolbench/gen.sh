#!/bin/sh
# gen.sh GITDIR OUT N PATHSPEC...: writes one txtar per commit of the last N
# non-merge commits of GITDIR's HEAD that modify a file matching PATHSPEC
# (oldest first), in the format of ../conformance/history/gen.sh, limited to
# the files matching PATHSPEC: the commit's patch of them, and the parent's
# blob of each file it modifies (before/NAME; " noeol" when the blob has no
# final newline). Added, deleted and renamed files are left out.
set -eu
git_dir=$1
out=$2
n_max=$3
shift 3
mkdir -p "$out"
n=0
for c in $(git --git-dir="$git_dir" log --no-merges --diff-filter=M -n "$n_max" --format=%H HEAD -- "$@" | tac); do
	p=$(git --git-dir="$git_dir" rev-parse "$c^" 2>/dev/null) || continue
	files=$(git --git-dir="$git_dir" diff-tree -r --no-commit-id --diff-filter=M --name-only "$p" "$c" -- "$@")
	[ -n "$files" ] || continue
	n=$((n + 1))
	f=$(printf '%s/%03d-%s.txtar' "$out" "$n" "$(echo "$c" | cut -c1-12)")
	{
		git --git-dir="$git_dir" log -1 --format='commit %H%nparent %P%n%s' "$c"
		echo "-- patch --"
		# shellcheck disable=SC2086
		git --git-dir="$git_dir" diff --full-index "$p" "$c" -- $files
		for a in $files; do
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
		done
	} >"$f"
done
echo "$n commits"
