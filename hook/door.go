package hook

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sightline-lsp/sightline/engine"
	"github.com/sightline-lsp/sightline/judge"
	"github.com/sightline-lsp/sightline/ops"
	"github.com/sightline-lsp/sightline/result"
)

// A Door is one agent's hook contract over the one judging path that every
// agent but Claude Code and Codex (whose doors came first) goes through:
// how the agent's events read (Parse), which of its tools show or change
// files and how their arguments and answers read (Tools), and how a
// refusal is written for it (Deny). The judging itself (Judge) is the same
// for every door: a change is checked against what the session was shown,
// what a tool showed or wrote is recorded, a compaction starts an epoch.
type Door struct {
	// Name is the hook command's word (sightline hook NAME) and the
	// prefix of the ledger session: NAME-<the agent's session id>.
	Name string
	// Agent names the agent in the ledger and the audit.
	Agent string
	// Parse reads one event; an error says what is wrong with it, and the
	// event then holds what could be told (its phase, its session).
	Parse func(raw []byte) (Event, error)
	// Deny is the answer that refuses a tool call, reason shown to the model.
	Deny func(reason string) []byte
	// Tools are the agent's tools sightline judges, by name.
	Tools map[string]Tool
}

// Phase is what an event asks of sightline.
type Phase int

const (
	// Other events ask nothing.
	Other Phase = iota
	// Before: a tool is about to run; a change is judged.
	Before
	// After: a tool ran; what it showed or wrote is recorded.
	After
	// Expire: the model's context lost what it was shown (a compaction, a
	// clear); a new epoch starts.
	Expire
)

// Event is one hook event as the judging path needs it.
type Event struct {
	Session string
	// Cwd is the folder the agent resolves a relative path against.
	Cwd string
	// Root is the workspace the event says the agent works in, when the
	// agent's own side gives it (Cursor's workspace_roots); "": the hook's.
	Root  string
	Phase Phase
	// Tool is the agent's tool; Args its arguments; Output its answer.
	Tool   string
	Args   json.RawMessage
	Output json.RawMessage
	// Why says, for Expire, what happened. Epoch, when set, names the
	// compaction: an epoch is started once for it however often it is
	// seen (Gemini CLI shows a compaction in every later model call).
	Why, Epoch string
	// Reply is the answer when sightline refuses nothing, for an agent that
	// wants one (Cursor's beforeReadFile, Cline's hooks); nil: none.
	Reply []byte
}

// Op is what a tool does, as sightline judges it.
type Op int

const (
	// OpRead shows lines of files.
	OpRead Op = iota + 1
	// OpShell runs a command; one that only reads shows lines (shellRead).
	OpShell
	// OpReplace replaces old texts of a file with new ones.
	OpReplace
	// OpWrite writes a whole file.
	OpWrite
)

// Call is a tool call's arguments, read.
type Call struct {
	// Path is the file, as the agent gave it.
	Path string
	// Start is the line an OpRead tool's text starts at (0: line 1).
	Start int
	// Edits are OpReplace's old texts, each with its new text.
	Edits []engine.OldText
	// Content is OpWrite's text.
	Content *string
	// Command is OpShell's command line; Dir the folder it runs in, as
	// given ("": the event's cwd).
	Command, Dir string
}

// Shown is what a tool showed the model of one file: its lines (numbered
// as the tool numbered them), the file as the tool named it.
type Shown struct {
	Path  string
	Lines []engine.ShownLine
}

// Tool is one of an agent's tools: its operation, how its arguments read,
// and how its answer reads.
type Tool struct {
	Op Op
	// Args reads the arguments; an error says what is not as documented.
	Args func(raw json.RawMessage) (Call, error)
	// Shown reads what an OpRead tool showed (nil: nothing known); paths
	// are resolved against the call's Dir, else the event's cwd.
	Shown func(c Call, out json.RawMessage) []Shown
	// Stdout is what an OpShell command printed, whole, when the answer
	// says so (ok false: unknown, nothing is recorded).
	Stdout func(out json.RawMessage) (stdout string, ok bool)
	// Done reads whether an OpReplace or OpWrite tool did its change, and
	// whether it created the file; a change not known to be done records
	// nothing.
	Done func(out json.RawMessage) (done, created bool)
}

// Epochs remembers which compactions started an epoch, per session: the
// hook runs once per event and keeps nothing itself.
type Epochs interface {
	// Seen reports whether epoch was started for session already.
	Seen(session, epoch string) bool
	// Mark remembers that it was.
	Mark(session, epoch string) error
}

// FileEpochs keeps the compactions seen in a folder, one small file per
// session (the workspace's state folder).
type FileEpochs string

func (d FileEpochs) file(session string) string {
	sum := sha256.Sum256([]byte(session))
	return filepath.Join(string(d), hex.EncodeToString(sum[:12]))
}

// Seen implements Epochs.
func (d FileEpochs) Seen(session, epoch string) bool {
	b, err := os.ReadFile(d.file(session))
	return err == nil && string(b) == epoch
}

