package mcptools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sightline-lsp/sightline/handlers"
	"github.com/sightline-lsp/sightline/hashline"
	"github.com/sightline-lsp/sightline/ledger"
)

type obj = map[string]any

var (
	pathProp    = obj{"type": "string", "description": "File path relative to the workspace root (an absolute path inside the workspace also works)."}
	sessionProp = obj{"type": "string", "description": "Session whose read ledger this call uses. Leave it out: the server's default session (SIGHTLINE_SESSION, else \"default\") is right unless you were told otherwise."}
	dryRunProp  = obj{"type": "boolean", "description": "Validate and show the diff; change nothing and record nothing."}
)

func schema(required []string, props obj) obj {
	return obj{"type": "object", "properties": props, "required": required, "additionalProperties": false}
}

const refsHelp = `A ref is "LINE:HASH" exactly as a read showed it (e.g. "51:524g"); copying the whole "51:524g|content" line also works.`

const refusalsHelp = `Refusals come back as tool errors that start with their kind:
- unread_range: you have not read the target lines. Their current text usually follows under "expanded" and now counts as read: check it and retry the same edit.
- stale_range: the target lines changed since you read them (the user typed, another tool wrote). Read them again (or use the expanded lines) and retry.
- stale_ref: a ref names a line that changed or moved; nothing was applied. The fresh refs shown (lines around it, now counted as read) give the current LINE:HASH.
- ambiguous_ref: the ref could mean several identical lines; pick one from the fresh refs.
- file_changed: file_hash no longer matches; read again. not_found / denied: wrong path (or outside the workspace).
- invalid_ref / invalid_edit / overlap: the edits array is malformed; fix it as the message says.
- unrepresentable: the file's encoding (Latin-1, Shift_JIS, ...) has no bytes for a character you wrote; nothing was written. Use characters it has.`

