// Package editblock finds edit blocks in free-form model output and matches
// them against a file's lines (the edit-block protocol of issue 5):
//
//	path/to/file.ext
//	<<<< EDIT
//	[anchor lines]
//	[old lines]
//	==== REPLACE
//	[anchor lines]
//	[new lines]
//	>>>> EDIT END
//
// It is pure: no LSP types, no file I/O, no guard, no path policy. The
// caller resolves and polices paths, runs the guard on Match.Start-End and
// applies Match.Plan through the apply path it shares with hashline edits.
//
// # Parsing
//
// A Parser takes the output in chunks of any size and returns each Block by
// the Write that brings its ">>>> EDIT END" (the rest of that line is
// ignored, so a stream ending in the marker without a newline completes the
// block at once). Unusable blocks are Orphans, drained with Orphans(); the
// block the stream ended in is the Partial that Close returns. Blocks,
// orphans and the partial share one Index sequence, one per "<<<< EDIT", so
// a streaming caller applies blocks as they come and reports orphans in
// output order by merging on Index:
//
//	var p editblock.Parser
//	for chunk := range stream {
//		blocks := p.Write(chunk)  // apply each
//		orphans := p.Orphans()    // report each as skipped
//	}
//	partial := p.Close()          // "block for X was not finished"
//	orphans := p.Orphans()
//
// Results never depend on how the output is cut into chunks. Lines end at
// "\n", "\r\n" or "\r" (also a "\r\n" split between chunks).
//
// Marker lines count at column 0 only: "<<<< EDIT" (optionally followed by
// whitespace and a path), "==== REPLACE" (trailing whitespace allowed), and
// any line starting with ">>>> EDIT END". A marker can therefore not be
// block content. A marker out of place ends the block being read as an
// Orphan (no_replace, no_end, extra_replace) rather than guessing, so prose
// is never swallowed into a block that then applies.
//
// The path is the last line before "<<<< EDIT" that is not blank and not a
// code fence, when it looks like a path: it contains '/' or '\', or is a
// bare name with an extension (main.go) or a well-known one (Makefile); it
// is shorter than 200 bytes, has no spaces unless quoted, and does not start
// with "//", '-', '>', '*' or '#'. Markdown around it is unwrapped: a
// heading ("### a.go"), backticks, quotes, bold, a trailing colon, a label
// ("File: a.go", "**File:** `a.go`"). A fence's info string can name it
// ("```go src/a.go"), and a path on the marker line wins. A block with none
// right after another block (only blank lines and fences between) takes
// that block's path (Block.Inherited); so does one inside the code fence
// the previous block ended in, when no line between them names a file
// (aider writes several blocks for one file so, with prose between);
// otherwise it is an Orphan (no_path).
// Fences around blocks are tolerated; fences inside a block are content.
//
// # Matching
//
// MatchBlock compares line contents only (terminators never matter, so CRLF
// output matches an LF file; whitespace inside lines does, and tabs are
// never converted). The EDIT half must occur exactly once. The protocol
// says the anchor (the leading lines both halves share) must match one
// place and the old lines must follow it; MatchBlock accepts exactly those
// blocks, and also those whose anchor occurs more than once while the
// whole EDIT half occurs once, because the place is then not in doubt. The
// anchor and any trailing lines both halves share stay untouched; the lines
// between are replaced by hashline.PlanEdits' byte rules. A failure is
// diagnosed: whitespace_mismatch, near_match, not_found or ambiguous (see
// Diagnostic; ErrorKind maps them to PROTOCOL's no_match/ambiguous_match).
//
// A create block (empty EDIT half) is the caller's to handle; MatchBlock
// accepts one only for an empty file. A no-op block (both halves the same)
// returns Match.NoOp without looking at the file.
//
// Blocks for one file apply in order, each against the text the previous
// ones left: a guarded caller applies one block at a time, matching each
// against the current snapshot (the tests' ApplySequence does it purely).
package editblock