// Mark implements Epochs.
func (d FileEpochs) Mark(session, epoch string) error {
	if err := os.MkdirAll(string(d), 0o700); err != nil {
		return fmt.Errorf("remembering the compaction: %w", err)
	}
	if err := os.WriteFile(d.file(session), []byte(epoch), 0o600); err != nil {
		return fmt.Errorf("remembering the compaction: %w", err)
	}
	return nil
}

// Session is the ledger session of an event.
func (d *Door) Session(ev Event) string { return d.Name + "-" + ev.Session }

func (d *Door) caller(ev Event) engine.Caller {
	return engine.Caller{Session: d.Session(ev), Agent: d.Agent}
}

// Judge answers one event of the door's agent; like Claude, it never
// fails: a change it cannot judge exactly as the agent's tool will make it
// is denied with the reason, and audited; what it cannot record is said on
// standard error.
func (d *Door) Judge(ctx context.Context, r judge.Router, ev Event, opt Options) Answer {
	a := d.judge(ctx, r, ev, opt)
	if a.Stdout == nil {
		a.Stdout = ev.Reply
	}
	return a
}

func (d *Door) judge(ctx context.Context, r judge.Router, ev Event, opt Options) Answer {
	c := d.caller(ev)
	switch ev.Phase {
	case Before:
		return d.before(ctx, r, c, ev, opt)
	case After:
		if err := d.after(ctx, r, c, ev, opt); err != nil {
			return Answer{Stderr: "sightline: " + err.Error() + "\n"}
		}
	case Expire:
		if ev.Epoch != "" && opt.Epochs != nil && opt.Epochs.Seen(c.Session, ev.Epoch) {
			return Answer{} // this compaction's epoch was started already
		}
		a := expire(ctx, r, c, opt, ev.Why)
		if ev.Epoch != "" && opt.Epochs != nil && a.Stderr == "" && !opt.KeepReads {
			if err := opt.Epochs.Mark(c.Session, ev.Epoch); err != nil {
				a.Stderr = "sightline: " + err.Error() + "\n"
			}
		}
		return a
	}
	return Answer{}
}

// Idle reports whether an event asks nothing of the workspace (an event
// sightline does not judge, a tool it does not know, a compaction whose
// epoch was started already): the hook answers it without opening the
// workspace (ev.Reply, if any). Gemini CLI runs a hook before every model
// call; most ask nothing.
func (d *Door) Idle(ev Event, opt Options) bool {
	switch ev.Phase {
	case Before:
		t, ok := d.Tools[ev.Tool]
		return !ok || t.Op != OpReplace && t.Op != OpWrite
	case After:
		_, ok := d.Tools[ev.Tool]
		return !ok
	case Expire:
		return opt.KeepReads || ev.Epoch != "" && opt.Epochs != nil && opt.Epochs.Seen(d.Session(ev), ev.Epoch)
	}
	return true
}

// Unreadable answers an event that could not be read (why): one that may be
// a tool call about to run is denied, and audited; another records nothing.
func (d *Door) Unreadable(ctx context.Context, r judge.Router, ev Event, why string) Answer {
	if ev.Phase != Before && ev.Phase != Other {
		return Answer{Stdout: ev.Reply, Stderr: "sightline: " + why + "; nothing was recorded\n"}
	}
	return refuseWith(ctx, r, d.caller(ev), d.Deny, ev.Tool, "", why+". Nothing was changed; retry the call with the tool's documented parameters")
}

func (d *Door) before(ctx context.Context, r judge.Router, c engine.Caller, ev Event, opt Options) Answer {
	t, ok := d.Tools[ev.Tool]
	if !ok || t.Op != OpReplace && t.Op != OpWrite {
		return Answer{} // not a tool that changes a file
	}
	refuse := func(path, why string) Answer {
		return refuseWith(ctx, r, c, d.Deny, ev.Tool, path, why)
	}
	if opt.Root == "" {
		return refuse("", "the project's root is unknown, so sightline cannot tell which workspace guards the file. Nothing was changed; tell the user (the hook's command can name the root: `sightline hook "+d.Name+" --root DIR`)")
	}
	call, err := t.Args(ev.Args)
	if err != nil {
		return refuse("", "its arguments "+err.Error()+". Nothing was changed; retry the call with the tool's documented parameters")
	}
	path, why := toolPath(ev.Cwd, call.Path)
	if why != "" {
		return refuse("", why)
	}
	path, r = place(r, opt, path)
	p := engine.CheckParams{Caller: c, Tool: ev.Tool}
	if t.Op == OpReplace {
		p.Old = call.Edits
	} else {
		p.Whole = true
	}
	why, err = check(ctx, r, p, path)
	a := Answer{}
	if err != nil {
		a.Stderr = "sightline: " + err.Error() + "\n"
	}
	if why != "" {
		a.Stdout = d.Deny(why)
	}
	return a
}