func (t *tools) defs() []def {
	return []def{
		{&mcp.Tool{
			Name:  "sightline_read",
			Title: "Read lines (hashline-annotated)",
			Description: `Read a file, or lines start..end of it, as "LINE:HASH|content" lines: the LINE:HASH prefix is the ref you pass to sightline_edit, the text after "|" is the line itself.
Read only what you need: a range of a large file is cheaper than all of it. Long reads are cut at a character budget; a notice then says which lines were cut, what they contain, and the range to read next.
Every line shown counts as read in your session's ledger; edits may only change lines you have read in their current form.`,
			InputSchema: schema([]string{"path"}, obj{
				"path":    pathProp,
				"start":   obj{"type": "integer", "minimum": 1, "description": "First line to read (1-based). Default 1."},
				"end":     obj{"type": "integer", "minimum": 1, "description": "Last line to read (1-based, inclusive; past the end is fine). Default: the last line."},
				"session": sessionProp,
			}),
			Annotations: readOnly("Read lines"),
		}, typed("sightline_read", t.read)},
		{&mcp.Tool{
			Name:  "sightline_edit",
			Title: "Edit lines by ref",
			Description: `Change a file by refs from your last read: all edits of one call apply together or none do. ` + refsHelp + `
All refs of one call name lines of the file as you read it (the edits apply bottom to top, so earlier edits do not shift later refs).
The answer shows the diff and the edited region with fresh refs: use those for the next edit, no re-read needed.
` + refusalsHelp,
			InputSchema: schema([]string{"path", "edits"}, obj{
				"path": pathProp,
				"edits": obj{
					"type":        "array",
					"minItems":    1,
					"description": "Edit operations. new_content is raw lines joined by \\n, without LINE:HASH| prefixes (to delete lines use a delete op).",
					"items": obj{
						"type": "object",
						"properties": obj{
							"type": obj{"type": "string", "enum": []string{"replace_line", "replace_range", "insert_after", "insert_before", "delete_line", "delete_range"},
								"description": "replace_line/insert_after/insert_before/delete_line take ref; replace_range/delete_range take start_ref and end_ref (inclusive); replace_* and insert_* take new_content."},
							"ref":         obj{"type": "string", "description": "LINE:HASH of the line (replace_line, insert_after, insert_before, delete_line)."},
							"start_ref":   obj{"type": "string", "description": "LINE:HASH of the first line of the range."},
							"end_ref":     obj{"type": "string", "description": "LINE:HASH of the last line of the range (inclusive)."},
							"new_content": obj{"type": "string", "description": "The new lines, joined by \\n; \"\" is one empty line."},
						},
						"required": []string{"type"},
					},
				},
				"file_hash": obj{"type": "string", "description": "Optional: refuse (file_changed) unless the file still has this hash (sha256:… from a read)."},
				"dry_run":   dryRunProp,
				"session":   sessionProp,
			}),
			Annotations: writes("Edit lines by ref", true),
		}, typed("sightline_edit", t.edit)},
		{&mcp.Tool{
			Name:  "sightline_apply_blocks",
			Title: "Apply search/replace edit blocks",
			Description: `Apply edit blocks written in free text (Markdown fences and prose around them are fine). A block is:
path/to/file.py
<<<< EDIT
the exact old lines
==== REPLACE
the new lines
>>>> EDIT END
The EDIT half must occur exactly once in the file (whitespace inside lines counts); an empty EDIT half creates a new file. Blocks apply in order, each to the file as the earlier ones left it. Paths are relative to the workspace root.
A failed block says why: not_found, whitespace_mismatch or near_match (with the line to look at), ambiguous. The edited lines must have been read (the guard refusals of sightline_edit apply).`,
			InputSchema: schema([]string{"text"}, obj{
				"text":    obj{"type": "string", "description": "Text holding one or more edit blocks."},
				"dry_run": dryRunProp,
				"session": sessionProp,
			}),
			Annotations: writes("Apply edit blocks", true),
		}, typed("sightline_apply_blocks", t.blocks)},
		{&mcp.Tool{
			Name:  "sightline_apply_patch",
			Title: "Apply a unified diff or a V4A patch",
			Description: `Apply a patch: a unified diff as git diff writes it (--- a/file, +++ b/file, @@ hunks; many files, new and deleted files, renames) or a V4A patch (*** Begin Patch, *** Update File: path, @@ context lines, -/+/space lines, *** Add File:, *** Delete File:, *** End Patch). Paths are relative to the workspace root.
Every hunk's context and removed lines must occur exactly once in the file (the @@ line numbers are ignored: a hunk that matches twice is ambiguous_match; add context). Whitespace mismatches and near matches are diagnosed with the hunk and line, never applied. The lines a hunk touches must have been read (unread_range / stale_range as for sightline_edit). All files or none: if one does not apply, nothing is written.`,
			InputSchema: schema([]string{"patch"}, obj{
				"patch":   obj{"type": "string", "description": "The patch text."},
				"dry_run": dryRunProp,
				"session": sessionProp,
			}),
			Annotations: writes("Apply a patch", true),
		}, typed("sightline_apply_patch", t.patch)},
		{&mcp.Tool{
			Name:        "sightline_files",
			Title:       "List the workspace's files",
			Description: `List the workspace's files (.gitignore respected; denied paths left out): path, size, tags (code, test, doc, config, generated), whether the file is sensitive (reading it needs the user's approval), and what this session has read of it (never_read, partial_read, fully_read, stale, model_authored). Optional globs narrow the list ("*.go", "src/**"). Use it to find files before reading them.`,
			InputSchema: schema([]string{}, obj{
				"globs":   obj{"type": "array", "items": obj{"type": "string"}, "description": "Optional: globs to narrow the listing."},
				"session": sessionProp,
			}),
			Annotations: readOnly("List files"),
		}, typed("sightline_files", t.files)},
		{&mcp.Tool{
			Name:        "sightline_history",
			Title:       "A file's recorded versions",
			Description: `The versions of a file that sightline recorded (every write through sightline stores the text before and after): id, time, file hash, size, and which session and method wrote it. Use it to see what changed; the CLI's sightline diff and rollback work with these ids.`,
			InputSchema: schema([]string{"path"}, obj{
				"path":    obj{"type": "string", "description": "File path relative to the workspace root."},
				"session": sessionProp,
			}),
			Annotations: readOnly("File history"),
		}, typed("sightline_history", t.history)},
		{&mcp.Tool{
			Name:  "sightline_write",
			Title: "Create, replace text, append, overwrite",
			Description: `Write a file by mode:
- create: a new file with content (refused with exists if it exists).
- edit: replace old_text, which must occur exactly once (no_match shows the nearest lines; ambiguous_match lists where it occurs: add context), with content.
- append: add content after the last line.
- overwrite: replace the whole file; you must have read all of it (or created it).
Guarded like sightline_edit: the lines you replace must have been read. expected_version (a file hash from a read) makes the write refuse with file_changed if the file changed.`,
			InputSchema: schema([]string{"path", "mode", "content"}, obj{
				"path":             pathProp,
				"mode":             obj{"type": "string", "enum": []string{"create", "edit", "append", "overwrite"}},
				"content":          obj{"type": "string", "description": "The new text (the whole file for create/overwrite; the replacement for edit; the added lines for append)."},
				"old_text":         obj{"type": "string", "description": "edit mode: the exact text to replace; it must occur once in the file."},
				"expected_version": obj{"type": "string", "description": "Optional file hash (sha256:…): refuse unless the file still has it."},
				"dry_run":          dryRunProp,
				"session":          sessionProp,
			}),
			Annotations: writes("Write a file", true),
		}, typed("sightline_write", t.write)},
		{&mcp.Tool{
			Name:        "sightline_ledger",
			Title:       "What you have read",
			Description: `Show what your session has read, written and what went stale (changed by someone else since you read it), per file, as line ranges; "unread" lists what you have not seen. With path, one file; without, every file the session touched. Use it to plan which ranges to read before editing.`,
			InputSchema: schema([]string{}, obj{"path": pathProp, "session": sessionProp}),
			Annotations: readOnly("Read ledger"),
		}, typed("sightline_ledger", t.ledger)},
		{&mcp.Tool{
			Name:        "sightline_summary",
			Title:       "Outline of a file",
			Description: `Outline a file cheaply: its declarations (functions, types, classes) with their line ranges and signatures, plus its first lines annotated (those count as read). Use it on a large file to find the range to sightline_read.`,
			InputSchema: schema([]string{"path"}, obj{"path": pathProp, "session": sessionProp}),
			Annotations: readOnly("Outline a file"),
		}, typed("sightline_summary", t.summary)},
	}
}

