#!/bin/sh
# Makes the encoding fixtures with iconv. Each NAME.txt holds non-ASCII text
# in one legacy encoding, mixed line endings ("\n" and "\r\n") and, for
# UTF-16, a byte-order mark; NAME.edited.txt is the same file with its third
# line ("plain line") replaced by non-ASCII text the encoding has, which is
# what the tests' edit must produce byte for byte. Run from this folder; the
# files are committed, so the tests need no iconv.
set -e
mk() { # name, iconv encoding, bytes before the text (a BOM), line 1, line 2, new line 3
	{ printf "$3"; printf '%s\n%s\r\nplain line\n' "$4" "$5" | iconv -f UTF-8 -t "$2"; } >"$1.txt"
	{ printf "$3"; printf '%s\n%s\r\n%s\n' "$4" "$5" "$6" | iconv -f UTF-8 -t "$2"; } >"$1.edited.txt"
}
mk latin1 ISO-8859-1 '' 'café crème' 'naïve' 'déjà vu'
mk cp1252 CP1252 '' '“quoted” €5' '— dash' '„low“ ‰'
mk sjis SHIFT_JIS '' '日本語' 'テスト' '編集済み'
mk gbk GBK '' '中文' '测试' '编辑过'
mk utf16le UTF-16LE '\377\376' 'héllo' 'wörld' 'ünïcode 😀'
mk utf16be UTF-16BE '\376\377' 'héllo' 'wörld' 'ünïcode 😀'