func (d *Door) after(ctx context.Context, r judge.Router, c engine.Caller, ev Event, opt Options) error {
	t, ok := d.Tools[ev.Tool]
	if !ok || opt.Root == "" {
		// Not a tool sightline knows, or a workspace it does not: nothing
		// is recorded (every change is refused meanwhile).
		return nil
	}
	call, err := t.Args(ev.Args)
	if err != nil {
		return nil // not the documented call: what it did is not known
	}
	resolve := func(name string) (string, judge.Router, bool) {
		base := ev.Cwd
		if call.Dir != "" {
			base = abs(ev.Cwd, call.Dir)
		}
		path, why := toolPath(base, name)
		if why != "" {
			return "", nil, false
		}
		p, pr := place(r, opt, path)
		return p, pr, true
	}
	switch t.Op {
	case OpRead:
		if t.Shown == nil {
			return nil
		}
		for _, s := range t.Shown(call, ev.Output) {
			if path, pr, ok := resolve(s.Path); ok && len(s.Lines) > 0 {
				if err := shown(ctx, pr, c, path, s.Lines, false, false, ev.Tool); err != nil {
					return err
				}
			}
		}
	case OpShell:
		out, ok := t.Stdout(ev.Output)
		if !ok {
			return nil
		}
		cwd := ev.Cwd
		if call.Dir != "" {
			cwd = abs(ev.Cwd, call.Dir)
		}
		return shellShown(ctx, r, c, opt, cwd, call.Command, out)
	case OpReplace, OpWrite:
		done, created := t.Done(ev.Output)
		if !done {
			return nil
		}
		path, pr, ok := resolve(call.Path)
		if !ok {
			return nil
		}
		if t.Op == OpWrite {
			if call.Content == nil {
				return nil
			}
			return shown(ctx, pr, c, path, judge.Numbered(1, judge.TextLines(*call.Content)), true, created, ev.Tool)
		}
		// Each new text, found in the file as it is now, is the session's.
		var hunks []engine.CheckHunk
		for _, e := range call.Edits {
			if e.New == nil || *e.New == "" {
				continue
			}
			hunks = append(hunks, engine.CheckHunk{Old: judge.TextLines(e.Text), New: judge.TextLines(*e.New)})
		}
		if len(hunks) == 0 {
			return nil
		}
		p := engine.ShownParams{Caller: c, TextDocument: engine.TextDocument{URI: string(pr.Key(path))},
			Hunks: hunks, Authored: true, Tool: ev.Tool}
		res, err := pr.Call(ctx, ops.Shown, p)
		if err != nil {
			return fmt.Errorf("recording what %s wrote in %s: %w", ev.Tool, path, err)
		}
		if o := ops.Shown.Outcome(res); !o.OK {
			return fmt.Errorf("recording what %s wrote in %s: %s: %s", ev.Tool, path, o.Error, o.Message)
		}
	}
	return nil
}

// toolPath is the absolute path an agent's tool acts on: an absolute one
// as given, a relative one against cwd; why says what sightline cannot
// resolve as the tool would (a home folder's ~, Gemini CLI's @ reference
// to a file found elsewhere, blanks around it).
func toolPath(cwd, name string) (path, why string) {
	if strings.HasPrefix(name, "@") {
		return "", fmt.Sprintf("sightline cannot tell which file the path %q names as the agent would. Nothing was changed; retry with the file's absolute path", name)
	}
	return claudePath(cwd, &name)
}

// refuseWith denies a change the hook could not read exactly as the agent
// will carry it out, in the agent's answer (deny), through sightline/check
// (unjudged) so that the refusal is audited like the guard's.
func refuseWith(ctx context.Context, r judge.Router, c engine.Caller, deny func(string) []byte, tool, path, why string) Answer {
	p := engine.CheckParams{Caller: c, Tool: tool, Unjudged: why}
	shown := path
	if path == "" {
		shown = "a file"
	} else {
		p.TextDocument = engine.TextDocument{URI: string(r.Key(path))}
	}
	a := Answer{Stdout: deny("sightline refused this change of " + shown + ": " + why + ".")}
	if _, err := r.Call(ctx, ops.Check, p); err != nil {
		a.Stderr = fmt.Sprintf("sightline: auditing the refusal of %s's change: %v\n", tool, err)
	}
	return a
}

// decodeArgs reads a tool's arguments as sightline judges them (exact
// member names, no member twice): an object, or a JSON string holding one
// (Copilot CLI's documented toolArgs).
func decodeArgs(raw json.RawMessage, v any) error {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		raw = json.RawMessage(s)
	}
	if len(raw) == 0 || string(raw) == "null" {
		return fmt.Errorf("are missing")
	}
	if err := decodeJudged(raw, v); err != nil {
		return fmt.Errorf("cannot be read exactly as the agent reads them (%v)", err)
	}
	return nil
}

// need is the error of an argument a tool requires that is missing.
func need(name string) error { return fmt.Errorf("have no %s", name) }

func decodeJudged(raw []byte, v any) error { return result.DecodeJudged(raw, v) }