type readIn struct {
	Path    string `json:"path"`
	Start   int    `json:"start"`
	End     int    `json:"end"`
	Session string `json:"session"`
}

func (t *tools) read(ctx context.Context, in readIn) (*mcp.CallToolResult, error) {
	k, bad := t.resolve(in.Path)
	if bad != nil {
		return bad, nil
	}
	p := handlers.ReadParams{Caller: t.caller(in.Session), TextDocument: handlers.TextDocument{URI: string(k)}}
	if in.Start > 0 || in.End > 0 {
		r := ledger.Range{Start: max(in.Start, 1), End: in.End}
		if r.End == 0 {
			r.End = 1 << 30
		}
		p.Range = &r
	}
	res, err := t.b.Read(ctx, p)
	return t.answer(res.Outcome, err, nil, func(b *strings.Builder) {
		if res.Range == nil {
			fmt.Fprintln(b, res.Message)
			return
		}
		where := "on disk"
		if res.Version != nil {
			where = fmt.Sprintf("editor buffer v%d", *res.Version)
		}
		fmt.Fprintf(b, "%s lines %d-%d of %d (%s, file_hash %s)\n", res.Path, res.Range.Start, res.Range.End, res.TotalLines, where, res.FileHash)
		b.WriteString(res.Content)
		if res.Notice != "" {
			fmt.Fprintln(b, res.Notice)
		}
	}), nil
}

type editIn struct {
	Path     string          `json:"path"`
	Edits    json.RawMessage `json:"edits"`
	FileHash string          `json:"file_hash"`
	DryRun   bool            `json:"dry_run"`
	Session  string          `json:"session"`
}

func (t *tools) edit(ctx context.Context, in editIn) (*mcp.CallToolResult, error) {
	k, bad := t.resolve(in.Path)
	if bad != nil {
		return bad, nil
	}
	res, err := t.b.Edit(ctx, handlers.EditParams{Caller: t.caller(in.Session), TextDocument: handlers.TextDocument{URI: string(k)}, Edits: in.Edits, FileHash: in.FileHash, DryRun: in.DryRun})
	return t.answer(res.Outcome.WithWarnings(res.Warnings), err, func(b *strings.Builder) {
		if len(res.FreshRefs) > 0 {
			fmt.Fprintln(b, "fresh refs (now counted as read):")
			for _, l := range res.FreshRefs {
				fmt.Fprintln(b, l)
			}
		}
		guardDetail(b, res.GuardRefusal)
	}, func(b *strings.Builder) {
		fmt.Fprintln(b, res.Message)
		for _, r := range res.Remapped {
			fmt.Fprintf(b, "note: ref %s resolved to line %d\n", r.Ref, r.Line)
		}
		b.WriteString(res.Diff)
		if res.WindowRange != nil {
			if res.DryRun {
				fmt.Fprintf(b, "%s would read (not applied):\n", res.WindowRange.Word())
			} else {
				fmt.Fprintf(b, "%s now (fresh refs for your next edit):\n", res.WindowRange.Word())
			}
			b.WriteString(res.Window)
		}
	}), nil
}

type blocksIn struct {
	Text    string `json:"text"`
	DryRun  bool   `json:"dry_run"`
	Session string `json:"session"`
}

func (t *tools) blocks(ctx context.Context, in blocksIn) (*mcp.CallToolResult, error) {
	res, err := t.b.ApplyBlocks(ctx, handlers.BlocksParams{Caller: t.caller(in.Session), Text: in.Text, DryRun: in.DryRun})
	each := func(b *strings.Builder) {
		for _, r := range res.Blocks {
			fmt.Fprintf(b, "[%s] %s: %s\n", r.Status, r.Path, r.Message)
			if r.Diagnostic != nil && r.Diagnostic.Line > 0 {
				fmt.Fprintf(b, "  (%s near line %d)\n", r.Diagnostic.Kind, r.Diagnostic.Line)
			}
			b.WriteString(r.Diff)
			if r.Expanded != "" {
				fmt.Fprintf(b, "expanded (now counted as read):\n%s", r.Expanded)
			}
		}
	}
	return t.answer(res.Outcome, err, each, func(b *strings.Builder) {
		fmt.Fprintln(b, res.Message)
		each(b)
	}), nil
}

type patchIn struct {
	Patch   string `json:"patch"`
	DryRun  bool   `json:"dry_run"`
	Session string `json:"session"`
}

func (t *tools) patch(ctx context.Context, in patchIn) (*mcp.CallToolResult, error) {
	res, err := t.b.ApplyPatch(ctx, handlers.PatchParams{Caller: t.caller(in.Session), Text: in.Patch, DryRun: in.DryRun})
	each := func(b *strings.Builder) {
		for _, f := range res.Files {
			fmt.Fprintf(b, "[%s] %s: %s\n", f.Status, f.Path, f.Message)
			if f.Hunk > 0 {
				fmt.Fprintf(b, "  (hunk %d", f.Hunk)
				if f.Line > 0 {
					fmt.Fprintf(b, ", near line %d", f.Line)
				}
				b.WriteString(")\n")
			}
			b.WriteString(f.Diff)
			if f.Expanded != "" {
				fmt.Fprintf(b, "expanded (now counted as read):\n%s", f.Expanded)
			}
		}
	}
	return t.answer(res.Outcome, err, each, func(b *strings.Builder) {
		fmt.Fprintln(b, res.Message)
		each(b)
	}), nil
}

type writeIn struct {
	Path            string  `json:"path"`
	Mode            string  `json:"mode"`
	Content         *string `json:"content"`
	OldText         *string `json:"old_text"`
	ExpectedVersion string  `json:"expected_version"`
	DryRun          bool    `json:"dry_run"`
	Session         string  `json:"session"`
}

func (t *tools) write(ctx context.Context, in writeIn) (*mcp.CallToolResult, error) {
	k, bad := t.resolve(in.Path)
	if bad != nil {
		return bad, nil
	}
	res, err := t.b.Write(ctx, handlers.WriteParams{Caller: t.caller(in.Session), TextDocument: handlers.TextDocument{URI: string(k)},
		Mode: in.Mode, Content: in.Content, OldText: in.OldText, ExpectedVersion: in.ExpectedVersion, DryRun: in.DryRun})
	return t.answer(res.Outcome, err, func(b *strings.Builder) {
		if len(res.Nearest) > 0 {
			fmt.Fprintln(b, "nearest lines (now counted as read):")
			for _, l := range res.Nearest {
				fmt.Fprintln(b, l)
			}
		}
		if len(res.Matches) > 0 {
			fmt.Fprintf(b, "old_text occurs at lines %s\n", strings.Trim(fmt.Sprint(res.Matches), "[]"))
		}
		guardDetail(b, res.GuardRefusal)
	}, func(b *strings.Builder) {
		fmt.Fprintln(b, res.Message)
		b.WriteString(res.Diff)
	}), nil
}

type filesIn struct {
	Globs   []string `json:"globs"`
	Session string   `json:"session"`
}

func (t *tools) files(ctx context.Context, in filesIn) (*mcp.CallToolResult, error) {
	res, err := t.b.Files(ctx, handlers.FilesParams{Caller: t.caller(in.Session), Globs: in.Globs})
	return t.answer(res.Outcome, err, nil, func(b *strings.Builder) {
		if len(res.Files) == 0 {
			b.WriteString("No files match.\n")
		}
		for _, f := range res.Files {
			fmt.Fprintf(b, "%s  %d bytes  %s  %s", f.Path, f.Size, strings.Join(f.Tags, ","), f.State)
			if f.Sensitive {
				b.WriteString("  sensitive")
			}
			b.WriteString("\n")
		}
	}), nil
}

type historyIn struct {
	Path    string `json:"path"`
	Session string `json:"session"`
}

func (t *tools) history(ctx context.Context, in historyIn) (*mcp.CallToolResult, error) {
	k, bad := t.resolve(in.Path)
	if bad != nil {
		return bad, nil
	}
	res, err := t.b.History(ctx, handlers.HistoryParams{Caller: t.caller(in.Session), TextDocument: handlers.TextDocument{URI: string(k)}})
	return t.answer(res.Outcome, err, nil, func(b *strings.Builder) {
		if len(res.Versions) == 0 {
			fmt.Fprintf(b, "%s\n", res.Message)
			return
		}
		for _, v := range res.Versions {
			cur := ""
			if v.FileHash == res.FileHash {
				cur = "  (current)"
			}
			fmt.Fprintf(b, "%d  %s  %s  %d bytes  %s %s%s\n", v.ID, v.Time.Format("2006-01-02 15:04:05"), v.FileHash, v.Size, v.Session, v.Method, cur)
		}
	}), nil
}

type ledgerIn struct {
	Path    string `json:"path"`
	Session string `json:"session"`
}

func (t *tools) ledger(ctx context.Context, in ledgerIn) (*mcp.CallToolResult, error) {
	p := handlers.LedgerParams{Caller: t.caller(in.Session)}
	if in.Path != "" {
		k, bad := t.resolve(in.Path)
		if bad != nil {
			return bad, nil
		}
		p.TextDocument = &handlers.TextDocument{URI: string(k)}
	}
	res, err := t.b.Ledger(ctx, p)
	return t.answer(res.Outcome, err, nil, func(b *strings.Builder) { res.WriteText(b) }), nil
}

type summaryIn struct {
	Path    string `json:"path"`
	Session string `json:"session"`
}

func (t *tools) summary(ctx context.Context, in summaryIn) (*mcp.CallToolResult, error) {
	k, bad := t.resolve(in.Path)
	if bad != nil {
		return bad, nil
	}
	res, err := t.b.Summary(ctx, handlers.SummaryParams{Caller: t.caller(in.Session), TextDocument: handlers.TextDocument{URI: string(k)}})
	return t.answer(res.Outcome, err, nil, func(b *strings.Builder) {
		fmt.Fprintf(b, "%s  %s  %d lines\n", res.Path, res.Language, res.TotalLines)
		for _, s := range res.Symbols {
			where := fmt.Sprint(s.Start)
			if s.End > s.Start {
				where = fmt.Sprintf("%d-%d", s.Start, s.End)
			}
			fmt.Fprintf(b, "  %-9s %-10s %s\n", where, s.Kind, s.Signature)
		}
		if r := res.ExcerptRange; r != nil {
			fmt.Fprintf(b, "%s (counted as read):\n", r.Word())
			n := r.Start
			for l := range strings.Lines(res.Excerpt) {
				fmt.Fprintf(b, "%s\n", hashline.AppendLine(nil, n, strings.TrimSuffix(l, "\n")))
				n++
			}
		}
	}), nil
}
